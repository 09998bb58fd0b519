/// @file usage_error.hpp
/// @brief The error of bad input that CLI11 could not see.
#pragma once

#include <stdexcept>

namespace chomp::app {

/// Thrown by an action for bad input that CLI11 could not see (a position
/// string, a size that cannot fit): main prints it and exits with code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace chomp::app
