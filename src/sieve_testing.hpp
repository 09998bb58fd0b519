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

}  // namespace chomp::detail
