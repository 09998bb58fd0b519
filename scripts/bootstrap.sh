#!/usr/bin/env bash
# The README's first command: install what is missing, build, install the
# program (chomp on the PATH: PREFIX, default /usr/local) and run the main
# job: the exact table of losing positions for every tile count 1..90 (the
# published density table), printed and written to out/levels-90.h5.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
prefix=${PREFIX:-/usr/local}
sudo=""
if [ "$(id -u)" -ne 0 ] && [ ! -w "$prefix" ]; then sudo="sudo"; fi
$sudo cmake --install build --prefix "$prefix" > /dev/null
echo "installed $prefix/bin/chomp (and its man page)"
mkdir -p out
./build/chomp sieve --max-tiles 90 --output out/levels-90.h5 --force
