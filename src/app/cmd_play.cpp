/// @file cmd_play.cpp
/// @brief `chomp play`: a game against the computer in the terminal.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "chomp/grundy.hpp"
#include "chomp/strategy.hpp"
#include "cli_checks.hpp"
#include "commands.hpp"

namespace chomp::app::cmd_play {
namespace {

/// The largest board offered: it still fits a terminal 125 columns wide.
constexpr int kMaxBoardSide = 40;

struct PlayArgs {
  int rows = 4;
  int cols = 7;
  std::string level = "medium";
  bool computer_first = false;
  std::optional<std::uint64_t> seed;
  std::string boards;  // a sum of boards, e.g. "3x4 + 2x5"
  std::vector<std::string> boards_words;  // --boards as given; an unquoted sum comes as several words
  const CLI::Option* boards_option = nullptr;  // whether --boards was given (even as "")
  const CLI::Option* level_option = nullptr;
};

std::string move_text(const Move& m) { return "(" + std::to_string(m.row) + "," + std::to_string(m.col) + ")"; }

/// The board with row and column numbers: X the poisoned tile, # a tile
/// still there, . a tile eaten.
std::string draw(const Rows& pos, int rows, int cols) {
  std::ostringstream out;
  out << "    ";
  for (int c = 1; c <= cols; ++c) out << (c < 10 ? "  " : " ") << c;
  out << '\n';
  for (int r = 1; r <= rows; ++r) {
    out << (r < 10 ? "   " : "  ") << r;
    const int len = r <= static_cast<int>(pos.size()) ? pos[static_cast<std::size_t>(r - 1)] : 0;
    for (int c = 1; c <= cols; ++c) out << "  " << (c > len ? '.' : (r == 1 && c == 1) ? 'X' : '#');
    out << '\n';
  }
  return out.str();
}

/// What the player typed: a move, a command, or nothing sensible.
struct Input {
  enum Kind { move, hint, undo, quit, help, bad } kind = bad;
  Move m;
};

Input parse_input(std::string line) {
  for (char& ch : line)
    if (ch == ',' || ch == '(' || ch == ')') ch = ' ';
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  if (words.size() == 1) {
    std::string w = words[0];
    for (char& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (w == "hint" || w == "h") return {Input::hint, {}};
    if (w == "undo" || w == "u") return {Input::undo, {}};
    if (w == "quit" || w == "q" || w == "exit") return {Input::quit, {}};
    if (w == "help" || w == "?") return {Input::help, {}};
  }
  const auto number = [](const std::string& w) {
    if (w.empty() || w.size() > 4) return -1;
    for (char ch : w)
      if (ch < '0' || ch > '9') return -1;
    return std::stoi(w);
  };
  if (words.size() == 2) {
    const int r = number(words[0]), c = number(words[1]);
    if (r >= 0 && c >= 0) return {Input::move, {r, c}};
  }
  return {};
}

/// The longest input line read: a move or a command takes a few bytes.
constexpr std::size_t kMaxLineBytes = 256;

/// One line of input into `line`; false at the end of input. A line longer
/// than kMaxLineBytes is refused (UsageError) without reading further: no
/// player types it, and an endless one must not be waited for.
bool read_line(std::istream& in, std::string& line) {
  line.clear();
  std::streambuf* buf = in.rdbuf();
  for (;;) {
    const int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return !line.empty();
    }
    if (c == '\n') return true;
    if (line.size() == kMaxLineBytes)
      throw UsageError("an input line is longer than " + std::to_string(kMaxLineBytes) +
                       " bytes, which no move or command is; the game is abandoned");
    line.push_back(static_cast<char>(c));
  }
}

/// Why a tile cannot be taken, or "" when it can: off the board the game
/// began with, or on it but already taken.
std::string illegal_reason(const Rows& pos, const Rows& board, const Move& m) {
  const int rows = static_cast<int>(pos.size());
  if (m.row < 1 || m.col < 1) return "rows and columns are numbered from 1";
  const int board_rows = static_cast<int>(board.size());
  if (m.row > board_rows)
    return "tile " + move_text(m) + " is off the board, whose rows are 1.." + std::to_string(board_rows);
  if (const int cols = board[static_cast<std::size_t>(m.row - 1)]; m.col > cols)
    return "tile " + move_text(m) + " is off the board, whose row " + std::to_string(m.row) + " has columns 1.." +
           std::to_string(cols);
  if (m.row > rows) return "row " + std::to_string(m.row) + " has no tiles left";
  const int len = pos[static_cast<std::size_t>(m.row - 1)];
  if (m.col > len)
    return "tile " + move_text(m) + " is gone: row " + std::to_string(m.row) + " has tiles in columns 1.." +
           std::to_string(len);
  return "";
}

/// Hints from the analyzer: the positions inside the current one are solved
/// when a hint is first asked for, and again only after an undo leaves them.
class Hinter {
 public:
  std::string hint(const Rows& pos) {
    if (!solver_ || !solver_->contains(pos)) {
      const std::uint64_t domain = count_subpositions(pos);
      if (domain > kPerfectMaxPositions)
        return "No hint: the position contains " + positions_text(domain) + " positions, more than the " +
               std::to_string(kPerfectMaxPositions) + " a hint solves; try again a few moves later.";
      solver_.emplace(pos);
    }
    const std::vector<Move> wins = solver_->winning_moves(pos);
    if (!wins.empty()) {
      const Move m = wins.front();
      return "Hint: take " + move_text(m) + "; it leaves " + rows_to_string(apply_move(pos, m)) +
             ", a losing position for the computer (" + std::to_string(wins.size()) + " winning move" +
             (wins.size() > 1 ? "s" : "") + " in all).";
    }
    // The poisoned tile alone: the only move left is to take it.
    if (pos.size() == 1 && pos[0] == 1) return "Hint: only the poisoned tile is left; taking it loses the game.";
    const Move m = stubborn_moves(*solver_, pos).front();
    return "Hint: every move loses against perfect play; " + move_text(m) +
           " takes a single tile and leaves the computer the fewest winning replies.";
  }

 private:
  std::optional<BoundedSolver> solver_;
};

const char* const kHelp =
    "Type a move as 'row col' (for example '2 3') to take that tile with every tile\n"
    "below and to the right of it. Whoever takes the poisoned tile X at (1,1) loses.\n"
    "Commands: hint (the analyzer's advice), undo (take back your last move),\n"
    "quit (end the game), help (this text).\n";

// ---------------------------------------------------------------------------
// A sum of boards (--boards): a move takes a tile other than (1,1) on one
// board; the player who cannot move (every board the poisoned tile alone)
// loses. The computer plays perfectly by the Sprague–Grundy theorem.

const char* const kSumHelp =
    "Type a move as 'board row col' (for example '2 1 3') to take that tile of that\n"
    "board with every tile below and to the right of it. The poisoned tile X is never\n"
    "taken: the player who cannot move (every board down to its X) loses.\n"
    "Commands: hint (the nim-sum's advice), undo (take back your last move),\n"
    "quit (end the game), help (this text).\n";

/// The winning move of a sum (nim-sum made 0), or, from a lost sum, a move
/// that takes the last tile of the first board that has more than its X.
SumMove perfect_sum_move(const std::vector<Rows>& pos, const std::vector<BoundedGrundy>& solved) {
  int x = 0;
  std::vector<int> values;
  for (std::size_t c = 0; c < pos.size(); ++c) {
    values.push_back(solved[c].value(pos[c]));
    x ^= values.back();
  }
  if (x != 0)
    for (std::size_t c = 0; c < pos.size(); ++c) {
      const int want = values[c] ^ x;
      for (int i = 1; i <= static_cast<int>(pos[c].size()); ++i)
        for (int j = (i == 1 ? 2 : 1); j <= pos[c][static_cast<std::size_t>(i) - 1]; ++j) {
          Rows after = apply_move(pos[c], {i, j});
          const int g = solved[c].value(after);
          if (g == want) return {static_cast<int>(c), {i, j}, std::move(after), g};
        }
    }
  for (std::size_t c = 0; c < pos.size(); ++c)
    if (pos[c] != Rows{1}) {
      const int i = static_cast<int>(pos[c].size());
      const Move m{i, pos[c].back()};
      Rows after = apply_move(pos[c], m);
      const int g = solved[c].value(after);
      return {static_cast<int>(c), m, std::move(after), g};
    }
  throw std::logic_error("no move is left");
}

int run_play_sum(const PlayArgs& a) {
  if (a.level_option && a.level_option->count() > 0 && a.level != "perfect")
    throw UsageError("--boards plays at the perfect level only (it plays sums by their Grundy values)");
  const std::vector<Rows> boards = parse_sum(a.boards);
  std::vector<BoundedGrundy> solved;
  for (std::size_t c = 0; c < boards.size(); ++c) {
    const LatticePath path = LatticePath::from_rows(boards[c]);
    if (path.num_rows() > kMaxBoardSide || path.num_cols() > kMaxBoardSide)
      throw UsageError("board " + std::to_string(c + 1) + " of --boards is " + std::to_string(path.num_rows()) + " x " +
                       std::to_string(path.num_cols()) + "; boards are at most " + std::to_string(kMaxBoardSide) +
                       " rows and columns");
    const std::uint64_t domain = count_subpositions(boards[c]);
    if (domain > kMaxGrundyDomain)
      throw UsageError("board " + std::to_string(c + 1) + " of --boards contains " + positions_text(domain) +
                       " positions; a board of a sum may contain at most " + std::to_string(kMaxGrundyDomain) +
                       " (up to 12 x 12, 10 x 15 or 6 x 34)");
    solved.emplace_back(boards[c]);
  }
  std::vector<Rows> pos = boards;
  std::vector<std::vector<Rows>> history;
  int to_move = 0;  // 0 = the first player
  const int human = a.computer_first ? 1 : 0;
  const auto over = [&] {
    return std::all_of(pos.begin(), pos.end(), [](const Rows& r) { return r == Rows{1}; });
  };
  std::cout << "A sum of " << boards.size() << " Chomp board" << (boards.size() == 1 ? "" : "s")
            << " against the perfect computer. A move takes a tile of one board; the\n"
               "poisoned tile X is never taken, and the player who cannot move loses.\n"
               "Type 'help' for the commands.\n";
  while (!over()) {
    if (to_move != human) {
      const SumMove m = perfect_sum_move(pos, solved);
      history.push_back(pos);
      pos[static_cast<std::size_t>(m.component)] = m.leaves;
      to_move ^= 1;
      std::cout << "\nThe computer takes " << move_text(m.move) << " on board " << m.component + 1 << ".\n";
      continue;
    }
    std::cout << '\n';
    for (std::size_t c = 0; c < pos.size(); ++c) {
      const LatticePath shape = LatticePath::from_rows(boards[c]);
      std::cout << "Board " << c + 1 << ":\n" << draw(pos[c], shape.num_rows(), shape.num_cols());
    }
    std::cout << "Your move (board row col): " << std::flush;
    std::string line;
    if (!read_line(std::cin, line)) {
      std::cout << "\nEnd of input: the game is abandoned.\n";
      return 0;
    }
    std::string words = line;
    for (char& ch : words)
      if (ch == ',' || ch == '(' || ch == ')') ch = ' ';
    std::istringstream in(words);
    std::vector<std::string> w;
    for (std::string t; in >> t;) w.push_back(t);
    const auto number = [](const std::string& t) {
      if (t.empty() || t.size() > 4) return -1;
      for (char ch : t)
        if (ch < '0' || ch > '9') return -1;
      return std::stoi(t);
    };
    if (w.size() == 3 && number(w[0]) >= 0 && number(w[1]) >= 0 && number(w[2]) >= 0) {
      const int b = number(w[0]);
      const Move m{number(w[1]), number(w[2])};
      if (b < 1 || b > static_cast<int>(pos.size())) {
        std::cout << "Illegal move: boards are numbered 1.." << pos.size() << ". Try again.\n";
      } else if (const std::string why = illegal_reason(pos[static_cast<std::size_t>(b - 1)], boards[static_cast<std::size_t>(b - 1)], m); !why.empty()) {
        std::cout << "Illegal move: " << why << ". Try again.\n";
      } else if (m == Move{1, 1}) {
        std::cout << "Illegal move: the poisoned tile X is never taken in a sum. Try again.\n";
      } else {
        history.push_back(pos);
        pos[static_cast<std::size_t>(b - 1)] = apply_move(pos[static_cast<std::size_t>(b - 1)], m);
        to_move ^= 1;
      }
      continue;
    }
    const Input cmd = parse_input(line);
    switch (cmd.kind) {
      case Input::quit:
        std::cout << "You quit the game.\n";
        return 0;
      case Input::help:
        std::cout << kSumHelp;
        break;
      case Input::hint: {
        int x = 0;
        std::string values;
        for (std::size_t c = 0; c < pos.size(); ++c) {
          const int g = solved[c].value(pos[c]);
          x ^= g;
          values += (c ? " xor " : "") + std::to_string(g);
        }
        const SumMove m = perfect_sum_move(pos, solved);
        std::cout << "Hint: the boards' Grundy values are " << values << " = " << x << "; ";
        if (x != 0)
          std::cout << "take " << move_text(m.move) << " on board " << m.component + 1 << " (it leaves value "
                    << m.value << " there and nim-sum 0).\n";
        else
          std::cout << "nim-sum 0: every move loses against perfect play; " << move_text(m.move) << " on board "
                    << m.component + 1 << " takes a single tile.\n";
        break;
      }
      case Input::undo:
        if (history.size() < 2) {
          std::cout << "Nothing to undo: you have not moved yet.\n";
        } else {
          history.pop_back();
          pos = history.back();
          history.pop_back();
          std::cout << "Took back your last move and the computer's reply.\n";
        }
        break;
      default:
        std::cout << "'" << printable(line) << "' is not a move. " << kSumHelp;
        break;
    }
  }
  std::cout << '\n'
            << (to_move == human ? "Every board is down to its poisoned tile and it is your move: the computer wins.\n"
                                 : "Every board is down to its poisoned tile and the computer cannot move: you win!\n");
  return 0;
}

int run_play(const PlayArgs& a) {
  refuse_folder_stdin("your moves");
  // Given, even empty: --boards "" is refused by the sum's parser, not played as a single board.
  if (!a.boards.empty() || (a.boards_option && a.boards_option->count() > 0)) return run_play_sum(a);
  Level level{};
  try {
    level = parse_level(a.level);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const std::uint64_t seed = a.seed ? *a.seed : std::random_device{}();
  std::unique_ptr<Strategy> computer;
  try {
    computer = make_strategy(level, a.rows, a.cols, seed);
  } catch (const std::length_error& e) {
    throw UsageError(e.what());
  }
  Game game(Rows(static_cast<std::size_t>(a.rows), a.cols));
  const int human = a.computer_first ? 1 : 0;
  Hinter hinter;
  std::cout << "Chomp on a " << a.rows << " x " << a.cols << " board against the " << level_name(level)
            << " computer (seed " << seed << "). Whoever takes the poisoned tile X loses.\n"
            << "Type 'help' for the commands.\n";
  while (!game.over()) {
    if (game.to_move() != human) {
      const Move m = computer->choose(game.position());
      game.play(m);
      std::cout << "\nThe computer takes " << move_text(m) << ".\n";
      continue;
    }
    std::cout << '\n' << draw(game.position(), a.rows, a.cols) << "Your move (row col): " << std::flush;
    std::string line;
    if (!read_line(std::cin, line)) {
      std::cout << "\nEnd of input: the game is abandoned.\n";
      return 0;
    }
    const Input in = parse_input(line);
    switch (in.kind) {
      case Input::quit:
        std::cout << "You quit the game.\n";
        return 0;
      case Input::help:
        std::cout << kHelp;
        break;
      case Input::hint:
        std::cout << hinter.hint(game.position()) << '\n';
        break;
      case Input::undo:
        // Your last move and the computer's reply to it.
        if (game.moves_made() < 2) {
          std::cout << "Nothing to undo: you have not moved yet.\n";
        } else {
          game.undo();
          game.undo();
          std::cout << "Took back your last move and the computer's reply.\n";
        }
        break;
      case Input::bad:
        std::cout << "'" << printable(line) << "' is not a move. " << kHelp;
        break;
      case Input::move:
        if (const std::string why = illegal_reason(game.position(), Rows(static_cast<std::size_t>(a.rows), a.cols), in.m); !why.empty()) {
          std::cout << "Illegal move: " << why << ". Try again.\n";
        } else {
          game.play(in.m);
        }
        break;
    }
  }
  std::cout << '\n'
            << (game.winner() == human ? "The computer took the poisoned tile: you win!\n"
                                       : "You took the poisoned tile: the computer wins.\n");
  return 0;
}

const RegisterCommand registration(50, "play", "Play Chomp against the computer in the terminal",
                          [](CLI::App& sub) -> Action {
  auto a = std::make_shared<PlayArgs>();
  auto* rows = sub.add_option("--rows", a->rows, "Rows of the board")
                   ->transform(whole_number(1, kMaxBoardSide))
                   ->capture_default_str();
  auto* cols = sub.add_option("--cols", a->cols, "Columns of the board")
                   ->transform(whole_number(1, kMaxBoardSide))
                   ->capture_default_str();
  a->level_option = sub.add_option("-l,--level", a->level, "easy, medium, hard or perfect (--boards plays perfect)")
      ->check(CLI::IsMember({"easy", "medium", "hard", "perfect"}))
      ->capture_default_str();
  sub.add_flag("--computer-first", a->computer_first, "Let the computer make the first move");
  a->boards_option = sub.add_option("--boards", a->boards_words,
                 "Play a sum of boards, e.g. \"3x4 + 2x5\" or \"3,2 + 4,4,1\" (perfect level; the poisoned "
                 "tiles are never taken, the player who cannot move loses; the boards give their own sizes, "
                 "without --rows or --cols)")
      ->excludes(rows)
      ->excludes(cols);
  sub.add_option("-s,--seed", a->seed, "Seed of the computer's random choices (default: a fresh one, printed; unused with --boards, "
                 "which plays without chance)")
      ->transform(whole_number(0, UINT64_MAX));
  sub.footer(
      "Moves are read from stdin as 'row col'; also hint, undo, help, quit. End of input ends\n"
      "the game.\n"
      "Levels: easy plays at random but takes a simple win (single tile, two rows (a+1,a),\n"
      "two columns, equal-armed L); medium also avoids handing over such a win; hard knows\n"
      "every position inside a staircase of K tiles (row i at most K/i long; K = 30, less on\n"
      "boards where that holds over 2^20 positions: 23 on 20 x 20 to 40 x 40) and looks three\n"
      "moves ahead elsewhere: on a board the staircase covers, such as the default 4 x 7, it\n"
      "plays as perfect does; perfect solves the board and never lets a win slip (boards of\n"
      "up to 2^26 positions, e.g. 14 x 14).\n"
      "Sums (--boards \"3x4 + 2x5\"): moves are 'board row col'; the poisoned tile is never\n"
      "taken, the single poisoned tile has Grundy value 0, and the computer plays the move\n"
      "that makes the nim-sum of the boards' Grundy values 0 whenever there is one. Each\n"
      "board is at most 40 x 40 and contains at most 2^22 positions (up to 12 x 12).\n");
  return [a] {
    a->boards = join_words(a->boards_words);
    return with_words_hint(a->boards_words, "--boards", [&] { return run_play(*a); });
  };
});

}  // namespace
}  // namespace chomp::app::cmd_play
