#!/usr/bin/env bash
# `cmake --install` into a fresh prefix: the installed chomp runs from
# there and answers like the built one, and its man page is in place; and
# the installed library builds a program of one's own
# (tests/library_consumer, find_package(chomp)) that sieves to 40 tiles.
# Usage: install_test.sh BUILD_DIR
set -euo pipefail
build=$1
prefix=$(mktemp -d)
# cmake --install rewrites $build/install_manifest.txt: the list of what the
# user's own install put where (their way to uninstall) is put back after.
manifest=$build/install_manifest.txt
if [ -e "$manifest" ] && [ ! -w "$manifest" ]; then
  echo "$manifest is not writable (a sudo install wrote it): sudo chown $(id -un) $manifest" >&2
  exit 1
fi
saved=""
if [ -e "$manifest" ]; then saved=$(mktemp); cp "$manifest" "$saved"; fi
trap 'rm -rf "$prefix"; if [ -n "$saved" ]; then mv "$saved" "$manifest"; else rm -f "$manifest"; fi' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null
test -x "$prefix/bin/chomp" || { echo "no $prefix/bin/chomp" >&2; exit 1; }
test -s "$prefix/share/man/man1/chomp.1" || { echo "no man page" >&2; exit 1; }
out=$(cd / && "$prefix/bin/chomp" analyze 3,2,1)
# (3,2,1) is winning with three winning moves; "winning" alone would match a
# wrong "losing" answer's "every move leaves a winning position".
grep -qx "Status: winning" <<< "$out" && grep -qx "Winning moves (3):" <<< "$out" ||
  { echo "unexpected: $out" >&2; exit 1; }
grep -q '^\.SH "chomp sieve"' "$prefix/share/man/man1/chomp.1" || { echo "the man page lacks chomp sieve" >&2; exit 1; }
grep -q '^\.SH "chomp divisors"' "$prefix/share/man/man1/chomp.1" || { echo "the man page lacks chomp divisors" >&2; exit 1; }
if grep -q "$build" "$prefix/share/man/man1/chomp.1"; then echo "the man page names the build folder" >&2; exit 1; fi
consumer=$prefix/consumer-build
cmake -S "$(dirname "$0")/library_consumer" -B "$consumer" -DCMAKE_PREFIX_PATH="$prefix" > "$prefix/consumer.log" 2>&1 &&
  cmake --build "$consumer" >> "$prefix/consumer.log" 2>&1 ||
  { echo "a program against the installed library did not build:" >&2; tail -n 20 "$prefix/consumer.log" >&2; exit 1; }
answer=$("$consumer/consumer" "$prefix")
[ "$answer" = "L(40) = 1022" ] || { echo "the installed library's sieve said '$answer', not L(40) = 1022" >&2; exit 1; }
echo "installed and ran $prefix/bin/chomp, and built and ran a program against the installed library"
