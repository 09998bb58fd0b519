#!/usr/bin/env bash
# Times whole runs of `chomp sieve` beside the straightforward push sieve
# (benchmarks/naive_sieve.cpp), for each N and thread count, and appends
# wall time, CPU time and peak memory to a CSV.
#
# Usage (from anywhere in the repository, after scripts/build.sh):
#
#   experiments/bench_sieve.sh [CSV [N...]]        default: experiments/results/bench.csv 90 100 110
#
# Each run's output (for chomp: the per-level table, the memory plan and the
# time by phase) goes to out/bench-PROGRAM-N-THREADS.log (LOGS: another
# folder). A scaling curve on a larger machine:
# THREADS="1 2 4 8 16" NAIVE=0 experiments/bench_sieve.sh FILE.csv 110 120
#
# A run with t threads is confined to the first t CPUs this script may use
# (taskset), so that it has as many CPUs as threads: unconfined, a 1-thread
# run still writes its file on a second CPU. (Where CPUs are hyperthreads,
# the first t may share cores.) The CSV's cpus column says how many CPUs a
# run could use (PIN=0 runs every program on all of them; PIN=last confines
# a run of t threads to the last t CPUs instead of the first, for a
# machine whose first CPUs are busier: the lent 16-CPU machine's CPUs 0-1
# took more CPU time for the same run, and so did this project's CPU 0
# while the long run ran beside it; doc/PERFORMANCE.md, *Thread scaling*).
#
# Comparing two builds on a noisy machine: alternate them, several rounds,
# e.g. CHOMPS="build/chomp /tmp/old/build/chomp" ROUNDS=3 NAIVE=0
# experiments/bench_sieve.sh FILE.csv 100; each row's git_revision says
# which binary it was.
#
# What slices cost: SLICES="1 2 4" SLICE_FROM=100 runs chomp once per value
# with --slices K --slice-from F (every level from F on alone in its window,
# in K slices; 1: whole), recorded as program chomp-slicesK.
#
# Another chomp at work (the long run, most often) is refused, with its
# pid: its work and its memory would change the timings and the windows
# of the runs (experiments/alone.sh says how). Stop it first
# (experiments/long_run.sh --stop), or set BESIDE=1 to time anyway.
#
# Environment: THREADS (default "1 2"), NAIVE=0 to skip the naive sieve,
# NAIVE_THREADS (default: THREADS) the thread counts it runs with,
# NAIVE_MAX (default 110) the largest N given to it (it holds every level's bitmap),
# CHOMPS (default build/chomp) the chomp binaries, each run in turn,
# ROUNDS (default 1) how many times every run is repeated, round after round,
# LOGS the folder for the runs' logs and files (default: the checkout's
# out/; a relative path is the caller's), BESIDE=1 to time beside another
# chomp.
set -euo pipefail
caller=$PWD  # a CSV given by a relative path is the caller's, not the checkout's
cd "$(dirname "$0")/.."

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
case ${1:-} in
  -h|--help) usage; exit 0 ;;
  ''|*.csv) ;;
  *) echo "error: the first argument is the CSV file and must end in .csv, not '${1}'; see --help" >&2; exit 2 ;;
esac
csv=${1:-experiments/results/bench.csv}
if [ -n "${1:-}" ] && [[ $csv != /* ]]; then csv=$caller/$csv; fi
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(90 100 110)
for n in "${sizes[@]}"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "error: N must be a level number, not '$n'; see --help" >&2; exit 2; }
done
threads=${THREADS:-"1 2"}
naive_threads=${NAIVE_THREADS:-$threads}
naive_max=${NAIVE_MAX:-110}
read -r -a chomps <<< "${CHOMPS:-build/chomp}"
[ ${#chomps[@]} -gt 0 ] || { echo "error: CHOMPS names no binary" >&2; exit 2; }
rounds=${ROUNDS:-1}
read -r -a slice_counts <<< "${SLICES:-0}"
slice_from=${SLICE_FROM:-1}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "error: ROUNDS must be a positive number, not '$rounds'" >&2; exit 2; }
# A NAIVE_MAX that is not a number would fail every test of it below and
# skip every run of the push sieve without a word.
[[ $naive_max =~ ^[1-9][0-9]*$ ]] || { echo "error: NAIVE_MAX must be a level number, not '$naive_max'" >&2; exit 2; }
pin=${PIN:-1}
case $pin in
  0 | 1 | last) ;;
  *) echo "error: PIN must be 0, 1 or last, not '$pin'" >&2; exit 2 ;;
esac
naive=build/benchmarks/chomp_naive_sieve
for chomp in "${chomps[@]}"; do
  [ -x "$chomp" ] || { echo "error: $chomp is not a program: build first (scripts/build.sh)" >&2; exit 1; }
done
if [ "${NAIVE:-1}" = 1 ] && [ ! -x "$naive" ]; then
  echo "error: $naive is not built (scripts/build.sh builds the benchmarks), or set NAIVE=0" >&2
  exit 1
fi
for t in $threads ${NAIVE_THREADS:-}; do
  [[ $t =~ ^[1-9][0-9]*$ ]] || { echo "error: THREADS and NAIVE_THREADS are thread counts, not '$t'" >&2; exit 2; }
done
command -v /usr/bin/time >/dev/null || { echo "error: /usr/bin/time is needed (Debian package 'time')" >&2; exit 1; }
source experiments/alone.sh  # no other chomp at work, unless BESIDE=1
logs=${LOGS:-out}
if [ -n "${LOGS:-}" ] && [[ $logs != /* ]]; then logs=$caller/$logs; fi

header="program,max_tiles,threads,wall_s,cpu_s,peak_rss_mib,losing_at_max,git_revision,host,date_utc,cpus"
mkdir -p "$(dirname "$csv")" "$logs"
[ -f "$csv" ] || echo "$header" > "$csv"
if [ "$(head -n 1 "$csv")" != "$header" ]; then
  echo "error: $csv has other columns than \"$header\"; give a new file" >&2
  exit 1
fi
# The CPUs this script may use, one per line (from its affinity list, e.g. "0-3,8").
allowed=()
if [ "$pin" != 0 ]; then
  command -v taskset >/dev/null || { echo "error: taskset is needed to confine runs (Debian package util-linux), or set PIN=0" >&2; exit 1; }
  mapfile -t allowed < <(taskset -cp $$ | sed 's/.*: //' | tr ',' '\n' |
                         awk -F- '{ last = NF > 1 ? $2 : $1; for (c = $1; c <= last; c++) print c }')
fi
cores=$(nproc)
revision() { "$1" --version | sed 's/.*(\(.*\)).*/\1/'; }
naive_revision=unknown
if [ -x build/chomp ]; then naive_revision=$(revision build/chomp); fi

measure() {  # program n t revision command...
  local program=$1 n=$2 t=$3 rev=$4
  shift 4
  local log=$logs/bench-$program-$n-$t$tag.log
  local cpus=$cores
  local -a run=(/usr/bin/time -f "%e %U %S %M" -o "$logs/bench.time" "$@")
  if [ "$pin" != 0 ] && [ "$t" -lt "${#allowed[@]}" ]; then
    cpus=$t
    local list
    if [ "$pin" = last ]; then
      list=$(IFS=,; echo "${allowed[*]: -t}")
    else
      list=$(IFS=,; echo "${allowed[*]:0:t}")
    fi
    run=(taskset -c "$list" "${run[@]}")
  fi
  if ! "${run[@]}" > "$log" 2>&1; then
    # The rows so far stay; this run's failure is said, not only logged.
    echo "error: $program at N = $n with $t threads failed; its log, $log, ends:" >&2
    tail -n 3 "$log" >&2
    exit 1
  fi
  read -r wall user sys rss < "$logs/bench.time"
  local losing
  losing=$(awk -v n="$n" '$1 == n {print $3}' "$log" | tail -n 1)
  local cpu
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.2f", u + s}')
  local mib
  mib=$(awk -v k="$rss" 'BEGIN {printf "%.1f", k / 1024}')
  echo "$program,$n,$t,$wall,$cpu,$mib,$losing,$rev,$(hostname),$(date -u +%Y-%m-%dT%H:%M:%SZ),$cpus" | tee -a "$csv"
}

for ((round = 1; round <= rounds; round++)); do
  for n in "${sizes[@]}"; do
    for t in $threads; do
      for k in "${slice_counts[@]}"; do
        for i in "${!chomps[@]}"; do
          chomp=${chomps[i]}
          # With several binaries, each keeps its own log (-b1, -b2, ...).
          tag=$([ ${#chomps[@]} -gt 1 ] && echo "-b$((i + 1))" || true)
          program=chomp
          slicing=()
          if [ "$k" != 0 ]; then
            program=chomp-slices$k
            tag=$tag-s$k
            slicing=(--slices "$k" --slice-from "$slice_from")
          fi
          measure "$program" "$n" "$t" "$(revision "$chomp")" "$chomp" sieve --max-tiles "$n" --threads "$t" \
            --output "$logs/bench-$n.h5" --force "${slicing[@]}"
        done
      done
    done
    if [ "${NAIVE:-1}" = 1 ] && [ "$n" -le "$naive_max" ]; then
      tag=
      for t in $naive_threads; do
        # (the push sieve is built in this work tree, whatever CHOMPS names)
        measure naive "$n" "$t" "$naive_revision" "$naive" "$n" "$t"
      done
    fi
  done
done
