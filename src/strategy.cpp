/// @file strategy.cpp
/// @brief The four computer players, the move helpers they share, and the game.

#include "chomp/strategy.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

namespace chomp {

Level parse_level(std::string_view name) {
  if (name == "easy") return Level::easy;
  if (name == "medium") return Level::medium;
  if (name == "hard") return Level::hard;
  if (name == "perfect") return Level::perfect;
  throw std::invalid_argument("unknown level '" + std::string(name) + "'; choose easy, medium, hard or perfect");
}

std::string_view level_name(Level level) {
  switch (level) {
    case Level::easy: return "easy";
    case Level::medium: return "medium";
    case Level::hard: return "hard";
    case Level::perfect: return "perfect";
  }
  return "?";
}

std::vector<Move> legal_moves(std::span<const int> rows) {
  std::vector<Move> out;
  for (int i = 1; i <= static_cast<int>(rows.size()); ++i)
    for (int j = 1; j <= rows[static_cast<std::size_t>(i - 1)]; ++j)
      if (i > 1 || j > 1) out.push_back({i, j});
  if (out.empty() && !rows.empty()) out.push_back({1, 1});
  return out;
}

std::vector<Move> delaying_moves(std::span<const int> rows) {
  std::vector<Move> out;
  const int r = static_cast<int>(rows.size());
  for (int i = 1; i <= r; ++i) {
    const int len = rows[static_cast<std::size_t>(i - 1)];
    // A corner: the last tile of a row longer than the row below it.
    if ((i == r || rows[static_cast<std::size_t>(i)] < len) && (i > 1 || len > 1)) out.push_back({i, len});
  }
  if (out.empty() && !rows.empty()) out.push_back({1, 1});
  return out;
}

namespace {

/// Two rows (a+1, a), a >= 0 (a = 0 is the single tile).
bool is_two_rows(std::span<const int> rows) {
  return (rows.size() == 1 && rows[0] == 1) || (rows.size() == 2 && rows[0] == rows[1] + 1);
}

}  // namespace

bool is_simple_losing(std::span<const int> rows) {
  if (rows.empty()) return false;
  if (is_two_rows(rows) || is_two_rows(transpose(rows))) return true;
  // The equal-armed L: a first row of a tiles over a column of a tiles.
  const int a = rows[0];
  if (static_cast<int>(rows.size()) != a) return false;
  return std::all_of(rows.begin() + 1, rows.end(), [](int len) { return len == 1; });
}

std::vector<Move> stubborn_moves(const BoundedSolver& solver, std::span<const int> rows) {
  // The position itself is checked first (InvalidPosition naming it), not
  // the first position a move leaves.
  static_cast<void>(solver.is_losing(rows));
  std::vector<Move> best;
  std::size_t fewest = SIZE_MAX;
  for (const Move& m : delaying_moves(rows)) {
    const Rows after = apply_move(rows, m);
    const std::size_t replies = after.empty() ? 0 : solver.winning_moves(after).size();
    if (replies < fewest) {
      best.clear();
      fewest = replies;
    }
    if (replies == fewest) best.push_back(m);
  }
  return best;
}

Rows hard_knowledge_shape(int rows, int cols) {
  for (int k = kHardKnowledgeMaxTiles;; --k) {
    Rows shape;
    for (int i = 1; i <= rows && k / i > 0; ++i) shape.push_back(std::min(cols, k / i));
    if (k == 1 || count_subpositions(shape) <= kHardKnowledgePositions) return shape;
  }
}

namespace {

/// What every level shares: a seeded generator and the move helpers.
class Player : public Strategy {
 public:
  explicit Player(std::uint64_t seed) : rng_(seed) {}

 protected:
  /// The empty board (the poisoned tile taken) has no move to choose.
  static void require_a_move(std::span<const int> rows) {
    if (rows.empty()) throw InvalidPosition("the board is empty (the poisoned tile was taken): no move to choose");
  }

  Move pick(const std::vector<Move>& moves) {
    std::uniform_int_distribution<std::size_t> d(0, moves.size() - 1);
    return moves[d(rng_)];
  }

  /// The moves that leave a simple losing position.
  static std::vector<Move> simple_wins(std::span<const int> rows) {
    std::vector<Move> out;
    for (const Move& m : legal_moves(rows)) {
      const Rows after = apply_move(rows, m);
      if (is_simple_losing(after)) out.push_back(m);
    }
    return out;
  }

  /// True when some move from `rows` leaves a simple losing position.
  static bool has_simple_win(std::span<const int> rows) {
    for (const Move& m : legal_moves(rows))
      if (is_simple_losing(apply_move(rows, m))) return true;
    return false;
  }

  /// Best play where the solver knows the position: a winning move, or the
  /// most stubborn delaying one.
  Move solved_move(const BoundedSolver& solver, std::span<const int> rows) {
    const std::vector<Move> wins = solver.winning_moves(rows);
    return pick(wins.empty() ? stubborn_moves(solver, rows) : wins);
  }

  std::mt19937_64 rng_;
};

class Easy : public Player {
 public:
  using Player::Player;
  Level level() const override { return Level::easy; }
  Move choose(std::span<const int> rows) override {
    require_a_move(rows);
    const std::vector<Move> wins = simple_wins(rows);
    return pick(wins.empty() ? legal_moves(rows) : wins);
  }
};

class Medium : public Player {
 public:
  using Player::Player;
  Level level() const override { return Level::medium; }
  Move choose(std::span<const int> rows) override {
    require_a_move(rows);
    const std::vector<Move> wins = simple_wins(rows);
    if (!wins.empty()) return pick(wins);
    std::vector<Move> safe;
    const std::vector<Move> all = legal_moves(rows);
    for (const Move& m : all)
      if (!has_simple_win(apply_move(rows, m))) safe.push_back(m);
    return pick(safe.empty() ? all : safe);
  }
};

class Hard : public Player {
 public:
  Hard(int rows, int cols, std::uint64_t seed) : Player(seed), known_(hard_knowledge_shape(rows, cols)) {}
  Level level() const override { return Level::hard; }

  Move choose(std::span<const int> rows) override {
    require_a_move(rows);
    if (known_.contains(rows)) return solved_move(known_, rows);
    std::vector<Move> moves = legal_moves(rows);
    std::shuffle(moves.begin(), moves.end(), rng_);
    std::vector<Rows> after;
    after.reserve(moves.size());
    for (const Move& m : moves) after.push_back(apply_move(rows, m));
    // A move that leaves a known losing position.
    for (std::size_t i = 0; i < moves.size(); ++i)
      if (known_losing(after[i])) return moves[i];
    // One that leaves a position whose every reply is known to be winning
    // for us: three moves ahead. Both searches share one node budget; moves
    // left unexamined when it runs out count as safe.
    int budget = kHardSearchNodes;
    for (std::size_t i = 0; i < moves.size() && budget > 0; ++i)
      if (every_reply_known_winning(after[i], budget)) return moves[i];
    // Otherwise keep the opponent from a known win, if possible.
    std::vector<Move> safe;
    for (std::size_t i = 0; i < moves.size(); ++i)
      if (budget <= 0 || !hands_known_win(after[i], budget)) safe.push_back(moves[i]);
    return pick(safe.empty() ? delaying_moves(rows) : safe);
  }

 private:
  bool known_losing(const Rows& p) const { return !p.empty() && known_.contains(p) && known_.is_losing(p); }

  bool every_reply_known_winning(const Rows& p, int& budget) const {
    if (p.empty()) return false;
    for (const Move& r : legal_moves(p)) {
      if (--budget < 0) return false;
      if (r == Move{1, 1}) continue;  // the opponent takes the poison: fine by us
      const Rows q = apply_move(p, r);
      if (!known_.contains(q) || known_.is_losing(q)) return false;
    }
    return true;
  }

  bool hands_known_win(const Rows& p, int& budget) const {
    if (p.empty()) return true;  // taking the poison
    if (known_.contains(p)) return !known_.is_losing(p);
    for (const Move& r : legal_moves(p)) {
      if (--budget < 0) return false;
      if (known_losing(apply_move(p, r))) return true;
    }
    return false;
  }

  BoundedSolver known_;
};

class Perfect : public Player {
 public:
  Perfect(int rows, int cols, std::uint64_t seed) : Player(seed), solver_(BoundedSolver::box(rows, cols)) {}
  Level level() const override { return Level::perfect; }
  Move choose(std::span<const int> rows) override {
    require_a_move(rows);
    return solved_move(solver_, rows);
  }

 private:
  BoundedSolver solver_;
};

}  // namespace

std::unique_ptr<Strategy> make_strategy(Level level, int rows, int cols, std::uint64_t seed) {
  switch (level) {
    case Level::easy: return std::make_unique<Easy>(seed);
    case Level::medium: return std::make_unique<Medium>(seed);
    case Level::hard: return std::make_unique<Hard>(rows, cols, seed);
    case Level::perfect: {
      // The count saturates at 2^64 - 1: a board that large "holds more than 10^19".
      const std::uint64_t held = count_subpositions(box_shape(rows, cols));
      if (held > kPerfectMaxPositions)
        throw std::length_error("perfect play is offered on boards of at most " +
                                std::to_string(kPerfectMaxPositions) + " positions (e.g. 14 x 14, 8 x 27); " +
                                std::to_string(rows) + " x " + std::to_string(cols) + " holds " +
                                (held == std::numeric_limits<std::uint64_t>::max() ? std::string("more than 10^19")
                                                                                   : std::to_string(held)));
      return std::make_unique<Perfect>(rows, cols, seed);
    }
  }
  throw std::invalid_argument("unknown level");
}

Game::Game(Rows start) : positions_{std::move(start)} {
  if (!position().empty()) validate_rows(position());
}

void Game::play(Move m) {
  if (over()) throw InvalidPosition("the game is over");
  const Rows next = apply_move(position(), m);
  positions_.push_back(next);
  moves_.push_back(m);
}

bool Game::undo() {
  if (moves_.empty()) return false;
  moves_.pop_back();
  positions_.pop_back();
  return true;
}

int play_out(Strategy& first, Strategy& second, const Rows& start) {
  Game g(start);
  while (!g.over()) g.play((g.to_move() == 0 ? first : second).choose(g.position()));
  return g.winner();
}

}  // namespace chomp
