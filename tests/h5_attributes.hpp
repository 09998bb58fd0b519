/// @file h5_attributes.hpp
/// @brief Attributes read with HDF5's own C API, not the project's readers,
/// so that a test checks what another program would find in the file.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>

namespace chomp::testing {

/// The text attribute `name` of the object at `object` ("/" for the root),
/// fixed or variable length; "" when it cannot be read.
inline std::string h5_text_attribute(const std::string& file, const char* object, const char* name) {
  std::string text;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t o = H5Oopen(f, object, H5P_DEFAULT);
  const hid_t attr = H5Aopen(o, name, H5P_DEFAULT);
  const hid_t type = H5Aget_type(attr);
  if (H5Tis_variable_str(type) > 0) {
    char* value = nullptr;
    if (H5Aread(attr, type, &value) >= 0 && value) text = value;
    H5free_memory(value);
  } else if (type >= 0) {
    std::string buffer(H5Tget_size(type), '\0');
    if (H5Aread(attr, type, buffer.data()) >= 0) text = buffer.c_str();
  }
  H5Tclose(type);
  H5Aclose(attr);
  H5Oclose(o);
  H5Fclose(f);
  return text;
}

/// The integer attribute `name` of the object at `object`, as int64; -1
/// when it cannot be read.
inline std::int64_t h5_integer_attribute(const std::string& file, const char* object, const char* name) {
  std::int64_t value = -1;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t o = H5Oopen(f, object, H5P_DEFAULT);
  const hid_t attr = H5Aopen(o, name, H5P_DEFAULT);
  if (H5Aread(attr, H5T_NATIVE_INT64, &value) < 0) value = -1;
  H5Aclose(attr);
  H5Oclose(o);
  H5Fclose(f);
  return value;
}

}  // namespace chomp::testing
