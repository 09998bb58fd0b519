/// @file chomp_process.hpp
/// @brief Test support: runs the built `chomp` program as a child process
/// (exit code, stdout, stderr, signals, a file size limit) in a scratch folder.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace chomp::testing {

/// Optimised builds run the subprocess tests at full size; Debug and
/// sanitizer builds (several times slower) at smaller sizes that go through
/// the same code paths.
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
inline constexpr bool kFullSize = true;
#else
inline constexpr bool kFullSize = false;
#endif

/// The program the tests run: CHOMP_TEST_BINARY when it is set (CI points
/// it at a sanitizer build of chomp, build-asan/chomp, to run the
/// hostile-input tests under ASan and UBSan), else the one built beside
/// the tests.
inline std::string chomp_binary() {
  const char* b = std::getenv("CHOMP_TEST_BINARY");
  return b && *b ? std::string(b) : std::string(CHOMP_BINARY);
}

/// Whether the program may be a sanitizer build, which reserves terabytes
/// of address space (no RLIMIT_AS then) and runs several times slower.
inline bool sanitized_binary() {
  const char* b = std::getenv("CHOMP_TEST_BINARY");
  return !kFullSize || (b && *b);
}

/// A fresh folder, removed with everything in it at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "chomp-test-XXXXXX").string();
    if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
    path_ = templ;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  /// Names in the folder, sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::filesystem::path path_;
};

/// "1:02:03", "4:05" or "37 s" (the program's clock texts) in seconds.
inline double clock_seconds(const std::string& t) {
  if (t.size() > 2 && t.compare(t.size() - 2, 2, " s") == 0) return std::stod(t);
  double s = 0;
  for (std::size_t start = 0;;) {
    const std::size_t colon = t.find(':', start);
    s = 60 * s + std::stod(t.substr(start, colon - start));
    if (colon == std::string::npos) return s;
    start = colon + 1;
  }
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct ProcessResult {
  int exit_code = -1;  ///< the exit status, or -1 when a signal ended it
  int signal = 0;      ///< the signal that ended it, or 0
  long max_rss_kib = 0;  ///< its peak resident memory (getrusage's ru_maxrss)
  std::string out, err;
};

struct ProcessOptions {
  std::string cwd;                   ///< working folder ("" = the test's)
  long long file_size_limit = -1;    ///< RLIMIT_FSIZE in bytes, or -1
  long long address_space_limit = -1;  ///< RLIMIT_AS in bytes, or -1
  std::string stdin_path;            ///< standard input ("" = /dev/null)
  std::string stdout_path;           ///< standard output ("" = a file that out() reads)
};

/// A running `chomp` with its stdout and stderr going to files, so that a
/// test can watch its progress without pipes that could fill and block.
class ChompProcess {
 public:
  ChompProcess(const std::vector<std::string>& args, const ProcessOptions& opts = {}) {
    static int serial = 0;
    const std::string base = (std::filesystem::temp_directory_path() /
                              ("chomp-proc-" + std::to_string(getpid()) + "-" + std::to_string(++serial)))
                                 .string();
    out_path_ = base + ".out";
    err_path_ = base + ".err";
    std::vector<std::string> full{chomp_binary()};
    full.insert(full.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : full) argv.push_back(a.data());
    argv.push_back(nullptr);
    // Only async-signal-safe calls between fork and exec.
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      if (!opts.cwd.empty() && chdir(opts.cwd.c_str()) != 0) _exit(126);
      if (opts.file_size_limit >= 0) {
        rlimit lim{static_cast<rlim_t>(opts.file_size_limit), static_cast<rlim_t>(opts.file_size_limit)};
        setrlimit(RLIMIT_FSIZE, &lim);
      }
      if (opts.address_space_limit >= 0) {
        rlimit lim{static_cast<rlim_t>(opts.address_space_limit), static_cast<rlim_t>(opts.address_space_limit)};
        setrlimit(RLIMIT_AS, &lim);
      }
      const int in = open(opts.stdin_path.empty() ? "/dev/null" : opts.stdin_path.c_str(), O_RDONLY);
      if (in < 0) _exit(126);
      dup2(in, 0);
      const int out = opts.stdout_path.empty() ? open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644)
                                               : open(opts.stdout_path.c_str(), O_WRONLY);
      const int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out < 0 || err < 0) _exit(126);
      dup2(out, 1);
      dup2(err, 2);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }
  ~ChompProcess() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    std::remove(out_path_.c_str());
    std::remove(err_path_.c_str());
  }
  ChompProcess(const ChompProcess&) = delete;
  ChompProcess& operator=(const ChompProcess&) = delete;

  void send(int sig) const { kill(pid_, sig); }

  std::string out() const { return read_text(out_path_); }
  std::string err() const { return read_text(err_path_); }

  /// The largest tile count among the finished-level rows printed so far
  /// (0 if none).
  int last_level_printed() const {
    std::istringstream in(out());
    std::string line;
    int last = 0;
    while (std::getline(in, line)) {
      if (in.eof()) break;  // a line still being written
      std::istringstream row(line);
      int tiles = 0;
      unsigned long long positions = 0;
      if (row >> tiles >> positions) last = std::max(last, tiles);
    }
    return last;
  }

  /// Waits (polling) until pred() holds or the process ends; true if pred held.
  bool wait_until(const std::function<bool()>& pred, double timeout_s = 120) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < end) {
      if (pred()) return true;
      if (exited()) return pred();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

  /// True once the process has ended (reaps it).
  bool exited() {
    if (reaped_) return true;
    int status = 0;
    rusage usage{};
    if (wait4(pid_, &status, WNOHANG, &usage) == pid_) record(status, usage);
    return reaped_;
  }

  ProcessResult wait() {
    if (!reaped_) {
      int status = 0;
      rusage usage{};
      wait4(pid_, &status, 0, &usage);
      record(status, usage);
    }
    result_.out = out();
    result_.err = err();
    return result_;
  }

 private:
  void record(int status, const rusage& usage) {
    reaped_ = true;
    result_.max_rss_kib = usage.ru_maxrss;
    if (WIFEXITED(status)) result_.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result_.signal = WTERMSIG(status);
  }

  pid_t pid_ = -1;
  bool reaped_ = false;
  std::string out_path_, err_path_;
  ProcessResult result_;
};

inline ProcessResult run_chomp(const std::vector<std::string>& args, const ProcessOptions& opts = {}) {
  return ChompProcess(args, opts).wait();
}

/// Runs `chomp` with `input` as its standard input.
inline ProcessResult run_chomp_with_input(const std::vector<std::string>& args, const std::string& input) {
  ScratchDir dir;
  std::ofstream(dir.file("stdin"), std::ios::binary) << input;
  ProcessOptions opts;
  opts.stdin_path = dir.file("stdin");
  return run_chomp(args, opts);
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

inline int count_lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

/// A seed for randomized tests: CHOMP_TEST_SEED if set, else from the clock;
/// tests print it so that a failure can be replayed.
inline std::uint64_t test_seed() {
  if (const char* s = std::getenv("CHOMP_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

}  // namespace chomp::testing
