/// @file h5_series.hpp
/// @brief The chunk codec of the result file: extendible 1-D series, one
/// chunk per append where a kill must not tear a chunk, Fletcher-32 on every
/// chunk, shuffle and deflate where the values squeeze; the HDF5 1.10 file
/// format that SWMR writing needs.
#pragma once

#include <hdf5.h>

#include <string>

#include "h5_util.hpp"

namespace chomp::h5 {

// Chunks are written once and never rewritten. A chunk rewritten in place
// can be torn by a kill (Linux may stop a write that spans pages at a page
// boundary), and a torn chunk fails its checksum, taking with it every
// finished level it held. So each /levels row is its own chunk. Stored
// losing positions are levels of at most 63 tiles, a few thousand
// positions each, written once.
inline constexpr hsize_t kRowChunk = 1;
inline constexpr hsize_t kPositionChunk = 4096;
// Deflate level 1 for the stored losing positions (lattice paths): their
// high bytes are long runs that even the fastest level squeezes.
inline constexpr unsigned kDeflateLevel = 1;

/// File access in the HDF5 1.10 format, which SWMR writing requires.
Handle latest_format_access();

/// An empty, extendible, chunked, checksummed 1-D dataset (shuffled and
/// deflated when `compress`), with a `description` attribute.
Handle make_series(hid_t loc, const std::string& name, hid_t type, hsize_t chunk, bool compress,
                   const std::string& description, const std::string& what);

/// Writes count values at index `at`, growing the dataset to at + count.
void append_values(hid_t ds, hsize_t at, hsize_t count, hid_t mem_type, const void* data, const std::string& what);

/// Closes a file and reports a failed close (the last flush happens there).
void close_file(Handle& file, const std::string& what);

}  // namespace chomp::h5
