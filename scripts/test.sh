#!/usr/bin/env bash
# The README's second command: install what is missing, build, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
