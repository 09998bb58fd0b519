/// @file losing_store.hpp
/// @brief The losing positions of finished levels, on disk: blocks of
/// gap-coded ranks, read back in order while the levels above are marked.
/// (A 3D run keeps its levels here too, as MacMahonRanking's ranks, read
/// back only when it resumes.)
///
/// The sieve reads every losing position below a window once per window,
/// in order, and nothing else: so the store is a file, streamed, never held
/// whole in memory (a run to 170 tiles finds 32,776,558,891 losing
/// positions, data/levels-170.csv: 113 GiB at the 3.7 bytes a rank the
/// in-memory store of earlier versions came to with its index, 29.4 GiB
/// in the store's file). What memory holds is each level's index: one
/// entry per block of up to config::kStoreBlockRanks ranks (40 bytes per
/// 4,096 ranks: 0.01 byte a rank).
///
/// File layout (format 2; doc/FILE_FORMAT.md; little-endian):
///
///     header   64 bytes: magic "CHOMPSTO", version, the run's id (32
///              characters, also in the result file), CRC-32
///     level 1  blocks, then the level's trailer
///     level 2  ...
///
/// A block is the gaps of its ranks after the first, coded by the level's
/// GapCode (src/gap_code.hpp), padded to 8 bytes. A level's blocks come in
/// runs of increasing ranks (one run per slice of the level; slices are
/// finished from the highest ranks down), each run's last block possibly
/// short. The trailer follows them: magic "CHOMPLVL", the level, its count
/// of losing positions, their digest, the code of its gaps and the code
/// fitted to them for the next level, and the index of its blocks in rank
/// order (first rank, last rank, offset, ranks, bytes, CRC-32 of the bytes),
/// then a CRC-32 of the whole trailer. The result file records where each
/// level's trailer starts (/levels/store_trailer), its count and digest: a
/// level exists once the result file says so, and whatever follows the
/// last such trailer (a level cut off by a kill) is cut off when the run
/// resumes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace chomp {

/// A store file that is missing, damaged, of another run or unreadable;
/// what() names the file and what is wrong.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The store is not there (ENOENT): a program that knows the run can add
/// the command that starts it over.
class StoreMissing : public StoreError {
 public:
  using StoreError::StoreError;
};

/// A write to the store failed for want of space (ENOSPC, EDQUOT, EFBIG):
/// the level being written is lost, the finished ones are kept.
class StoreFull : public StoreError {
 public:
  using StoreError::StoreError;
};

/// One block: up to config::kStoreBlockRanks increasing ranks.
struct StoreBlock {
  std::uint64_t first_rank = 0;
  std::uint64_t last_rank = 0;
  std::uint64_t offset = 0;  ///< where its bytes start in the file
  std::uint32_t count = 0;   ///< ranks
  std::uint32_t bytes = 0;   ///< coded bytes, a multiple of 8
  std::uint32_t crc = 0;     ///< CRC-32 of the bytes
};

/// A finished level as the result file records it.
struct StoredLevel {
  std::uint64_t trailer = 0;  ///< where its trailer starts in the store file
  std::uint64_t count = 0;    ///< L(n)
  std::uint64_t digest = 0;   ///< the sum (mod 2^64) of rank_digest over its ranks
};

/// The 64-bit mix of one rank. A level's digest is the sum (mod 2^64) of
/// it over the level's ranks: a sum, so that slices and threads add theirs
/// in any order; a changed, missing or extra rank changes it but with odds
/// of 2^-64.
std::uint64_t rank_digest(std::uint64_t rank);

/// The level being written, as far as its finished runs (slices) go: what
/// a checkpoint of a sliced level keeps (src/checkpoint.cpp).
struct PendingLevel {
  int n = 0;
  std::vector<StoreBlock> blocks;
  std::uint64_t count = 0, digest = 0;
  std::vector<std::uint64_t> histogram;  ///< of its gaps, for the level above's code
  std::uint64_t from = 0, end = 0;       ///< its bytes in the file
};

/// A fresh id for a run (32 hexadecimal digits from std::random_device).
std::string new_run_id();

/// What a thread keeps of the store's block it reads a part at a time
/// (LosingStore::read_part): the block's bytes, checked once, and how far
/// they are decoded.
struct BlockCursor {
  std::uint64_t store = 0;  ///< the store's serial (0: no block held)
  int n = 0;
  std::size_t b = 0;
  std::vector<std::uint8_t> bytes;
  std::size_t index = 0;  ///< ranks decoded so far
  std::uint64_t pos[4] = {0, 0, 0, 0}, rank = 0;
};

class LosingStore {
 public:
  /// Creates the file (replacing one there) for a new run. Throws
  /// std::invalid_argument for a run id that is not new_run_id()'s 32
  /// characters (a caller's mistake, not a StoreError of the file).
  static std::unique_ptr<LosingStore> create(const std::string& path, const std::string& run_id);
  /// Whether the file at `path` holds a store header and nothing after it
  /// (or is empty): a store just created, whose run ended (a kill) before
  /// it finished a level. False for a missing file, for one with any
  /// level's bytes, and for a small file that does not begin as a store.
  static bool holds_no_level(const std::string& path);
  /// A store in an unnamed temporary file (removed when closed), for a
  /// sieve that writes no result file (tests, `chomp analyze`-like uses).
  static std::unique_ptr<LosingStore> temporary();
  /// Opens the store of a run whose result file records `levels` (levels
  /// 1..levels.size(), in order): checks the header's id against run_id
  /// and each level's trailer against its record, and loads their indexes.
  /// With `append`, the store is opened for writing and everything after
  /// the last level's trailer is cut off. Throws StoreError.
  static std::unique_ptr<LosingStore> open(const std::string& path, const std::string& run_id,
                                           std::span<const StoredLevel> levels, bool append);
  ~LosingStore();
  LosingStore(const LosingStore&) = delete;
  LosingStore& operator=(const LosingStore&) = delete;

  const std::string& path() const;
  const std::string& run_id() const;
  /// Levels 1..levels() are finished.
  int levels() const;
  std::uint64_t count(int n) const;
  std::uint64_t digest(int n) const;
  StoredLevel record(int n) const;
  /// The blocks of level n in rank order; for the next level (levels() +
  /// 1), the blocks written so far, in the order they were written.
  std::span<const StoreBlock> blocks(int n) const;
  /// The first block of finished level n that holds a rank >= rank.
  std::size_t first_block_from(int n, std::uint64_t rank) const;
  /// Bytes of the file (its end: where the next block goes).
  std::uint64_t file_bytes() const;
  /// Bytes of memory the indexes hold.
  std::uint64_t memory_bytes() const;

  /// Reads block b of level n (finished, or being written) into out (its
  /// ranks), checking its CRC; scratch is the caller's buffer for the
  /// bytes. Any thread may read at any time. Throws StoreError.
  void read_block(int n, std::size_t b, std::vector<std::uint64_t>& out, std::vector<std::uint8_t>& scratch) const;
  /// Ranks [from, from + count) of block b of finished level n into out:
  /// the block is read and checked once while `cursor` holds it, and its
  /// parts taken in order are decoded once (a decoded block of 4,096 ranks
  /// is 32 KiB, as large as a core's L1: parts keep the marking's data in
  /// cache). Throws StoreError.
  void read_part(int n, std::size_t b, std::size_t from, std::size_t count, BlockCursor& cursor,
                 std::vector<std::uint64_t>& out) const;
  /// Asks the kernel to read blocks [b0, b1) of level n ahead.
  void read_ahead(int n, std::size_t b0, std::size_t b1) const;
  /// True when rank is a losing rank of finished level n.
  bool contains(int n, std::uint64_t rank) const;
  /// Every losing rank of level n, in increasing order (small levels, tests).
  std::vector<std::uint64_t> all(int n) const;
  /// Decodes every block of finished level n (in parallel) and checks the
  /// count and digest of its ranks, and that they increase below `limit`.
  /// Throws StoreError.
  void check_level(int n, std::uint64_t limit) const;

  /// Starts writing level n = levels() + 1 (dropping a level begun before).
  void begin_level(int n);
  /// Appends ranks of the level being written: increasing, and after every
  /// rank appended since the last end_run(). Large batches are coded in
  /// parallel (oneTBB). Throws StoreFull or StoreError when a write fails.
  void append(std::span<const std::uint64_t> ranks);
  /// Ends a run of increasing ranks (a slice): its last block is written
  /// even if short, and the next run may hold lower ranks.
  void end_run();
  /// Ends the level: checks that its runs do not overlap, writes its
  /// trailer, makes the file durable (fdatasync) and returns the record the
  /// result file must keep. Throws StoreFull or StoreError.
  StoredLevel finish_level();
  /// Drops the level being written and gives its bytes back to the file
  /// system (after a failed write: a full disk gets them back).
  void abandon_level();
  /// Adds level levels() + 1 that another process wrote (a distributed
  /// run's followers read the leader's store): reads its trailer.
  void adopt_level(const StoredLevel& level);
  /// The blocks that another process wrote so far of level levels() + 1.
  void adopt_pending(int n, std::span<const StoreBlock> blocks);
  /// The level being written, between two runs (no ranks carried).
  PendingLevel pending_level() const;
  /// Reads `bytes` bytes of the file at `at` (a pending level's, for its
  /// checkpoint). Throws StoreError.
  void read_raw(std::uint64_t at, std::size_t bytes, std::uint8_t* out) const;
  /// Right after begin_level(p.n): the level as a checkpoint kept it. Its
  /// bytes (from p.from, which must be where the level starts now) are
  /// written back from `fill(at, bytes, out)`, called a piece at a time,
  /// and its blocks, count, digest and histogram restored. Throws
  /// StoreError (or StoreFull) when they do not fit or cannot be written.
  void adopt_pending_level(const PendingLevel& p,
                           const std::function<void(std::uint64_t at, std::size_t bytes, std::uint8_t* out)>& fill);

 private:
  struct Impl;
  explicit LosingStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The store file of a result file: its name with `.h5` replaced by
/// `.store` (or `.store` appended).
std::string store_path_for(const std::string& result_path);

}  // namespace chomp
