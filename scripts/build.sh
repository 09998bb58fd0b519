#!/usr/bin/env bash
# Configures (Release, once) and builds into build/. Extra arguments go to
# cmake's configure step, which then runs again on a configured tree too
# (e.g. scripts/build.sh -DCHOMP_WITH_MPI=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1:-} in
  -h|--help) sed -n '2,4p' "$0" | sed 's/^# //'; exit 0 ;;
esac
if [ ! -f build/CMakeCache.txt ] || [ $# -gt 0 ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
fi
cmake --build build -j"$(nproc)"
