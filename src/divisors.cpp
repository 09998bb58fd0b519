/// @file divisors.cpp
/// @brief The divisor game: factoring N, numbers to cells and back, the
/// text form of a position and the board's picture (divisors.hpp).

#include "chomp/divisors.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <stdexcept>

#include "chomp/position.hpp"

namespace chomp {

namespace {

// GCC's and Clang's 128-bit integer (__extension__: not ISO C++).
__extension__ using Wide = unsigned __int128;

std::uint64_t mul_mod(std::uint64_t a, std::uint64_t b, std::uint64_t m) {
  return static_cast<std::uint64_t>(static_cast<Wide>(a) * b % m);
}

std::uint64_t pow_mod(std::uint64_t b, std::uint64_t e, std::uint64_t m) {
  std::uint64_t r = 1 % m;
  for (b %= m; e; e >>= 1, b = mul_mod(b, b, m))
    if (e & 1) r = mul_mod(r, b, m);
  return r;
}

constexpr std::uint64_t kWitnesses[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};

/// A factor of n (composite, odd, no prime factor below 1000), 1 < f < n:
/// Brent's cycle finding on x -> x^2 + c, the gcd taken once every 128
/// steps and the last batch replayed one step at a time when it overshoots.
std::uint64_t rho_factor(std::uint64_t n) {
  for (std::uint64_t c = 1;; ++c) {
    const auto f = [&](std::uint64_t x) { return (mul_mod(x, x, n) + c) % n; };
    std::uint64_t y = 2, x = 2, ys = 2, q = 1, g = 1;
    for (std::uint64_t r = 1; g == 1; r <<= 1) {
      x = y;
      for (std::uint64_t i = 0; i < r; ++i) y = f(y);
      for (std::uint64_t k = 0; k < r && g == 1; k += 128) {
        ys = y;
        for (std::uint64_t i = 0; i < std::min<std::uint64_t>(128, r - k); ++i) {
          y = f(y);
          q = mul_mod(q, x > y ? x - y : y - x, n);
        }
        g = std::gcd(q, n);
      }
    }
    if (g == n) {
      do {
        ys = f(ys);
        g = std::gcd(x > ys ? x - ys : ys - x, n);
      } while (g == 1);
    }
    if (g != n) return g;  // else a new constant
  }
}

void split(std::uint64_t n, std::vector<std::uint64_t>& primes) {
  if (n == 1) return;
  if (is_prime(n)) {
    primes.push_back(n);
    return;
  }
  const std::uint64_t f = rho_factor(n);
  split(f, primes);
  split(n / f, primes);
}

std::string digits(std::uint64_t v) { return std::to_string(v); }

}  // namespace

bool is_prime(std::uint64_t n) {
  if (n < 2) return false;
  for (std::uint64_t p : kWitnesses)
    if (n % p == 0) return n == p;
  std::uint64_t d = n - 1;
  int s = 0;
  while ((d & 1) == 0) d >>= 1, ++s;
  for (std::uint64_t a : kWitnesses) {
    std::uint64_t x = pow_mod(a, d, n);
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (int i = 1; i < s && composite; ++i) {
      x = mul_mod(x, x, n);
      composite = x != n - 1;
    }
    if (composite) return false;
  }
  return true;
}

std::vector<PrimePower> factorize(std::uint64_t n) {
  if (n == 0) throw std::invalid_argument("0 has no prime factorization");
  std::vector<std::uint64_t> primes;
  for (std::uint64_t p = 2; p < 1000 && p * p <= n; p += (p == 2 ? 1 : 2))
    while (n % p == 0) {
      primes.push_back(p);
      n /= p;
    }
  split(n, primes);
  std::sort(primes.begin(), primes.end());
  std::vector<PrimePower> out;
  for (std::uint64_t p : primes) {
    if (out.empty() || out.back().prime != p) out.push_back({p, 0});
    ++out.back().exponent;
  }
  return out;
}

namespace {

std::vector<int> extents_of(std::uint64_t n, std::vector<PrimePower>& factors) {
  if (n < 2) throw std::invalid_argument("the divisor game needs N >= 2, not " + std::to_string(n));
  factors = factorize(n);
  std::vector<int> ext;
  for (const PrimePower& f : factors) ext.push_back(f.exponent + 1);
  return ext;
}

}  // namespace

DivisorBoard::DivisorBoard(std::uint64_t n) : n_(n), box_(extents_of(n, factors_)) {
  divisors_.resize(box_.cells());
  for (std::size_t cell = 0; cell < box_.cells(); ++cell) {
    const std::vector<int> c = box_.coordinates(cell);
    std::uint64_t d = 1;
    for (std::size_t j = 0; j < factors_.size(); ++j)
      for (int a = factors_[j].exponent - c[j] + 1; a > 0; --a) d *= factors_[j].prime;
    divisors_[cell] = d;
  }
}

std::optional<std::size_t> DivisorBoard::cell_of(std::uint64_t d) const {
  if (d == 0 || n_ % d != 0) return std::nullopt;
  std::vector<int> c(factors_.size());
  for (std::size_t j = 0; j < factors_.size(); ++j) {
    int a = 0;
    while (d % factors_[j].prime == 0) d /= factors_[j].prime, ++a;
    c[j] = factors_[j].exponent - a + 1;
  }
  return box_.index(c);
}

std::string DivisorBoard::factor_text() const {
  std::string s;
  for (const PrimePower& f : factors_) {
    if (!s.empty()) s += " * ";
    s += digits(f.prime);
    if (f.exponent > 1) s += '^' + std::to_string(f.exponent);
  }
  return s;
}

CellSet DivisorBoard::parse_position(std::string_view text) const {
  std::string example = " (the numbers that remain, separated by commas, such as " + digits(n_);
  if (factors_.size() > 1 || factors_[0].exponent > 1) example += ',' + digits(n_ / factors_[0].prime);
  example += ')';
  if (text.find_first_not_of(" \t") == std::string_view::npos) throw InvalidPosition("an empty list" + example);
  CellSet pos(box_.cells(), 0);
  std::vector<std::uint64_t> listed;
  std::size_t start = 0;
  for (std::size_t entry = 1;; ++entry) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::string_view item = text.substr(start, comma - start);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    const std::string where = "entry " + std::to_string(entry);
    if (item.empty()) throw InvalidPosition(where + " is empty" + example);
    if (item.find_first_not_of("0123456789") != std::string_view::npos)
      throw InvalidPosition(where + " '" + std::string(item.substr(0, 40)) + std::string(item.size() > 40 ? "..." : "") +
                            "' is not a whole number; give decimal digits only" + example);
    std::uint64_t d = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), d);
    if (ec != std::errc() || end != item.data() + item.size())
      throw InvalidPosition(where + " '" + std::string(item.substr(0, 40)) + "' is larger than " + digits(n_) +
                            ", so it does not divide it");
    const std::optional<std::size_t> cell = cell_of(d);
    if (!cell) throw InvalidPosition(where + ": " + digits(d) + " does not divide " + digits(n_));
    if (pos[*cell]) throw InvalidPosition(where + ": " + digits(d) + " is listed twice");
    pos[*cell] = 1;
    listed.push_back(d);
    if (comma == text.size()) break;
    start = comma + 1;
  }
  if (!pos[0])
    throw InvalidPosition(digits(n_) + " is not listed; it remains in every position (whoever must pick it loses, "
                          "and then the game is over)");
  // With a number, every multiple of it that divides N must remain: a
  // move removes a number with its divisors, never a multiple alone.
  for (std::uint64_t d : listed)
    for (const PrimePower& f : factors_)
      if ((n_ / d) % f.prime == 0 && !pos[*cell_of(d * f.prime)])
        throw InvalidPosition(digits(d) + " remains but its multiple " + digits(d * f.prime) +
                              " is not listed; a move removes a number with its divisors, so the multiples "
                              "(dividing " + digits(n_) + ") of a number that remains remain too");
  return pos;
}

std::vector<std::uint64_t> DivisorBoard::numbers(const CellSet& position) const {
  std::vector<std::uint64_t> out;
  for (std::size_t c = 0; c < position.size() && c < divisors_.size(); ++c)
    if (position[c]) out.push_back(divisors_[c]);
  std::sort(out.rbegin(), out.rend());
  return out;
}

std::string DivisorBoard::position_text(const CellSet& position) const {
  std::string s;
  for (std::uint64_t d : numbers(position)) {
    if (!s.empty()) s += ',';
    s += digits(d);
  }
  return s;
}

std::string DivisorBoard::picture(const CellSet& position, const std::string& indent) const {
  const int k = box_.dimensions();
  const std::size_t width = digits(n_).size();
  const int cols = box_.extent(0), rows = k >= 2 ? box_.extent(1) : 1;
  std::size_t grids = 1;
  for (int a = 2; a < k; ++a) grids *= static_cast<std::size_t>(box_.extent(a));
  std::string out;
  std::vector<int> c(static_cast<std::size_t>(k), 1);
  for (std::size_t g = 0; g < grids; ++g) {
    // The grid's coordinates on axes 2..k-1, the last fastest.
    std::size_t rest = g;
    for (int a = k - 1; a >= 2; --a) {
      c[static_cast<std::size_t>(a)] = static_cast<int>(rest % static_cast<std::size_t>(box_.extent(a))) + 1;
      rest /= static_cast<std::size_t>(box_.extent(a));
    }
    if (k >= 3) {
      if (g) out += "\n";
      out += indent;
      for (int a = 2; a < k; ++a) {
        const PrimePower& f = factors_[static_cast<std::size_t>(a)];
        if (a > 2) out += ' ';
        out += digits(f.prime) + "^" + std::to_string(f.exponent - c[static_cast<std::size_t>(a)] + 1);
      }
      out += ":\n";
    }
    for (int r = 1; r <= rows; ++r) {
      if (k >= 2) c[1] = r;
      std::string line = indent + (k >= 3 ? "  " : "");
      for (int col = 1; col <= cols; ++col) {
        c[0] = col;
        const std::size_t cell = box_.index(c);
        std::string v = position[cell] ? digits(divisors_[cell]) : ".";
        if (col > 1) line += ' ';
        line += std::string(width - v.size(), ' ') + v;
      }
      out += line + "\n";
    }
  }
  return out;
}

}  // namespace chomp
