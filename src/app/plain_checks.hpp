/// @file plain_checks.hpp
/// @brief The checks and texts of the program that need no CLI11: safe
/// echoing of hostile input, byte sizes, shell quoting, the machine's cores
/// and memory, and output names.
///
/// Values are echoed through printable(): control bytes and broken UTF-8
/// are escaped and very long values cut, so a message stays one line. A
/// file that needs only these includes this header, not cli_checks.hpp:
/// CLI11's header costs 9.5 s of compile at -O3 in every file that
/// includes it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace chomp::app {

/// text made safe for one line of a terminal or log: control characters and
/// bytes that are not valid UTF-8 become \xNN, and text longer than
/// max_bytes is cut with "...".
std::string printable(std::string_view text, std::size_t max_bytes = 60);

/// Bytes from "512M", "20G", "1.5GiB", "4096" or "4096B": K, M, G and T
/// (with or without a trailing B or iB, any case) are powers of 1024. On
/// failure returns nullopt and says why in `why`.
std::optional<std::uint64_t> parse_byte_size(std::string_view text, std::string& why);

/// text quoted for a POSIX shell when it needs it, for printing a command
/// that can be pasted.
std::string shell_quote(const std::string& text);

/// The words of an option or argument joined with single spaces: a sum of
/// boards typed without quotes (3,2 + 4,1) reaches the program as several
/// words, and reads as the quoted one would.
std::string join_words(const std::vector<std::string>& words);

/// Runs `run`; an InvalidPosition of text joined from several words with
/// no '+' among them (3x4 2x5: two boards without a '+') says how many words
/// came and how to write a sum, which its own message cannot know.
int with_words_hint(const std::vector<std::string>& words, const std::string& what, const std::function<int()>& run);

/// The program as it was invoked (argv[0]), for printing commands to run next.
const std::string& program_path();

/// Bytes as "1.5 GiB" (powers of 1024, one decimal).
std::string human_bytes(double bytes);

/// The threads a command other than `sieve` works with: `requested` (0:
/// all cores), at most the cores. Those commands set a ceiling on TBB's
/// threads (tbb::global_control), which never adds threads beyond the
/// cores, so more would be printed and recorded but not used.
int worker_threads(int requested);
inline constexpr const char* kWorkerThreadsHelp = "Worker threads, at most one a core (default: all cores)";

/// Memory this process may still use, in bytes, and what bounds it; 0 if
/// unknown. The least of MemAvailable, the room left under a cgroup v2
/// limit (batch schedulers and containers set one), and ulimit -v.
std::pair<std::uint64_t, std::string> available_memory();

/// The machine's memory in bytes (MemTotal), 0 if unknown.
std::uint64_t machine_memory();

/// Refuses (UsageError) standard input that is a folder, from which
/// nothing can be read: `what` says what was to be read ("the position").
/// (Its read would fail, and read as an end of input.)
void refuse_folder_stdin(const std::string& what);

/// Refuses (UsageError) an --output named like a side file of a run
/// (run.h5 keeps run.store, run.window, run.window.tmp, run.h5.partial and
/// run.h5.lock): a run on that other output would take this result file
/// for its own side file and remove or overwrite it (a new run on x.h5
/// removed a result file x.window as a stale checkpoint; `grundy -o
/// x.store --force` replaced a sieve run's store).
void refuse_side_file_name(const std::string& output, const std::string& option = "--output",
                           const std::string& ending = ".h5");

/// Refuses (UsageError, exit code 2) a solve that needs more memory than
/// available_memory() says is left, before it starts, instead of letting
/// the kernel's out-of-memory killer end it: "WHAT needs about X of memory
/// (DETAIL), and only Y is SOURCE; ADVICE".
void refuse_unless_memory_left(std::uint64_t bytes, const std::string& what, const std::string& detail,
                               const std::string& advice);

}  // namespace chomp::app
