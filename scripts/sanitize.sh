#!/usr/bin/env bash
# Builds the suite with AddressSanitizer and UndefinedBehaviorSanitizer
# (Debug, assertions on) in build-asan/ and runs it. The subprocess tests
# run the same steps on smaller levels there (kFullSize in
# tests/chomp_process.hpp). Extra arguments go to ctest, e.g. -R Resume.
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1:-} in
  -h|--help) sed -n '2,5p' "$0" | sed 's/^# //'; exit 0 ;;
esac
bash scripts/deps.sh
cmake -S . -B build-asan -DCHOMP_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCHOMP_BUILD_BENCHMARKS=OFF
cmake --build build-asan -j"$(nproc)"
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" "$@"
