/// @file strategy.hpp
/// @brief Computer players at four levels, and a game with undo, for
/// playing Chomp on a bounded board (the `chomp play` command drives these;
/// tests drive them without a terminal).
///
/// The levels (each also takes what the one below it takes):
/// - easy: random moves, but takes a move that leaves one of the simple
///   losing families (is_simple_losing) when there is one;
/// - medium: also never leaves a position from which the opponent can reach
///   a simple losing position in one move, when it has a choice;
/// - hard: knows the status of every position that fits under the staircase
///   (K, K/2, K/3, ...), so of every position with at most K tiles, with K as
///   large as keeps the table small (hard_knowledge_shape); outside it, looks
///   three moves ahead for a move that leaves a known losing position or one
///   whose every reply leaves a known winning one, and otherwise avoids moves
///   that hand the opponent a known win;
/// - perfect: solves the whole board at the start (BoundedSolver); from a
///   winning position always leaves a losing one; from a losing one takes a
///   single tile (the largest position left), choosing the tile that leaves
///   the opponent the fewest winning moves.
/// Every level chooses at random among equally good moves (seeded, so games
/// replay exactly) and never takes the poisoned tile while another move exists.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "chomp/bounded.hpp"
#include "chomp/position.hpp"

namespace chomp {

enum class Level { easy, medium, hard, perfect };

/// "easy", "medium", "hard" or "perfect"; throws std::invalid_argument otherwise.
Level parse_level(std::string_view name);
std::string_view level_name(Level level);

/// The largest board (positions inside it, the empty board included) on
/// which perfect play is offered: the board is solved when the game starts,
/// which takes about a second at this size (14 x 14 holds 4.0e7). Every
/// board up to 8 x 15 (4.9e5) and 14 x 14 is within it.
inline constexpr std::uint64_t kPerfectMaxPositions = std::uint64_t{1} << 26;

/// Hard's table: at most this many positions, so it is solved in a few tens
/// of milliseconds when the game starts ...
inline constexpr std::uint64_t kHardKnowledgePositions = std::uint64_t{1} << 20;
/// ... and K at most this, so hard stays short of perfect on larger boards.
inline constexpr int kHardKnowledgeMaxTiles = 30;
/// Hard's look-ahead visits at most this many positions per move, which
/// keeps a move well under 0.1 s on any board `chomp play` offers.
inline constexpr int kHardSearchNodes = 200000;

/// The staircase whose sub-positions hard knows on a rows x cols board:
/// row i is min(cols, K / i), K chosen as above.
Rows hard_knowledge_shape(int rows, int cols);

/// Every move: every tile except the poisoned one, unless it is the only tile.
std::vector<Move> legal_moves(std::span<const int> rows);

/// The moves that take a single tile (a corner other than (1,1)), so leave
/// the largest positions; (1,1) alone for the single tile.
std::vector<Move> delaying_moves(std::span<const int> rows);

/// The simple losing families: the single tile, two rows (a+1, a), two
/// columns (their transposes), and the equal-armed L (a, 1, ..., 1 with a rows).
bool is_simple_losing(std::span<const int> rows);

/// For a losing position, the delaying moves that leave the opponent the
/// fewest winning moves (the best practical chance), in row order. Throws
/// InvalidPosition when `rows` is not a position inside the solver's board.
std::vector<Move> stubborn_moves(const BoundedSolver& solver, std::span<const int> rows);

/// A computer player.
class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual Level level() const = 0;
  /// The move to play from a non-empty position of the board. Throws
  /// InvalidPosition for the empty board (no move is left).
  virtual Move choose(std::span<const int> rows) = 0;
};

/// The player of a level for a rows x cols board. Throws std::length_error
/// when the level is perfect and the board exceeds kPerfectMaxPositions,
/// and InvalidPosition for a board hard or perfect cannot solve (fewer
/// than one row or column); easy and medium need no board and take any.
std::unique_ptr<Strategy> make_strategy(Level level, int rows, int cols, std::uint64_t seed);

/// A game in progress: the position after each move, for undo.
class Game {
 public:
  explicit Game(Rows start);

  const Rows& position() const { return positions_.back(); }
  const Rows& start() const { return positions_.front(); }
  /// True once the poisoned tile was taken.
  bool over() const { return position().empty(); }
  int moves_made() const { return static_cast<int>(moves_.size()); }
  /// 0 for the player who moved first, 1 for the other.
  int to_move() const { return moves_made() % 2; }
  /// The winner of a finished game: the player who did not take (1,1).
  int winner() const { return moves_made() % 2; }
  const std::vector<Move>& moves() const { return moves_; }

  /// Plays a move; throws InvalidPosition (saying why) if the tile is not on
  /// the board or the game is over.
  void play(Move m);
  /// Takes back the last move; false when there is none.
  bool undo();

 private:
  std::vector<Rows> positions_;
  std::vector<Move> moves_;
};

/// Plays a whole game from `start`, `first` moving first; returns the winner
/// (0 = first, 1 = second).
int play_out(Strategy& first, Strategy& second, const Rows& start);

}  // namespace chomp
