/// @file h5_util.cpp
/// @brief HDF5 error reporting shared by every result file.

#include "h5_util.hpp"

namespace chomp::h5 {

namespace {

/// HDF5 prints its own error stack by default; we report errors ourselves.
/// Its exit-time cleanup is turned off: after a failed write (a full disk)
/// the file cannot be closed, and HDF5 1.10 crashes when its atexit handler
/// meets such a file. Every file we open is closed by its owner before exit.
struct SilenceHdf5 {
  SilenceHdf5() {
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
};
const SilenceHdf5 silence_hdf5;

herr_t keep_innermost(unsigned n, const H5E_error2_t* err, void* data) {
  if (n == 0 && err->desc) *static_cast<std::string*>(data) = err->desc;
  return 0;
}

}  // namespace

std::string hdf5_reason() {
  std::string desc;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &desc);
  const std::string key = "error message = '";
  const auto p = desc.find(key);
  if (p != std::string::npos) {
    const auto q = desc.find('\'', p + key.size());
    return desc.substr(p + key.size(), q == std::string::npos ? std::string::npos : q - p - key.size());
  }
  return desc;
}

void fail(const std::string& what) {
  const std::string reason = hdf5_reason();
  throw H5Error(reason.empty() ? what : what + ": " + reason);
}

}  // namespace chomp::h5
