#!/usr/bin/env bash
# Installs the Debian packages braid needs when any is missing. Idempotent: does nothing
# (and needs no root) when everything is present. Called by `make test` and `make bench`.
set -euo pipefail

packages=(
  cmake ninja-build g++ clang-19 libclang-rt-19-dev   # compilers, sanitizer runtimes
  googletest libgtest-dev                             # tests (built from source with our flags)
  libboost-context-dev                                # stackful fiber comparator
  libabsl-dev                                         # peer baselines (flat_hash_map, btree_map)
  gnuplot-nox                                         # PNG plots in braid-bench reports
  valgrind                                            # instruction counts (callgrind)
  pkgconf                                             # the pkg-config check of the installed package
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done

[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "bootstrap: installing missing packages: ${missing[*]}" >&2
if [[ $(id -u) -ne 0 ]]; then
  echo "bootstrap: must run as root to install packages (or install them yourself): ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
