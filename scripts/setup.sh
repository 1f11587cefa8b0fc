#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages, with apt-get, as root), configures and builds
# blockvec in build/, then runs the main job: `blockvec demo`.
#   scripts/setup.sh            install, build, demo
#   scripts/setup.sh --no-demo  install and build only (CI)
# Safe to run again: it installs nothing that is already there and rebuilds incrementally.
set -euo pipefail
cd "$(dirname "$0")/.."

demo=1
for arg in "$@"; do
  case "$arg" in
    --no-demo) demo=0 ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

mapfile -t wanted < <(grep -v '^\s*#' scripts/deps.txt | sed '/^\s*$/d')
missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup.sh: installing ${#missing[@]} missing package(s): ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then SUDO=sudo; else
      echo "setup.sh: these packages are missing and installing them needs root: ${missing[*]}" >&2
      echo "          run this script as root, or install them with apt-get first" >&2
      exit 1
    fi
  else SUDO=""; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"

if ((demo)); then
  echo
  build/cli/blockvec demo
fi
