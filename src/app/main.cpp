/// @file main.cpp
/// @brief The `chomp` program: builds the command line from the registered
/// subcommands and maps failures to exit codes (2 usage, 1 runtime; a run
/// stopped by SIGINT, SIGTERM or SIGUSR1 exits 128 + the signal's number).

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "build_info.hpp"
#include "chomp/h5_output.hpp"
#include "chomp/position.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"

namespace chomp::app {

std::vector<CommandSpec>& command_registry() {
  static std::vector<CommandSpec> registry;
  return registry;
}

namespace {
std::string g_command_line;
std::string g_program_path = "chomp";
}

const std::string& command_line() { return g_command_line; }
const std::string& program_path() { return g_program_path; }

}  // namespace chomp::app

namespace {
/// A command's exit code, once what it printed has reached standard
/// output: a table redirected to a full disk (`chomp show FILE --csv >
/// table.csv`) must not end with exit 0 and a truncated file that looks
/// whole. Both streams are flushed (the commands print through iostreams
/// and printf alike) and a failure of either is an error of its own, but
/// for a pipe: a reader that went away (`chomp sieve ... | head`, where the
/// run ignores SIGPIPE and finishes its files) chose to read no more.
int finish_output(int code) {
  errno = 0;  // the reason below is the flushes', not an earlier call's
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!failed) return code;
  const int err = errno;
  struct stat st {};
  if (fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) return code;
  std::cerr << "chomp: error: cannot write standard output" << (err ? std::string(" (") + std::strerror(err) + ")" : "")
            << ": what was printed is incomplete; check the disk it goes to and run again\n";
  return code == 0 ? 1 : code;
}

/// A position or boards written in brackets ("[4,4,2,1]", "[3x4]",
/// "[3x4,2x5]"): a word of `chomp analyze`, or the value of `play
/// --boards`, or null. The command-line parser strips a vector option's
/// brackets and splits it at its commas before a command sees it, which
/// would then misreport the words it got. Other commands' words (a file
/// named "[12]") are theirs.
const char* bracketed_position(int argc, char** argv) {
  if (argc < 3) return nullptr;
  const std::string_view command = argv[1];
  const auto bracketed = [](std::string_view w) {
    return w.size() >= 3 && w.front() == '[' && w.back() == ']' &&
           w.find_first_of("0123456789") != std::string_view::npos &&
           w.substr(1, w.size() - 2).find_first_not_of("0123456789x, +") == std::string_view::npos;
  };
  for (int i = 2; i < argc; ++i) {
    std::string_view w = argv[i];
    if (command == "play") {
      if (w.rfind("--boards=", 0) == 0)
        w.remove_prefix(9);
      else if (i > 2 && std::string_view(argv[i - 1]) != "--boards")
        continue;
      else if (i == 2)
        continue;
    } else if (command != "analyze") {
      return nullptr;
    }
    if (bracketed(w)) return argv[i];
  }
  return nullptr;
}

/// CLI11's words for arguments no option takes ("The following arguments
/// were not expected: 10 --max-tile", in reverse order), in the order
/// given (from the parser's own list), with what the first such option may
/// have meant: a long option of the command one or two letters away, or
/// --debug, which goes before it.
std::string extras_message(const std::string& what, const CLI::App& app) {
  const auto colon = what.find(": ");
  if (colon == std::string::npos) return what;
  // The words as the parser kept them, in order (a word may hold spaces).
  std::vector<std::string> words = app.remaining(false);
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return s->parsed(); }))
    for (const std::string& w : sub->remaining(false)) words.push_back(w);
  if (words.empty()) return what;
  std::string text = what.substr(0, colon + 2);
  for (std::size_t i = 0; i < words.size(); ++i) text += (i ? " " : "") + words[i];
  const auto option = std::find_if(words.begin(), words.end(), [](const std::string& w) { return w.rfind("--", 0) == 0; });
  if (option == words.end()) return text;
  const std::string given = option->substr(0, option->find('='));
  if (given == "--debug") return text + " (--debug goes before the command: chomp --debug <command> ...)";
  // The closest long option of the command given (edit distance at most 2).
  const auto distance = [](const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t diagonal = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const std::size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
        diagonal = up;
      }
    }
    return row[b.size()];
  };
  std::string best;
  std::size_t best_distance = 3;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return s->parsed(); }))
    for (const CLI::Option* opt : sub->get_options())
      for (const std::string& name : opt->get_lnames())
        if (const std::size_t d = distance(given, "--" + name); d < best_distance) {
          best_distance = d;
          best = "--" + name;
        }
  return best.empty() ? text : text + " (did you mean " + best + "?)";
}
}  // namespace

int main(int argc, char** argv) {
  using namespace chomp::app;
  // Each word quoted for a POSIX shell where it needs it (a file name with
  // a space or a quote), so that the provenance's command_line reads back
  // as the words the program was given.
  for (int i = 0; i < argc; ++i) {
    if (i) g_command_line.push_back(' ');
    g_command_line += shell_quote(argv[i]);
  }
  if (argc > 0 && argv[0][0] != '\0') g_program_path = argv[0];
  // A file size limit (ulimit -f) must fail the write with EFBIG, which is
  // reported like a full disk, rather than kill the process mid-write.
  std::signal(SIGXFSZ, SIG_IGN);

  // Named "chomp", not argv[0]: the usage lines (and the man page made
  // from them) read the same wherever the program was started from.
  CLI::App app{"chomp: an exact, parallel sieve for the game of Chomp.\n"
               "Classifies every position, level by level in tile count, as winning or losing.",
               "chomp"};
  app.set_version_flag("--version", std::string("chomp ") + chomp::build::kVersion + " (" +
                                        chomp::build::kGitRevision + ")");
  app.require_subcommand(1);
  bool debug = false;
  app.add_flag("--debug", debug, "Print HDF5's own error stack beside each error (for reporting a bug)");

  auto& registry = command_registry();
  std::sort(registry.begin(), registry.end(),
            [](const CommandSpec& a, const CommandSpec& b) { return a.order < b.order; });
  std::vector<std::pair<CLI::App*, Action>> actions;
  for (const CommandSpec& spec : registry) {
    CLI::App* sub = app.add_subcommand(spec.name, spec.description);
    actions.emplace_back(sub, spec.setup(*sub));
  }
  app.footer(
      "Each command's own --help tells more (chomp sieve --help).\n"
      "Exit status: 0 when the command did what was asked; 2 when its command line is\n"
      "refused (an option or its value, options that contradict each other or the\n"
      "files they name, or a run too large for the memory, the disk or the command's\n"
      "limits); 1 when a failure comes while working (a file that cannot be\n"
      "used: damaged, unreadable or of another kind; a full disk; a check that fails);\n"
      "130, 143 or 138 when a run is stopped by SIGINT, SIGTERM or SIGUSR1 (its finished\n"
      "levels are kept, and --resume continues it; SIGUSR1 is for runs under mpirun).");

  // Under an MPI launcher every process parses the same words before MPI
  // starts: only the first (rank 0, from the launcher's environment) says
  // what is wrong, or prints help, instead of K interleaved copies, and
  // gives the job its exit code; the others end quietly with 0 (one ending
  // with 2 first made mpirun abort the job across rank 0's message).
  const bool other_rank = [] {
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
      if (const char* r = std::getenv(name); r && *r) return std::string_view(r) != "0";
    return false;
  }();
  // A first word that is neither an option nor a command is named, with
  // the commands there are (CLI11 would say only "A subcommand is required").
  // No word at all gets the same list.
  if (argc <= 1 || (argv[1][0] != '-' && std::none_of(registry.begin(), registry.end(), [&](const CommandSpec& c) {
                      return c.name == argv[1];
                    }))) {
    if (other_rank) return 0;
    std::string names;
    for (const CommandSpec& c : registry) names += (names.empty() ? "" : ", ") + c.name;
    std::cerr << "chomp: "
              << (argc <= 1 ? std::string("a command is required")
                            : "unknown command '" + printable(argv[1], 80) + "'")
              << "; the commands are " << names << '\n'
              << "Run 'chomp --help' for usage.\n";
    return 2;
  }
  if (const char* word = bracketed_position(argc, argv)) {
    if (other_rank) return 0;
    std::cerr << "chomp: '" << printable(word, 200)
              << "': write it without the brackets (a position as 4,4,2,1 or 3x4, boards as \"3x4 + 2x5\")\n";
    return 2;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return other_rank ? 0 : finish_output(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return other_rank ? 0 : finish_output(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return other_rank ? 0 : finish_output(app.exit(e));
  } catch (const CLI::ParseError& e) {
    if (other_rank) return 0;
    // One line for the problem (the value echoed safely), one for help.
    // CLI11 says of an option given twice "At Most 1 required but received 2".
    std::string what = e.what();
    if (const auto at = what.find(": At Most 1 required but received "); at != std::string::npos)
      what = what.substr(0, at) + " was given " + what.substr(at + 34) + " times; give it once";
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) what = extras_message(what, app);
    std::cerr << "chomp: " << printable(what, 400) << '\n'
              << "Run 'chomp --help' or 'chomp <command> --help' for usage.\n";
    return 2;
  }

  chomp::show_hdf5_errors(debug);
  try {
    for (auto& [sub, action] : actions)
      if (sub->parsed()) return finish_output(action());
  } catch (const UsageError& e) {
    std::cerr << "chomp: " << e.what() << '\n';
    return 2;
  } catch (const chomp::InvalidPosition& e) {
    std::cerr << "chomp: invalid position: " << printable(e.what(), 400) << '\n';
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "chomp: out of memory; try a smaller run (--max-tiles, or the board's size) or free memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "chomp: error: " << e.what() << '\n';
    return 1;
  } catch (...) {
    std::cerr << "chomp: error: an unexpected failure\n";
    return 1;
  }
  return 2;
}
