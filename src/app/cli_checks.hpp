/// @file cli_checks.hpp
/// @brief Strict checks of command-line values (CLI11 validators).
///
/// CLI11's own conversions accept " 5", "+5" and "0x10"; these validators
/// accept digits only, so what a batch script passes is exactly what runs,
/// and every refusal is one line that says what was wrong and what is
/// allowed. Values are echoed through printable() (plain_checks.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "plain_checks.hpp"

namespace chomp::app {

/// A whole number in [lo, hi], decimal digits only (no sign, no space, no
/// 0x; leading zeros are read as decimal), the one check of every numeric
/// option. why_max, if given, explains the upper bound (it follows "at most
/// hi"). The value is passed on without its leading zeros, which CLI11's own
/// conversion would read as octal: give it with ->transform(), not
/// ->check() (CLI11 hands a check a copy of the value).
CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi, const std::string& why_max = "");

/// A decimal number in [0, hi] (hi whole), digits with at most one point ("0.5",
/// "15", ".25"): no sign, exponent, NaN or infinity, which CLI11's own
/// conversion would take (and NaN passes its range check).
CLI::Validator decimal_number(double hi);

/// A file name for writing: not empty, no control characters, not ending in
/// '/', at most PATH_MAX bytes with no part longer than NAME_MAX; "-" only
/// where it means standard output (dash_is_stdout: a CSV), since for an
/// HDF5 file it would name a file called "-".
CLI::Validator output_file_name(bool dash_is_stdout = false);
/// A file to read that must exist: a missing one, or a folder, is refused
/// saying what to give instead (`what`: "a result file of `chomp sieve`").
CLI::Validator input_file(const std::string& what);

/// A validator for parse_byte_size.
CLI::Validator byte_size();

}  // namespace chomp::app
