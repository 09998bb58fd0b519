#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs, if any are missing.
# Quick and silent when everything is there. Needs root (or sudo) to install.
set -euo pipefail
case ${1:-} in
  -h|--help) sed -n '2,3p' "$0" | sed 's/^# //'; echo "CHOMP_WITH_MPI=1 adds Open MPI (libopenmpi-dev, openmpi-bin)."; exit 0 ;;
esac

packages=(
  build-essential cmake git pkg-config time
  libtbb-dev libhdf5-dev hdf5-tools zlib1g-dev libcli11-dev libgtest-dev libbenchmark-dev
  python3-h5py python3-numpy python3-matplotlib jupyter-nbconvert python3-ipykernel
  python3-venv python3-pip python3-setuptools
)
if [ "${CHOMP_WITH_MPI:-0}" = 1 ]; then
  packages+=(libopenmpi-dev openmpi-bin)
fi

missing=()
for p in "${packages[@]}"; do
  # "install ok installed", or "hold ok installed" for a package on hold
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q " ok installed$" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing missing packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "error: run as root or install sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
$sudo apt-get update -qq
# Through env: sudo's env_reset would drop a variable set before it.
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
