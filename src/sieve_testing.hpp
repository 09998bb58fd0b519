/// @file sieve_testing.hpp
/// @brief What the tests read of the sieve's inner workings (internal, not
/// part of the library's interface). Rounds, windows, slices and batches
/// are set through SieveOptions.
#pragma once

#include <atomic>
#include <cstdint>

namespace chomp::detail {

/// Items cut because a thread reached its share of a round, their rests
/// taken up in the next round (counted for the tests).
extern std::atomic<std::uint64_t> g_items_cut;

/// Calls of the kernel whose marks went straight into the bitmap, past the
/// buckets (SieveOptions::direct_call_marks; counted for the tests).
extern std::atomic<std::uint64_t> g_direct_calls;

/// Such calls of a distributed sieve, each made by every process for the
/// first rows of its own segments (counted once per process, also by a
/// process that owns none of the level; for the tests).
extern std::atomic<std::uint64_t> g_split_calls;

/// Values a distributed sieve's processes sent one another: marks for other
/// processes' segments and split calls (counted for the tests).
extern std::atomic<std::uint64_t> g_routed_values;

}  // namespace chomp::detail
