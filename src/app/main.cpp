/// @file main.cpp
/// @brief The `chomp` program: builds the command line from the registered
/// subcommands and maps failures to exit codes (2 usage, 1 runtime).

#include <algorithm>
#include <exception>
#include <iostream>

#include "build_info.hpp"
#include "chomp/position.hpp"
#include "commands.hpp"

namespace chomp::app {

std::vector<CommandSpec>& command_registry() {
  static std::vector<CommandSpec> registry;
  return registry;
}

namespace {
std::string g_command_line;
}

const std::string& command_line() { return g_command_line; }

}  // namespace chomp::app

int main(int argc, char** argv) {
  using namespace chomp::app;
  for (int i = 0; i < argc; ++i) {
    if (i) g_command_line.push_back(' ');
    g_command_line += argv[i];
  }

  CLI::App app{"chomp: an exact, parallel sieve for the game of Chomp.\n"
               "Classifies every position, level by level in tile count, as winning or losing."};
  app.set_version_flag("--version", std::string("chomp ") + chomp::build::kVersion + " (" +
                                        chomp::build::kGitRevision + ")");
  app.require_subcommand(1);

  auto& registry = command_registry();
  std::sort(registry.begin(), registry.end(),
            [](const CommandSpec& a, const CommandSpec& b) { return a.order < b.order; });
  std::vector<std::pair<CLI::App*, Action>> actions;
  for (const CommandSpec& spec : registry) {
    CLI::App* sub = app.add_subcommand(spec.name, spec.description);
    actions.emplace_back(sub, spec.setup(*sub));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    std::cerr << "Run 'chomp --help' or 'chomp <command> --help' for usage.\n";
    return 2;
  }

  try {
    for (auto& [sub, action] : actions)
      if (sub->parsed()) return action();
  } catch (const UsageError& e) {
    std::cerr << "chomp: " << e.what() << '\n';
    return 2;
  } catch (const chomp::InvalidPosition& e) {
    std::cerr << "chomp: invalid position: " << e.what() << '\n';
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "chomp: out of memory; try a smaller --max-tiles or free memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "chomp: error: " << e.what() << '\n';
    return 1;
  }
  return 2;
}
