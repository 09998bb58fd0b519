/// @file h5_series.cpp
/// @brief Extendible chunked 1-D series: made empty, appended, and the
/// file closed with its last flush checked.

#include "h5_series.hpp"

namespace chomp::h5 {

Handle latest_format_access() {
  Handle fapl = check(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "cannot make a file access list");
  check(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST),
        "cannot select the HDF5 1.10 file format");
  return fapl;
}

Handle make_series(hid_t loc, const std::string& name, hid_t type, hsize_t chunk, bool compress,
                   const std::string& description, const std::string& what) {
  const hsize_t zero = 0, unlimited = H5S_UNLIMITED;
  Handle space = check(H5Screate_simple(1, &zero, &unlimited), H5Sclose, what);
  Handle dcpl = check(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
  check(H5Pset_chunk(dcpl.get(), 1, &chunk), what);
  if (compress) {
    check(H5Pset_shuffle(dcpl.get()), what);
    check(H5Pset_deflate(dcpl.get(), kDeflateLevel), what);
  }
  check(H5Pset_fletcher32(dcpl.get()), what);
  Handle ds = check(H5Dcreate2(loc, name.c_str(), type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                    H5Dclose, what);
  write_attr(ds.get(), "description", description);
  return ds;
}

void append_values(hid_t ds, hsize_t at, hsize_t count, hid_t mem_type, const void* data, const std::string& what) {
  if (count == 0) return;
  const hsize_t size = at + count;
  check(H5Dset_extent(ds, &size), what);
  Handle file_space = check(H5Dget_space(ds), H5Sclose, what);
  check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &at, nullptr, &count, nullptr), what);
  Handle mem_space = check(H5Screate_simple(1, &count, nullptr), H5Sclose, what);
  check(H5Dwrite(ds, mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, data), what);
}

void close_file(Handle& file, const std::string& what) {
  const hid_t id = file.get();
  file.release();
  if (id >= 0) check(H5Fclose(id), what);
}

}  // namespace chomp::h5
