/// @file commands.hpp
/// @brief How subcommands of the `chomp` program register themselves.
///
/// Each subcommand lives in its own file and registers itself with a static
/// RegisterCommand object; main.cpp builds the CLI11 app from the registry,
/// so adding a command never touches another command's file.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "usage_error.hpp"

namespace chomp::app {

/// What a selected subcommand runs; returns the process exit code.
using Action = std::function<int()>;

/// Configures the subcommand's options on `sub` and returns its action.
using Setup = std::function<Action(CLI::App& sub)>;

struct CommandSpec {
  int order;  ///< position in --help
  std::string name;
  std::string description;
  Setup setup;
};

std::vector<CommandSpec>& command_registry();

struct RegisterCommand {
  RegisterCommand(int order, std::string name, std::string description, Setup setup) {
    command_registry().push_back({order, std::move(name), std::move(description), std::move(setup)});
  }
};

/// The full command line, for provenance: the program's words joined by
/// spaces, each quoted for a POSIX shell where it needs it.
const std::string& command_line();

}  // namespace chomp::app
