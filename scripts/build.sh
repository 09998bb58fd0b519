#!/usr/bin/env bash
# Configures (Release, once) and builds into build/. Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
fi
cmake --build build -j"$(nproc)"
