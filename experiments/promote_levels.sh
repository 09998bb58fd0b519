#!/usr/bin/env bash
# Promotes the finished levels of a run (the long run to 170) to the
# committed table, checked first:
#
#   experiments/promote_levels.sh K [RUN.h5]
#
# K is the last level to commit, RUN.h5 the run's result file (default
# /var/tmp/chomp-run/levels-170.h5; the run may be going or stopped).
# P below is the largest committed table, data/levels-P.h5 (K > P).
#
#  1. checks levels P+1..K: `chomp verify RUN.h5 --finished --from P+1
#     --to K --moves MOVES` (the stored ranks and their digests, the
#     transposes of a sample, the rule move by move on every MOVES-th losing
#     position and rank, from the positions' own moves: independent of the
#     engine), and `compare_levels.py` (every finished level of the run
#     against every committed table); either failing stops the script with
#     nothing in data/ changed;
#  2. writes data/levels-K.h5 (a levels-only copy of levels 1..K) and
#     data/levels-K.csv, and removes data/levels-P.* (`git rm` when tracked;
#     data/levels-100.* is another kind of file and stays);
#  3. with NOTEBOOKS=1 (the default): the README figure, the notebooks
#     executed in place on the new table, notebooks/VERDICT.md and the
#     README's copy of it (experiments/readme_verdict.py --update); and the
#     README's results table (experiments/readme_results.py --update);
#  4. prints what is left to do by hand: data/README.md's provenance (the
#     legs, the verify line it printed), and the files that still name the
#     replaced table.
#
# MOVES (default 1000000), CHOMP (default build/chomp), DATA (default data),
# NOTEBOOKS (1 or 0), OUT (default out: where the verify report goes,
# verify-P+1-K.txt).
set -euo pipefail
cd "$(dirname "$0")/.."

k=${1:?usage: experiments/promote_levels.sh K [RUN.h5]}
run=${2:-/var/tmp/chomp-run/levels-170.h5}
chomp=${CHOMP:-build/chomp}
data=${DATA:-data}
moves=${MOVES:-1000000}
notebooks=${NOTEBOOKS:-1}
python=/usr/bin/python3   # Debian's, with python3-h5py, python3-numpy, python3-matplotlib
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"

die() { echo "error: $*" >&2; exit 1; }
[[ $k =~ ^[0-9]+$ ]] || die "K must be a level number, not '$k'"
[ -x "$chomp" ] || die "$chomp not found; build first (scripts/build.sh) or set CHOMP"
[ -f "$run" ] || die "no run file $run (give RUN.h5 as the second argument)"
# The largest committed table (levels-100 is the positions file, never the largest).
p=$(ls "$data"/levels-*.h5 2>/dev/null | sed -n 's|^.*/levels-\([0-9]*\)\.h5$|\1|p' | sort -n | tail -1)
[ -n "$p" ] || die "no committed table $data/levels-N.h5"
[ "$k" -gt "$p" ] || die "level $k is committed already ($data/levels-$p.h5); nothing to promote"
# The run's last finished level (chomp show reads a file the run has open).
last=$("$chomp" show "$run" --csv | awk -F, '$1 ~ /^[0-9]+$/ {n = $1} END {print n + 0}')
[ "$k" -le "$last" ] || die "the run has finished levels 1..$last only; wait for level $k or promote $last"

mkdir -p "${OUT:-out}"
report=${OUT:-out}/verify-$((p + 1))-$k.txt
echo "1. checking levels $((p + 1))..$k of $run (report: $report)"
if ! "$chomp" verify "$run" --finished --from $((p + 1)) --to "$k" --moves "$moves" >"$report" 2>&1; then
  cat "$report" >&2
  die "chomp verify failed: nothing was promoted"
fi
tail -n 3 "$report"
"$python" experiments/compare_levels.py "$run" --chomp "$chomp" --data "$data" ||
  die "the run's levels differ from a committed table: nothing was promoted"

echo "2. $data/levels-$k.h5 and .csv, replacing $data/levels-$p.*"
out=$data/levels-$k.h5
rm -f "$out"
"$python" experiments/h5_levels_only.py "$run" "$out" --chomp "$chomp" --through "$k"
"$python" experiments/h5_to_csv.py "$out"
if [ "$p" != 100 ]; then
  for f in "$data/levels-$p.h5" "$data/levels-$p.csv"; do
    if git ls-files --error-unmatch "$f" >/dev/null 2>&1; then git rm -q "$f"; else rm -f "$f"; fi
  done
fi

if [ "$notebooks" = 1 ]; then
  echo "3. the figure, the notebooks on levels 1..$k, the verdict"
  "$python" experiments/make_figures.py "$out" --output "$data/hypothesis_ratio.png"
  for nb in density_hypothesis combinatorial_games three_d; do
    echo "   notebooks/$nb.ipynb"
    env -u CHOMP_LEVELS_FILE -u CHOMP_POSITIONS_FILE -u CHOMP_VERDICT_FILE CHOMP_BINARY="$(realpath "$chomp")" \
      "$python" -m nbconvert --to notebook --execute --inplace \
      --ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.timeout=1200 "notebooks/$nb.ipynb"
  done
  "$python" experiments/readme_verdict.py --update
fi
if [ "$data" = data ]; then "$python" experiments/readme_results.py --update; fi

echo "4. left to do by hand:"
echo "   - README.md and doc/: the lines that still name levels-$p or levels 1..$p (the results"
echo "     table is made, experiments/readme_results.py): $(grep -rln "levels-$p\b" README.md doc python | tr '\n' ' ' || true)"
echo "   - $data/README.md: the row of levels-$k and the provenance of its legs"
echo "     (the run's resume_history: chomp show $run --json), with this check:"
echo "     chomp verify --finished --from $((p + 1)) --to $k --moves $moves: $(tail -n 1 "$report")"
echo "   - then commit data/, notebooks/ and README.md together."
