/// @file grundy_file.cpp
/// @brief Writing and reading `chomp grundy`'s HDF5 file (grundy_file.hpp).

#include "chomp/grundy_file.hpp"

#include <hdf5.h>

#include <cstdio>

#include "h5_provenance.hpp"
#include "h5_util.hpp"

namespace chomp {

namespace {
constexpr const char* kFormat = "chomp-grundy";
}

void write_grundy_file(const std::string& path, int max_tiles, const std::vector<GrundyLevel>& levels,
                       const GrundyProvenance& prov) {
  using h5::check;
  using h5::Handle;
  using h5::write_attr;
  using h5::write_column;
  const std::string tmp = path + ".tmp";
  {
    Handle file = check(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
                        "cannot create " + tmp + " (check that the folder exists and is writable)");
    const hid_t f = file.get();
    h5::write_build_attributes(f);
    write_attr(f, "format", kFormat);
    write_attr(f, "format_version", std::int64_t{kGrundyFormatVersion});
    write_attr(f, "convention", kGrundyConvention);
    write_attr(f, "command_line", prov.command_line);
    write_attr(f, "max_tiles", std::int64_t{max_tiles});
    write_attr(f, "threads", std::int64_t{prov.threads});
    write_attr(f, "memory_bytes", static_cast<std::int64_t>(grundy_table_bytes(max_tiles)));
    write_attr(f, "start_utc", prov.start_utc);
    write_attr(f, "checked_against", prov.checked_against);

    std::vector<std::uint32_t> tiles, largest;
    std::vector<std::uint64_t> positions, zeros;
    std::vector<double> seconds;
    const std::size_t width = static_cast<std::size_t>(max_tiles);
    std::vector<std::uint64_t> counts(levels.size() * width, 0);
    for (std::size_t l = 0; l < levels.size(); ++l) {
      const GrundyLevel& g = levels[l];
      tiles.push_back(static_cast<std::uint32_t>(g.tiles));
      positions.push_back(g.positions);
      largest.push_back(static_cast<std::uint32_t>(g.largest));
      zeros.push_back(g.zeros());
      seconds.push_back(g.seconds);
      for (std::size_t v = 0; v < g.counts.size() && v < width; ++v) counts[l * width + v] = g.counts[v];
    }
    Handle group = check(H5Gcreate2(f, "levels", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                         "cannot create group /levels in " + tmp);
    const hid_t g = group.get();
    write_attr(g, "description", "one row per level n = 1 .. max_tiles");
    write_column(g, "tiles", H5T_STD_U32LE, H5T_NATIVE_UINT32, tiles, "tile count n of the level");
    write_column(g, "positions", H5T_STD_U64LE, H5T_NATIVE_UINT64, positions,
                 "p(n): number of positions (partitions of n) with n tiles");
    write_column(g, "largest_value", H5T_STD_U32LE, H5T_NATIVE_UINT32, largest,
                 "the largest Grundy value of the level (n - 1, the single row)");
    write_column(g, "value_zero", H5T_STD_U64LE, H5T_NATIVE_UINT64, zeros,
                 "positions of value 0: the losing positions, L(n)");
    write_column(g, "seconds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, seconds, "wall-clock seconds of the level");
    {
      const std::string what = "cannot write dataset grundy_counts in " + tmp;
      const hsize_t dims[2] = {levels.size(), width};
      Handle space = check(H5Screate_simple(2, dims, nullptr), H5Sclose, what);
      Handle dcpl = check(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
      if (dims[0] > 0) {
        check(H5Pset_chunk(dcpl.get(), 2, dims), what);
        check(H5Pset_fletcher32(dcpl.get()), what);
        check(H5Pset_shuffle(dcpl.get()), what);
        check(H5Pset_deflate(dcpl.get(), 6), what);
      }
      Handle ds = check(H5Dcreate2(g, "grundy_counts", H5T_STD_U64LE, space.get(), H5P_DEFAULT, dcpl.get(),
                                   H5P_DEFAULT),
                        H5Dclose, what);
      write_attr(ds.get(), "description",
                 "row n - 1, column g: the number of positions with n tiles whose Grundy value is g "
                 "(g = 0 .. max_tiles - 1); each row sums to p(n)");
      write_attr(ds.get(), "convention", kGrundyConvention);
      if (dims[0] > 0) check(H5Dwrite(ds.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, counts.data()), what);
    }
    write_attr(f, "end_utc", utc_now());
    write_attr(f, "complete", std::int64_t{1});
    write_attr(f, "status", "complete");
    check(H5Fflush(f, H5F_SCOPE_GLOBAL), "cannot flush " + tmp + " (is the disk full?)");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw H5Error("cannot rename " + tmp + " to " + path);
  }
}

GrundyFile read_grundy_file(const std::string& path) {
  using h5::check;
  using h5::Handle;
  Handle file = h5::open_for_reading(path);
  const h5::Attributes attrs = h5::read_attributes(file.get(), path);
  const auto fmt = attrs.text.find("format");
  if (fmt == attrs.text.end() || fmt->second != kFormat)
    throw H5Error(path + " is not a chomp grundy file (no format attribute \"chomp-grundy\")");
  GrundyFile out;
  out.text_attributes = attrs.text;
  out.number_attributes = attrs.numbers;
  Handle group = h5::open_group(file.get(), "levels", "cannot open /levels in " + path);
  const hid_t g = group.get();
  const hsize_t most = kMaxTiles;
  const std::string col = "cannot read /levels of " + path;
  out.tiles = h5::read_column<std::uint32_t>(g, "tiles", H5T_NATIVE_UINT32, most, col);
  out.positions = h5::read_column<std::uint64_t>(g, "positions", H5T_NATIVE_UINT64, most, col);
  out.largest = h5::read_column<std::uint32_t>(g, "largest_value", H5T_NATIVE_UINT32, most, col);
  out.zeros = h5::read_column<std::uint64_t>(g, "value_zero", H5T_NATIVE_UINT64, most, col);
  out.seconds = h5::read_column<double>(g, "seconds", H5T_NATIVE_DOUBLE, most, col);
  const std::string what = "cannot read /levels/grundy_counts in " + path;
  Handle ds = h5::open_dataset(g, "grundy_counts", what);
  Handle space = check(H5Dget_space(ds.get()), H5Sclose, what);
  if (H5Sget_simple_extent_ndims(space.get()) != 2) throw H5Error(what + ": not a 2-D dataset");
  hsize_t dims[2] = {0, 0};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  if (dims[0] > most || dims[1] > most + 1)
    throw H5Error(what + ": it claims " + std::to_string(dims[0]) + " x " + std::to_string(dims[1]) +
                  " counts, more than levels of at most " + std::to_string(kMaxTiles) + " tiles have");
  std::vector<std::uint64_t> flat(static_cast<std::size_t>(dims[0] * dims[1]));
  if (!flat.empty()) check(H5Dread(ds.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, flat.data()), what);
  for (hsize_t l = 0; l < dims[0]; ++l)
    out.counts.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(l * dims[1]),
                            flat.begin() + static_cast<std::ptrdiff_t>((l + 1) * dims[1]));
  if (out.counts.size() != out.tiles.size()) throw H5Error(what + ": its rows do not match /levels/tiles");
  return out;
}

}  // namespace chomp
