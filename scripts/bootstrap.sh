#!/usr/bin/env bash
# The README's first command: install what is missing, build, install the
# program (chomp on the PATH: PREFIX, default /usr/local) and run the main
# job: the exact table of losing positions for every tile count 1..90 (the
# published density table), printed and written to out/levels-90.h5.
set -euo pipefail
# A relative PREFIX is the caller's, not the checkout's (the script works there).
if [ -n "${PREFIX:-}" ] && [[ $PREFIX != /* ]]; then PREFIX=$PWD/$PREFIX; fi
cd "$(dirname "$0")/.."
case ${1:-} in
  -h|--help) sed -n '2,5p' "$0" | sed 's/^# //'; exit 0 ;;
  "") ;;
  *) echo "error: bootstrap.sh takes no arguments (PREFIX=DIR in the environment picks where to install)" >&2; exit 2 ;;
esac
prefix=${PREFIX:-/usr/local}
# Whether installing needs sudo: the prefix, or the nearest folder above it
# that exists (a PREFIX not made yet, such as a fresh ~/.local), must be
# writable. Decided before the build, so that a missing sudo is said at once.
existing=$prefix
while [ ! -e "$existing" ]; do existing=$(dirname "$existing"); done
sudo=""
if [ "$(id -u)" -ne 0 ] && [ ! -w "$existing" ]; then
  command -v sudo >/dev/null || {
    echo "error: $prefix is not writable and there is no sudo; run as root, or give a folder you can write:" \
         "PREFIX=~/.local bash scripts/bootstrap.sh" >&2
    exit 1
  }
  sudo="sudo"
fi
bash scripts/deps.sh
bash scripts/build.sh
$sudo cmake --install build --prefix "$prefix" > /dev/null
# cmake writes build/install_manifest.txt as the installing user: give a
# sudo install's back, or the user's next `cmake --install build` (the
# test suite's among them) cannot write it.
if [ -n "$sudo" ]; then $sudo chown "$(id -u):$(id -g)" build/install_manifest.txt; fi
echo "installed $prefix/bin/chomp (and its man page), and the library: $prefix/include/chomp, $prefix/lib/libchomp.a, $prefix/lib/cmake/chomp (doc/LIBRARY.md)"
if [ "$(command -v chomp || true)" != "$prefix/bin/chomp" ]; then
  echo "note: $prefix/bin is not first on your PATH for chomp; add it (export PATH=\"$prefix/bin:\$PATH\")," \
       "or run $prefix/bin/chomp"
fi
mkdir -p out
./build/chomp sieve --max-tiles 90 --output out/levels-90.h5 --force
