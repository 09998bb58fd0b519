/// @file analyze3d.cpp
/// @brief One 3D position solved, by the positions reachable from it that
/// decide it (a position's search stops at its first winning move).

#include "chomp/analyze3d.hpp"

#include <stdexcept>
#include <string>
#include <unordered_map>

#include "plane_key.hpp"

namespace chomp {

namespace {

using detail::Key3;

struct KeyHash {
  std::size_t operator()(const Key3& k) const { return static_cast<std::size_t>(detail::key_hash(k)); }
};

Key3 key_of(const Heights& h) {
  detail::KeyWriter w;
  for (const auto& row : h) {
    for (int v : row) w.height(v);
    w.end_row();
  }
  return w.key();
}

class Solver {
 public:
  Solver(std::uint64_t limit, const Analyze3dProgressFn& progress) : limit_(limit), progress_(progress) {}
  bool losing(const Heights& h) {
    const Key3 k = key_of(h);
    if (const auto it = memo_.find(k); it != memo_.end()) return it->second;
    bool lose = true;
    for (const Cube& c : moves_3d(h))
      if (losing(apply_move(h, c))) {
        lose = false;
        break;
      }
    if (memo_.size() >= limit_)
      throw std::length_error("the position needs more than " + std::to_string(limit_) +
                              " positions solved; analyze a smaller one, or classify its level with "
                              "chomp sieve --dimensions 3");
    memo_.emplace(k, lose);
    if (progress_ && (memo_.size() & kProgressMask) == 0) progress_(memo_.size(), limit_);
    return lose;
  }
  std::uint64_t solved() const { return memo_.size(); }

 private:
  static constexpr std::size_t kProgressMask = (std::size_t{1} << 16) - 1;  // a call every 65,536 positions
  std::uint64_t limit_;
  const Analyze3dProgressFn& progress_;
  std::unordered_map<Key3, bool, KeyHash> memo_;  // whole keys: exact
};

}  // namespace

Analysis3d analyze_3d(const Heights& h, std::uint64_t max_positions, const Analyze3dProgressFn& progress) {
  validate_heights(h);
  Solver solver(max_positions, progress);
  Analysis3d a;
  for (const Cube& c : moves_3d(h))
    if (solver.losing(apply_move(h, c))) a.winning_moves.push_back(c);
  a.losing = a.winning_moves.empty();
  a.positions_solved = solver.solved() + 1;
  return a;
}

}  // namespace chomp
