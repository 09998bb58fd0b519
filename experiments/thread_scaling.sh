#!/usr/bin/env bash
# The thread-scaling curve of `chomp sieve`: whole runs to N with 1, 2, 4, 8
# and 16 threads (each confined to as many CPUs, by experiments/bench_sieve.sh),
# then one table: wall and CPU seconds, the speed-up and efficiency against
# the fewest threads, and the time by phase each run prints.
#
#   experiments/thread_scaling.sh [N=120]        after scripts/build.sh
#
# Environment: THREADS (default "1 2 4 8 16"; counts above the CPUs this
# script may use are skipped), ROUNDS (default 1), CSV (default
# experiments/results/scaling-HOST.csv), WARMUP=0 to skip the unrecorded
# first run, LOGS the runs' logs (default: the checkout's out/; a relative
# path is the caller's), BESIDE=1 to time beside another chomp (refused
# otherwise, as by experiments/bench_sieve.sh). Speed-up and efficiency
# are against the fewest threads. A run of t threads takes the first t
# CPUs: where those are slower than the rest (on the lent 16-CPU machine
# the runs confined to CPUs 0 and 0-1 took more CPU seconds than a
# 4-thread run did), compare the runs'
# CPU seconds before reading the curve, or confine them to the last CPUs
# with PIN=last (passed on to experiments/bench_sieve.sh). On the lent
# 16-CPU machine N = 120 took about 6 minutes for the five runs together
# (1 thread 163 s, 16 threads 22 s); on this project's 2 cores, 1 thread
# ~110-140 s and 2 threads ~55-65 s. The table goes to stdout and to CSV.table.
set -euo pipefail
caller=$PWD  # a CSV given by a relative path is the caller's, not the checkout's
cd "$(dirname "$0")/.."
case ${1:-} in
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
n=${1:-120}
[[ $n =~ ^[1-9][0-9]*$ ]] && [ $# -le 1 ] || { echo "usage: $0 [N] (see --help)" >&2; exit 2; }
[ -x build/chomp ] || { echo "error: build first (scripts/build.sh)" >&2; exit 1; }
csv=${CSV:-experiments/results/scaling-$(hostname).csv}
if [ -n "${CSV:-}" ] && [[ $csv != /* ]]; then csv=$caller/$csv; fi
cpus=$(taskset -cp $$ 2>/dev/null | sed 's/.*: //' | tr ',' '\n' |
       awk -F- '{ n += (NF > 1 ? $2 - $1 + 1 : 1) } END { print n }')
[ -n "$cpus" ] || cpus=$(nproc)
threads=()
for t in ${THREADS:-1 2 4 8 16}; do
  [[ $t =~ ^[1-9][0-9]*$ ]] || { echo "error: THREADS holds '$t', not a thread count" >&2; exit 2; }
  if [ "$t" -le "$cpus" ]; then threads+=("$t"); else echo "skipping $t threads: $cpus CPUs here" >&2; fi
done
[ ${#threads[@]} -gt 0 ] || { echo "error: no thread count fits $cpus CPUs" >&2; exit 1; }
# No other chomp at work, unless BESIDE=1 (checked before the warm-up too).
source experiments/alone.sh
# The runs' logs, which the table reads (bench_sieve.sh's LOGS).
logs=${LOGS:-out}
if [ -n "${LOGS:-}" ] && [[ $logs != /* ]]; then logs=$caller/$logs; fi
export LOGS=$logs
echo "# $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $cpus CPUs, $(build/chomp --version)" >&2
# A fresh (virtual) machine pays for its first touches of memory, which
# made the first run of a lent machine's curve slower (doc/PERFORMANCE.md,
# *Thread scaling*): one unrecorded run with the most threads first.
if [ "${WARMUP:-1}" = 1 ]; then
  most=$(printf '%s\n' "${threads[@]}" | sort -n | tail -n 1)
  echo "# warm-up: N = $((n > 100 ? n - 10 : n)), $most threads (not recorded)" >&2
  mkdir -p "$logs"
  build/chomp sieve --max-tiles $((n > 100 ? n - 10 : n)) --threads "$most" --output "$logs/warmup.h5" --force > /dev/null
fi
# A table from an earlier call must not stand for this one if a run fails.
rm -f "$csv.table"
# bench_sieve.sh's settings named here, whatever the caller exported (its
# CHOMPS or SLICES would write other logs than the table reads); PIN and
# BESIDE go on.
CHOMPS=build/chomp SLICES=0 THREADS="${threads[*]}" NAIVE=0 ROUNDS=${ROUNDS:-1} experiments/bench_sieve.sh "$csv" "$n"

# One line per thread count: the last round's row of this N and revision,
# and the phase times from that run's log.
rev=$(build/chomp --version | sed 's/.*(\(.*\)).*/\1/')
{
  printf '%7s %9s %9s %8s %6s %9s %9s %9s %9s %9s %9s\n' threads wall_s cpu_s speedup eff filing_s applying_s transp_s scan_s open_s tails_s
  # Speed-up and efficiency against the run with the fewest threads
  # (THREADS may list them in any order).
  least=$(printf '%s\n' "${threads[@]}" | sort -n | head -n 1)
  base=$(awk -F, -v n="$n" -v t="$least" -v r="$rev" '$1 == "chomp" && $2 == n && $3 == t && $8 == r' "$csv" |
         tail -n 1 | cut -d, -f4)
  for t in "${threads[@]}"; do
    row=$(awk -F, -v n="$n" -v t="$t" -v r="$rev" '$1 == "chomp" && $2 == n && $3 == t && $8 == r' "$csv" | tail -n 1)
    wall=$(cut -d, -f4 <<< "$row")
    cpu=$(cut -d, -f5 <<< "$row")
    phases=$(sed -n 's/^time by phase: filing marks \([0-9.]*\) s, applying them \([0-9.]*\) s, transposes \([0-9.]*\) s, scanning levels \([0-9.]*\) s, opening windows \([0-9.]*\) s\(, tails \([0-9.]*\) s\)\{0,1\}$/\1 \2 \3 \4 \5 \7/p' \
             "$logs/bench-chomp-$n-$t.log" | tail -n 1)
    awk -v t="$t" -v w="$wall" -v c="$cpu" -v b="$base" -v l="$least" -v p="$phases" 'BEGIN {
      split(p, f, " ");
      printf "%7d %9.2f %9.2f %8.2f %6.2f %9s %9s %9s %9s %9s %9s\n", t, w, c, b / w, b / w * l / t, f[1], f[2], f[3], f[4], f[5], f[6] }'
  done
} | tee "$csv.table"
