/// @file divisors.hpp
/// @brief The divisor game of a number N: its divisors; a move picks a
/// remaining number and removes it with every remaining number that
/// divides it; whoever must pick N loses.
///
/// ## The board
/// With N = p_1^e_1 ... p_k^e_k (primes increasing), the divisor
/// p_1^a_1 ... p_k^a_k is the cell (e_1 - a_1 + 1, ..., e_k - a_k + 1) of the
/// box (e_1 + 1) x ... x (e_k + 1) (box_chomp.hpp): N is the poisoned cell
/// (1, ..., 1), and the divisors of d are the cells at or beyond d's on
/// every axis, so picking d is the Chomp move at d's cell. The numbers
/// that remain are a down-set of the box: with a number, every multiple of
/// it that divides N remains too. Two primes are 2D Chomp on an
/// (e_2 + 1) x (e_1 + 1) board (rows the powers of p_2, columns those of
/// p_1: N = 72 is the 3 x 4 board 72 36 18 9 / 24 12 6 3 / 8 4 2 1), three
/// primes 3D Chomp in a box (layers the powers of p_3).
///
/// ## Text form of a position
/// The numbers that remain, separated by commas, in any order (spaces
/// around them allowed): `72,36,24,12` for N = 72. parse_position refuses,
/// with one line saying what is wrong: an empty list or entry, anything
/// but decimal digits, a number that does not divide N, a number listed
/// twice, a list without N, a number whose multiple (a divisor of N) is not
/// listed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chomp/box_chomp.hpp"

namespace chomp {

struct PrimePower {
  std::uint64_t prime = 0;
  int exponent = 0;
  friend bool operator==(const PrimePower&, const PrimePower&) = default;
};

/// Deterministic for every 64-bit n (Miller-Rabin with the first twelve
/// primes as bases).
bool is_prime(std::uint64_t n);

/// The prime factorization, primes increasing ({} for n = 1; n = 0 throws
/// std::invalid_argument): trial division by small primes, then Pollard's
/// rho (Brent's variant) on what is left.
std::vector<PrimePower> factorize(std::uint64_t n);

/// N's divisors as a Chomp board (see the file comment).
class DivisorBoard {
 public:
  /// Throws std::invalid_argument for n < 2, std::invalid_argument (from
  /// Box) never for a 64-bit n (it has at most 103,680 divisors).
  explicit DivisorBoard(std::uint64_t n);

  std::uint64_t number() const { return n_; }
  const std::vector<PrimePower>& factors() const { return factors_; }
  /// Axis j is factors()[j]; its extent is that exponent + 1.
  const Box& box() const { return box_; }

  /// The divisor at a cell; cell 0 is N.
  std::uint64_t divisor(std::size_t cell) const { return divisors_[cell]; }
  /// The cell of d, or nullopt when d does not divide N.
  std::optional<std::size_t> cell_of(std::uint64_t d) const;

  /// "2^3 * 3^2" (a prime alone: "7").
  std::string factor_text() const;
  /// Parses the text form (see the file comment); throws InvalidPosition.
  CellSet parse_position(std::string_view text) const;
  /// The numbers of a position, largest first.
  std::vector<std::uint64_t> numbers(const CellSet& position) const;
  /// The text form, largest first: "72,36,24,12".
  std::string position_text(const CellSet& position) const;
  /// The board as grids of numbers, rows the powers of p_2 and columns
  /// those of p_1 (highest first, N at the top left), one grid for each
  /// power of p_3 (and of the primes after it) headed by those powers;
  /// numbers gone are '.'. Every line starts with `indent`.
  std::string picture(const CellSet& position, const std::string& indent = "  ") const;

 private:
  std::uint64_t n_;
  std::vector<PrimePower> factors_;
  Box box_;
  std::vector<std::uint64_t> divisors_;  // by cell
};

}  // namespace chomp
