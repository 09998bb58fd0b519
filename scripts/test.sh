#!/usr/bin/env bash
# The README's second command: install what is missing, build, run every test.
# Extra arguments go to ctest (e.g. -R Resume, -L mpi).
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1:-} in
  -h|--help) sed -n '2,3p' "$0" | sed 's/^# //'; exit 0 ;;
esac
bash scripts/deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
# The MPI tests are built only in a tree configured with MPI (as .ci/run
# configures it): say so when this one is not, rather than let "every test"
# include them silently.
if ! ctest --test-dir build -L mpi -N | grep -q "Total Tests: [1-9]"; then
  echo "note: the MPI tests are not in this build; to run them too: CHOMP_WITH_MPI=1 bash scripts/deps.sh &&" \
       "bash scripts/build.sh -DCHOMP_WITH_MPI=ON && bash scripts/test.sh"
fi
