# Sourced by experiments/bench_sieve.sh and experiments/thread_scaling.sh:
# refuses to time runs while another chomp is at work (the long run, most
# often). Its work takes CPU time and memory bandwidth, and its memory
# lowers the budget each timed run plans its windows with (nine tenths of
# MemAvailable: with the long run holding 16 GB, N = 110 planned a budget
# of 5.6 GiB instead of about 20), so the timings would not be of the runs
# asked for. BESIDE=1 times anyway. Reads /proc (no procps needed).
if [ "${BESIDE:-0}" != 1 ]; then
  others=()
  for proc in /proc/[0-9]*; do
    [ "$(cat "$proc/comm" 2>/dev/null)" = chomp ] || continue
    # (A process that ends during the scan is passed over: its files are gone.)
    cmdline=$({ tr '\0' ' ' < "$proc/cmdline"; } 2>/dev/null | sed 's/ $//') || continue
    others+=("pid ${proc#/proc/}: $cmdline")
  done
  if [ ${#others[@]} -gt 0 ]; then
    list=$(printf '%s; ' "${others[@]}")
    echo "error: chomp is running beside this benchmark (${list%; }): its work and its memory (a run's budget is" \
         "nine tenths of MemAvailable) would change the timings and the windows; stop it first" \
         "(experiments/long_run.sh --stop for the long run), or set BESIDE=1 to time anyway" >&2
    exit 1
  fi
  unset others list proc cmdline
fi
