/// @file h5_error.hpp
/// @brief The one error every HDF5 file of this library reports, and
/// whether HDF5 prints its own error stack.
#pragma once

#include <stdexcept>

namespace chomp {

/// Any failure to create, write or read a result file; what() says which file
/// and what went wrong.
class H5Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// HDF5 prints its own error stack on stderr only when asked (`--debug`):
/// in the normal path the program reports each failure in one line.
void show_hdf5_errors(bool show);

}  // namespace chomp
