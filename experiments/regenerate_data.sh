#!/usr/bin/env bash
# Regenerates the committed table and everything made from it:
#
#   out/levels-N.h5, .store  chomp sieve --max-tiles N --store-losing 40 --file-all-marks
#                           (the run's own files)
#   data/levels-N.h5        their levels-only copy (experiments/h5_levels_only.py)
#   data/levels-N.csv       its CSV export with provenance (experiments/h5_to_csv.py)
#   data/hypothesis_ratio.png  the README figure (experiments/make_figures.py), when N is the
#                           largest committed table (else out/levels-N-hypothesis_ratio.png)
#
# Usage, from anywhere in the repository:
#
#   experiments/regenerate_data.sh N
#
# Build the program first (scripts/build.sh). CHOMP names another binary
# (default build/chomp, run by that relative path so the file's command_line
# attribute names no machine's folders); STORE_LOSING changes how many levels
# keep their losing positions (default 40, or N when smaller; enough for
# notebooks/positions.ipynb, about 0.2 MB). Prints the wall time of each step; data/README.md records them.
set -euo pipefail
cd "$(dirname "$0")/.."

case ${1:-} in
  -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
[ $# -ge 1 ] || { echo "usage: experiments/regenerate_data.sh MAX_TILES (--help says more)" >&2; exit 2; }
n=$1
[ $# -eq 1 ] || { echo "error: one argument, MAX_TILES (got $#)" >&2; exit 2; }
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "error: MAX_TILES must be a whole number of tiles, not '$n'" >&2; exit 2; }
chomp=${CHOMP:-build/chomp}
store=${STORE_LOSING:-$(( n < 40 ? n : 40 ))}   # at most N
python=/usr/bin/python3   # Debian's, with python3-h5py, python3-numpy, python3-matplotlib
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"   # chomp_results, unless installed
run=out/levels-$n.h5
out=data/levels-$n.h5

[ -x "$chomp" ] || { echo "error: $chomp not found; build first (scripts/build.sh) or set CHOMP" >&2; exit 1; }
version=$("$chomp" --version)
case "$version" in
  *dirty*) echo "warning: $version was built from uncommitted changes; the file will say so" >&2 ;;
esac

TIMEFORMAT='  %R s'
mkdir -p out
echo "$version: sieve up to $n tiles -> $run"
# Every mark filed, as in the committed tables (their `marks` column counts
# them all; a run inferring the top rows' moves counts fewer).
time "$chomp" sieve --max-tiles "$n" --store-losing "$store" --output "$run" --force -q --file-all-marks
# The copy and its CSV are made in out/ and moved into data/ only when both
# are done: a failure or a Ctrl-C on the way leaves the committed pair as it
# was.
stage=out/stage-$n
rm -rf "$stage" && mkdir -p "$stage"
echo "levels-only copy -> $out (made in $stage/)"
time "$python" experiments/h5_levels_only.py "$run" "$stage/levels-$n.h5" --chomp "$chomp"
echo "CSV export"
time "$python" experiments/h5_to_csv.py "$stage/levels-$n.h5"
mv -f "$stage/levels-$n.h5" "$out"
mv -f "$stage/levels-$n.csv" "${out%.h5}.csv"
rmdir "$stage"
# The README's figure is drawn from the largest committed table only; a
# smaller table's figure goes to out/ (make_figures.py's default).
largest=$(ls data/levels-*.h5 | sed -n 's|^data/levels-\([0-9]*\)\.h5$|\1|p' | sort -n | tail -1)
if [ "$n" = "$largest" ]; then figure=data/hypothesis_ratio.png; else figure="out/levels-$n-hypothesis_ratio.png"; fi
echo "figure -> $figure"
time "$python" experiments/make_figures.py "$out" --output "$figure"
