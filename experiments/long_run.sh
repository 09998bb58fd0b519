#!/usr/bin/env bash
# The long run: levels 1..N (default 170) of `chomp sieve`, in legs. Each
# call starts the run, or resumes it where the last leg stopped, in the
# background at the lowest priority, with its log beside it:
#
#   experiments/long_run.sh [N]           start or resume (returns at once; N: the folder's run's, else 170;
#                                         a finished run says so and starts nothing)
#   experiments/long_run.sh --stop        stop it cleanly (SIGTERM; waits, at most STOP_WAIT s, default 900)
#   experiments/long_run.sh --status      the level it reached, the last lines of its log (or that
#                                         the folder is gone or holds no run), and its levels against
#                                         data/: exit 1 where one differs, 2 where they cannot be
#                                         compared (build/chomp not built among the reasons)
#
# The run's folder is RUN_DIR (default /var/tmp/chomp-run), outside any work
# tree, and holds one run: levels-N.h5 (the result file, named by the N it was
# started with; a call with a larger N extends it under that name), levels-N.store (its losing positions,
# tens of GB at N = 170), levels-N.window (the window's checkpoint: written
# when the run is stopped inside a pass and every hour of one, read back by
# the next leg, which then goes on with the pass instead of starting the
# window again), leg-K.log (one log per leg, with the program's
# revision and command), rss.log (the leg's peak and current resident
# memory every five minutes), and chomp (a copy of the binary the legs run, so
# that a rebuild in the work tree does not change a running leg).
# MEMORY_LIMIT (default 18G) leaves room for other work on a 24 GiB machine.
set -euo pipefail
run_dir=${RUN_DIR:-/var/tmp/chomp-run}
# A relative RUN_DIR is the caller's, not the checkout's (the script works there).
[[ $run_dir == /* ]] || run_dir=$PWD/$run_dir
cd "$(dirname "$0")/.."

limit=${MEMORY_LIMIT:-18G}

# The pid of the folder's leg, if one runs: the pid file's process, alive
# and running the folder's own copy of the binary (a pid the system gave
# since to another chomp, a test's or a benchmark's, is not the run's).
running_pid() {
  [ -f "$run_dir/pid" ] || return 1
  local pid exe
  pid=$(cat "$run_dir/pid")
  [[ $pid =~ ^[1-9][0-9]*$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
  [ "${exe% (deleted)}" = "$(realpath "$run_dir")/chomp" ] && echo "$pid"
}

# The folder's result files, into `runs` (none where it is gone or empty).
find_runs() {
  shopt -s nullglob
  runs=("$run_dir"/levels-*.h5)
  shopt -u nullglob
}

case ${1:-} in
  -h | --help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0 ;;
  --stop)
    stop_wait=${STOP_WAIT:-900}
    [[ $stop_wait =~ ^[1-9][0-9]*$ ]] || { echo "error: STOP_WAIT must be whole seconds, not '$stop_wait'" >&2; exit 2; }
    if pid=$(running_pid); then
      # A second SIGTERM would end the run at once: one stop at a time.
      if [ -e "$run_dir/stopping" ] && [ "$(cat "$run_dir/stopping")" = "$pid" ]; then
        echo "the run (pid $pid) is stopping already (a second SIGTERM would end it at once); waiting"
      else
        echo "$pid" > "$run_dir/stopping"
        kill -TERM "$pid"
      fi
      # Saving a window's checkpoint (up to 19 GiB at N = 170) takes a minute or two.
      waited=0
      while kill -0 "$pid" 2>/dev/null; do
        if [ "$waited" -ge "$stop_wait" ]; then
          echo "error: the run (pid $pid) is still stopping after $waited s; see its log ($0 --status)." \
               "$0 --stop waits again without signalling it; kill -TERM $pid ends it at once, losing the" \
               "window's progress since its last save" >&2
          exit 1
        fi
        sleep 1; waited=$((waited + 1))
      done
      rm -f "$run_dir/stopping"
      # How the leg ended (a clean stop, or a checkpoint that could not be
      # saved), from the end of its log.
      last=$(ls -t "$run_dir"/leg-*.log 2>/dev/null | head -n 1) || true
      echo "the run (pid $pid) has ended${last:+; $last ends:}"
      [ -z "$last" ] || tail -n 3 "$last"
    else
      echo "no run is going"
    fi
    exit 0 ;;
  --status)
    running=0
    if pid=$(running_pid); then echo "running (pid $pid)"; running=1; else echo "not running"; fi
    # A folder that is gone (a new machine) or holds no run: say so, and how to start one.
    find_runs
    if [ ${#runs[@]} -eq 0 ] && [ "$running" = 0 ]; then
      if [ -d "$run_dir" ]; then where="$run_dir holds no run"; else where="$run_dir does not exist"; fi
      echo "no run: $where; $0 starts one (to 170 tiles, or N)"
      exit 0
    fi
    last=$(ls -t "$run_dir"/leg-*.log 2>/dev/null | head -n 1) || true
    [ -n "$last" ] && { echo "$last:"; tail -n 5 "$last"; }
    # Its finished levels against the committed tables (a run started
    # again is checked level by level as it comes).
    run_file=$(ls -t "$run_dir"/levels-*.h5 2>/dev/null | head -n 1) || true
    compared=0
    if [ -n "$run_file" ] && [ -x build/chomp ]; then
      python3 experiments/compare_levels.py "$run_file" || compared=$?
    elif [ -n "$run_file" ]; then
      echo "its levels not compared with data/: build/chomp is not built (scripts/build.sh)"
      compared=2
    fi
    exit "$compared" ;;
esac

n=${1:-}
[[ -z $n || $n =~ ^[1-9][0-9]*$ ]] && [ $# -le 1 ] || { echo "usage: $0 [N] | --stop | --status" >&2; exit 2; }
mkdir -p "$run_dir"
# One start at a time: two at once would each find no leg running. (The
# lock's descriptor is closed for the leg and its memory logger, so that it
# ends with this script.)
exec 9> "$run_dir/start.lock"
flock -n 9 || { echo "error: another $0 is starting the run in $run_dir; $0 --status shows where it is" >&2; exit 1; }
if pid=$(running_pid); then
  echo "the run is going already (pid $pid); $0 --status shows where"
  exit 0
fi
[ -x build/chomp ] || { echo "error: build first (scripts/build.sh)" >&2; exit 1; }
# The folder's run, whatever N it was started with: without N it goes on to
# the N it was started or last extended with, a larger N extends it (its
# file keeps its name), and a smaller one is refused.
find_runs
if [ ${#runs[@]} -gt 1 ]; then
  echo "error: $run_dir holds more than one run (${runs[*]}); move all but one aside" >&2; exit 1
elif [ ${#runs[@]} -eq 1 ]; then
  out=${runs[0]}
  about=$(build/chomp show "$out" --json 2>/dev/null |
          python3 -c 'import json, sys; a = json.load(sys.stdin)["attributes"]; print(a["max_tiles"], a.get("complete", 0))' \
          2>/dev/null) || true
  read -r planned complete <<< "$about" || true
  [ -n "$planned" ] || { echo "error: cannot read the --max-tiles of $out (build/chomp show $out)" >&2; exit 1; }
  n=${n:-$planned}
  # A finished run has nothing to resume: a leg would only check its levels.
  if [ "$n" = "$planned" ] && [ "$complete" = 1 ]; then
    echo "the folder's run $out is complete (levels 1..$planned): nothing to resume; $0 --status compares" \
         "its levels with data/, and $0 N with N > $planned extends it"
    exit 0
  fi
  if [ "$n" -lt "$planned" ]; then
    echo "error: $out is a run to $planned tiles; it goes on to $planned ($0 $planned, or $0) or further" >&2; exit 2
  fi
  # A window's checkpoint is continued only by the --max-tiles it was saved
  # with (another plans other windows): finish it first.
  if [ "$n" != "$planned" ] && [ -e "${out%.h5}.window" ]; then
    echo "error: ${out%.h5}.window holds a stopped window of $out, which only a resume to the run's own" \
         "--max-tiles ($planned) continues; finish the run first ($0 $planned), then extend it" >&2
    exit 1
  fi
  [ "$n" = "$planned" ] || echo "note: extending the folder's run $out from $planned to $n tiles"
else
  n=${n:-170}
  out=$run_dir/levels-$n.h5
fi
version=$(build/chomp --version)
case $version in
  *-dirty*) echo "note: build/chomp is built from uncommitted changes ($version): the leg's log names a" \
                 "revision that no commit holds" >&2 ;;
esac
cp build/chomp "$run_dir/chomp.new" && mv "$run_dir/chomp.new" "$run_dir/chomp"
# The next leg: one above the highest log's number (a log moved aside does
# not make a later one's number come again), never over an existing log.
legs=0
for f in "$run_dir"/leg-*.log; do
  k=${f##*/leg-}; k=${k%.log}
  [[ $k =~ ^[0-9]+$ ]] && [ "$k" -gt "$legs" ] && legs=$k
done
log=$run_dir/leg-$((legs + 1)).log
[ ! -e "$log" ] || { echo "error: $log exists already; move it aside" >&2; exit 1; }
{
  echo "# leg $((legs + 1)): $(date -u +%Y-%m-%dT%H:%M:%SZ), $("$run_dir/chomp" --version), host $(hostname)"
  echo "# nice -n 19 $run_dir/chomp sieve --max-tiles $n --output $out --resume --memory-limit $limit --file-all-marks"
} > "$log"
# --file-all-marks: the committed tables' marks count every move, and
# promote_levels.sh refuses a run whose marks leave out the inferred ones
# (at 170 in 18G the plan infers none anyway: the rows' bits do not fit).
nohup nice -n 19 "$run_dir/chomp" sieve --max-tiles "$n" --output "$out" --resume \
  --memory-limit "$limit" --file-all-marks >> "$log" 2>&1 < /dev/null 9>&- &
pid=$!
# The pid file names the new leg at once (were this script stopped in the
# seconds below, --stop and --status would still find it); a leg refused
# at once gives the last leg's pid back.
previous=$(cat "$run_dir/pid" 2>/dev/null) || previous=
echo "$pid" > "$run_dir/pid.new" && mv "$run_dir/pid.new" "$run_dir/pid"
# The leg's memory, every five minutes while it runs, for
# experiments/long_run_table.py: "UNIX-SECONDS VmHWM-KiB VmRSS-KiB", after a
# line "# leg K" (which the table groups the peaks by).
echo "# leg $((legs + 1))" >> "$run_dir/rss.log"
nohup bash -c 'while [ -r /proc/'"$pid"'/status ]; do
  awk -v t="$(date +%s)" '"'"'/^VmHWM/ {h = $2} /^VmRSS/ {r = $2} END {if (h) print t, h, r}'"'"' /proc/'"$pid"'/status
  sleep 300; done' >> "$run_dir/rss.log" 2>/dev/null < /dev/null 9>&- &
# A leg refused at once (a file of another command or of 3D Chomp in the
# folder, a damaged store) says so here, not only in its log.
sleep 3
if ! kill -0 "$pid" 2>/dev/null; then
  status=0
  wait "$pid" || status=$?
  if [ "$status" != 0 ]; then
    if [ -n "$previous" ]; then echo "$previous" > "$run_dir/pid"; else rm -f "$run_dir/pid"; fi
    echo "error: leg $((legs + 1)) ended at once (exit status $status); $log ends:" >&2
    tail -n 3 "$log" >&2
    exit 1
  fi
  echo "leg $((legs + 1)) finished at once; log: $log"
  exit 0
fi
echo "leg $((legs + 1)) started (pid $pid); log: $log"
