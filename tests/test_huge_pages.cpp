/// @file test_huge_pages.cpp
/// @brief The memory the marks land in: zeroed, 2 MiB aligned, writable to
/// its last byte, and owned by exactly one buffer.

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "huge_pages.hpp"

using chomp::detail::HugeBuffer;

TEST(HugeBuffer, ZeroedAlignedAndAtLeastTheSizeAsked) {
  for (std::size_t bytes : {std::size_t{1}, std::size_t{4096}, HugeBuffer::kHugePage + 8, std::size_t{5} << 20}) {
    HugeBuffer b(bytes);
    ASSERT_NE(b.as<char>(), nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.as<char>()) % HugeBuffer::kHugePage, 0U) << bytes;
    EXPECT_GE(b.size(), bytes);
    EXPECT_EQ(b.size() % HugeBuffer::kHugePage, 0U);
    const auto* words = b.as<std::uint64_t>();
    std::uint64_t any = 0;
    for (std::size_t i = 0; i < b.size() / 8; ++i) any |= words[i];
    EXPECT_EQ(any, 0U) << "fresh memory must read as zero (" << bytes << " bytes)";
    b.as<char>()[b.size() - 1] = 1;  // the last byte is ours
    EXPECT_EQ(b.as<char>()[b.size() - 1], 1);
  }
}

TEST(HugeBuffer, MovesKeepOneOwner) {
  HugeBuffer a(1 << 20);
  a.as<std::uint32_t>()[7] = 42;
  HugeBuffer b(std::move(a));
  EXPECT_EQ(a.as<char>(), nullptr);
  EXPECT_EQ(a.size(), 0U);
  EXPECT_EQ(b.as<std::uint32_t>()[7], 42U);
  HugeBuffer c;
  c = std::move(b);
  EXPECT_EQ(b.as<char>(), nullptr);
  EXPECT_EQ(c.as<std::uint32_t>()[7], 42U);
  EXPECT_EQ(HugeBuffer(0).as<char>(), nullptr);
}
