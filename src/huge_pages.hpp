/// @file huge_pages.hpp
/// @brief Memory for the arrays that marks land in, backed by huge pages
/// where the kernel allows.
///
/// Marks land all over gigabytes: the target bitmaps, and the thousands of
/// bucket blocks that are open at once while marks are filed. With 4 KiB
/// pages nearly every one of those stores also misses the TLB. The buffer is
/// mapped fresh (the kernel hands out zeroed pages as they are first
/// touched), aligned to 2 MiB and advised to use transparent huge pages
/// (MADV_HUGEPAGE, which Debian's default "madvise" setting honours). The
/// advice is only a hint: where it is refused the memory is the same. On
/// the 2-vCPU VM, runs to 110 and 120 with no huge pages, or with huge
/// pages for the rows' bits only (the window grown in place), took the
/// same time within 1-3%, in both directions (doc/PERFORMANCE.md,
/// 2026-12-04): the kernel hands out a fresh huge page more slowly, and
/// that eats what the TLB saves.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

namespace chomp::detail {

class HugeBuffer {
 public:
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  HugeBuffer() = default;
  /// At least `bytes` of zeroed memory, starting on a 2 MiB boundary.
  explicit HugeBuffer(std::size_t bytes) {
    if (bytes == 0) return;
    size_ = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    mapped_ = size_ + kHugePage;  // room to align the start
    void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    base_ = static_cast<char*>(p);
    const auto at = reinterpret_cast<std::uintptr_t>(base_);
    data_ = base_ + ((kHugePage - at % kHugePage) % kHugePage);
    madvise(data_, size_, MADV_HUGEPAGE);  // advice only: failure is harmless
  }
  ~HugeBuffer() { release(); }
  HugeBuffer(HugeBuffer&& o) noexcept
      : base_(std::exchange(o.base_, nullptr)), data_(std::exchange(o.data_, nullptr)),
        mapped_(std::exchange(o.mapped_, 0)), size_(std::exchange(o.size_, 0)) {}
  HugeBuffer& operator=(HugeBuffer&& o) noexcept {
    if (this != &o) {
      release();
      base_ = std::exchange(o.base_, nullptr);
      data_ = std::exchange(o.data_, nullptr);
      mapped_ = std::exchange(o.mapped_, 0);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  HugeBuffer(const HugeBuffer&) = delete;
  HugeBuffer& operator=(const HugeBuffer&) = delete;

  template <class T>
  T* as() const {
    return reinterpret_cast<T*>(data_);
  }
  std::size_t size() const { return size_; }

 private:
  void release() {
    if (base_) munmap(base_, mapped_);
    base_ = data_ = nullptr;
    mapped_ = size_ = 0;
  }

  char* base_ = nullptr;  // as mapped
  char* data_ = nullptr;  // base_ rounded up to 2 MiB
  std::size_t mapped_ = 0;
  std::size_t size_ = 0;
};

}  // namespace chomp::detail
