#!/usr/bin/env bash
# Times `chomp sieve` on this machine as 1 process and as K = 2 and 4 MPI
# processes (mpirun on localhost, more processes than cores allowed), with
# the same total number of threads, and checks that every count agrees.
# Usage: experiments/cluster/time_local.sh [max_tiles] [total_threads] [chomp]
# (chomp built with -DCHOMP_WITH_MPI=ON; default build-mpi/chomp).
set -euo pipefail
case ${1:-} in
  -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
N=${1:-80}
THREADS=${2:-$(nproc)}
CHOMP=${3:-build-mpi/chomp}
[[ $N =~ ^[1-9][0-9]*$ && $THREADS =~ ^[1-9][0-9]*$ && $# -le 3 ]] ||
  { echo "usage: $0 [max_tiles] [total_threads] [chomp] (see --help)" >&2; exit 2; }
MPIRUN=(mpirun --oversubscribe --allow-run-as-root --mca mpi_yield_when_idle 1 --bind-to none)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

run() {  # label, threads per process, launcher words (none for one process), -- then chomp's own options
  local label=$1 threads=$2; shift 2
  local -a launcher=() extra=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do launcher+=("$1"); shift; done
  [ $# -gt 0 ] && { shift; extra=("$@"); }
  local start end
  start=$(date +%s.%N)
  "${launcher[@]}" "$CHOMP" sieve -n "$N" --threads "$threads" -o "$dir/$label.h5" --force -q "${extra[@]}" \
    2>"$dir/$label.err" ||
    { cat "$dir/$label.err"; exit 1; }
  end=$(date +%s.%N)
  local sieve
  sieve=$(sed -n 's/.*threads*, \([0-9.]*\) s[;)].*/\1/p' "$dir/$label.err")
  printf '%-4s %6.2f s wall (%s s in the sieve)\n' "$label" "$(echo "$end - $start" | bc)" "$sieve"
}

echo "chomp sieve -n $N, $THREADS threads in all, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
# MPI runs file every mark (none inferred from bits), so the single process
# does too, for the marks to compare.
run K1 "$THREADS" -- --file-all-marks
for K in 2 4; do
  run "K$K" $(( THREADS / K > 0 ? THREADS / K : 1 )) "${MPIRUN[@]}" -np "$K"
done
for K in 2 4; do
  cmp <(h5dump -d /levels/losing -d /levels/marks "$dir/K1.h5" | grep -v HDF5) \
      <(h5dump -d /levels/losing -d /levels/marks "$dir/K$K.h5" | grep -v HDF5) >/dev/null \
    && echo "K$K: every level's losing count and marks equal K1's" \
    || { echo "K$K: counts differ from K1"; exit 1; }
done
