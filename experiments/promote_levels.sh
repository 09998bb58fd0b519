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
#     nothing in data/ changed, and so does a run whose marks leave out the
#     moves it inferred (root attribute inferred_marks other than "none":
#     long_run.sh's legs pass --file-all-marks);
#  2. writes the levels-only copy of levels 1..K and its CSV beside data/,
#     checks the copy with `chomp verify` (its three-row sample), and only
#     then moves them to data/levels-K.h5 and .csv and removes data/levels-P.*
#     (in a git work tree: `git add` and `git rm`; data/levels-100.* is
#     another kind of file and stays);
#  3. the README's results table (experiments/readme_results.py --update),
#     and with NOTEBOOKS=1 (the default) the README figure, the notebooks
#     executed in place on the new table, notebooks/VERDICT.md and the
#     README's copy of it (experiments/readme_verdict.py --update);
#  4. prints what is left to do by hand: data/README.md's provenance (the
#     legs, and the verify report's summary it prints), and the files that
#     still name the replaced table.
#
# K = P (the table committed already) does step 3 alone: the refresh after
# a step 3 that failed. MOVES (default 1000000), CHOMP (default build/chomp),
# THREADS (verify's threads; default all cores), DATA (default data: another
# folder gets steps 1, 2 and 4 alone, for tests), NOTEBOOKS (1 or 0), OUT
# (default out: where the verify report goes, verify-P+1-K.txt), PYTHON
# (default /usr/bin/python3, Debian's, with h5py, numpy and matplotlib).
set -euo pipefail
caller=$PWD  # RUN.h5, DATA and OUT given by relative paths are the caller's, not the checkout's
cd "$(dirname "$0")/.."

case ${1:-} in
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: experiments/promote_levels.sh K [RUN.h5] (--help says more)" >&2; exit 2; }
k=$1
run=${2:-/var/tmp/chomp-run/levels-170.h5}
chomp=${CHOMP:-build/chomp}
data=${DATA:-data}
moves=${MOVES:-1000000}
notebooks=${NOTEBOOKS:-1}
out_dir=${OUT:-out}
if [ -n "${2:-}" ] && [[ $run != /* ]]; then run=$caller/$run; fi
if [ -n "${DATA:-}" ] && [[ $data != /* ]]; then data=$caller/$data; fi
if [ -n "${OUT:-}" ] && [[ $out_dir != /* ]]; then out_dir=$caller/$out_dir; fi
python=${PYTHON:-/usr/bin/python3}
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"

die() { echo "error: $*" >&2; exit 1; }
[[ $k =~ ^[1-9][0-9]*$ ]] || { echo "error: K must be a level number, not '$k'" >&2; exit 2; }
[ -x "$chomp" ] || die "$chomp not found; build first (scripts/build.sh) or set CHOMP"
# The largest committed table (levels-100 is the positions file, not a table to replace).
p=$(ls "$data" 2>/dev/null | sed -n 's|^levels-\([0-9]*\)\.h5$|\1|p' | grep -vx 100 | sort -n | tail -n 1 || true)
[ -n "$p" ] || die "no committed table $data/levels-N.h5"
in_repo=0
if [ "$(realpath -m "$data")" = "$(realpath -m data)" ]; then in_repo=1; elif [ "$notebooks" = 1 ]; then
  die "NOTEBOOKS=1 reads the repository's data/, not $data: set NOTEBOOKS=0"
fi

if [ "$k" -lt "$p" ]; then
  die "level $k is below the committed table $data/levels-$p.h5; nothing to promote"
elif [ "$k" -gt "$p" ]; then
  [ -f "$run" ] || die "no run file $run (give RUN.h5 as the second argument)"
  # The run's last finished level (chomp show reads a file the run has open).
  last=$("$chomp" show "$run" --csv | awk -F, '$1 ~ /^[0-9]+$/ {n = $1} END {print n + 0}')
  [ "$k" -le "$last" ] || die "the run has finished levels 1..$last only; wait for level $k or promote $last"
  # The committed tables' marks count every move examined: a run that
  # inferred its first rows' moves from bits counted fewer, and its table
  # would make every later run's marks differ from data/.
  way=$("$chomp" show "$run" --json | "$python" -c 'import json, sys; print(json.load(sys.stdin)["attributes"].get("inferred_marks", "none"))')
  [ "$way" = none ] || die "the run inferred the marks of its first rows' moves (inferred_marks = $way): its marks are" \
    "not every move, as the committed tables' are; promote a run made with chomp sieve --file-all-marks"

  mkdir -p "$out_dir"
  report=$out_dir/verify-$((p + 1))-$k.txt
  echo "1. checking levels $((p + 1))..$k of $run (report: $report)"
  if ! "$chomp" verify "$run" --finished --from $((p + 1)) --to "$k" --moves "$moves" ${THREADS:+-t "$THREADS"} \
      >"$report" 2>&1; then
    cat "$report" >&2
    die "chomp verify failed: nothing was promoted"
  fi
  summary=$(sed -n '/ passed:$/,$p' "$report")
  echo "$summary"
  compared=0
  "$python" experiments/compare_levels.py "$run" --chomp "$chomp" --data "$data" || compared=$?
  case $compared in
    0) ;;
    1) die "the run's levels differ from a committed table: nothing was promoted" ;;
    *) die "the run's levels could not be compared (above): nothing was promoted" ;;
  esac

  echo "2. $data/levels-$k.h5 and .csv, replacing $data/levels-$p.*"
  stage=$(mktemp -d "$data/.promote-$k.XXXXXX")
  trap 'rm -rf "$stage"' EXIT
  "$python" experiments/h5_levels_only.py "$run" "$stage/levels-$k.h5" --chomp "$chomp" --through "$k"
  "$python" experiments/h5_to_csv.py "$stage/levels-$k.h5"
  "$chomp" verify "$stage/levels-$k.h5" >"$stage/verify-copy.txt" 2>&1 ||
    { cat "$stage/verify-copy.txt" >&2; die "the levels-only copy fails chomp verify: nothing was promoted"; }
  mv "$stage/levels-$k.h5" "$stage/levels-$k.csv" "$data/"
  for f in "$data/levels-$p.h5" "$data/levels-$p.csv"; do
    if [ "$in_repo" = 1 ] && git ls-files --error-unmatch "$f" >/dev/null 2>&1; then git rm -q "$f"; else rm -f "$f"; fi
  done
  if [ "$in_repo" = 1 ]; then git add "$data/levels-$k.h5" "$data/levels-$k.csv"; fi
else
  echo "level $k is the committed table: refreshing the README, figure and notebooks from it"
  report=
fi

if [ "$in_repo" = 1 ]; then
  echo "3. the README's results, the figure, the notebooks on levels 1..$k, the verdict"
  "$python" experiments/readme_results.py --update
  if [ "$notebooks" = 1 ]; then
    "$python" experiments/make_figures.py "$data/levels-$k.h5" --output "$data/hypothesis_ratio.png"
    for nb in density_hypothesis combinatorial_games three_d; do
      echo "   notebooks/$nb.ipynb"
      env -u CHOMP_LEVELS_FILE -u CHOMP_POSITIONS_FILE -u CHOMP_VERDICT_FILE CHOMP_BINARY="$(realpath "$chomp")" \
        "$python" -m nbconvert --to notebook --execute --inplace \
        --ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.timeout=1200 "notebooks/$nb.ipynb"
    done
    "$python" experiments/readme_verdict.py --update
  fi
fi

echo "4. left to do by hand:"
echo "   - the files that still name levels-$p: $(grep -rlw "levels-$p" README.md doc python 2>/dev/null | tr '\n' ' ' || true)"
echo "   - $data/README.md: the row of levels-$k and the provenance of its legs"
echo "     (the run's resume_history: chomp show $run --json)"
if [ -n "$report" ]; then
  echo "     with this check (chomp verify --finished --from $((p + 1)) --to $k --moves $moves):"
  echo "$summary" | sed 's/^/       /'
fi
echo "   - then commit data/, notebooks/ and README.md together."
