#!/usr/bin/env bash
# tools/fuzz.sh SECONDS [NAME...]: runs libFuzzer targets of build/asan (all, or the named ones:
# `bplus_tree_256` for braid_fuzz_bplus_tree_256) for SECONDS each, JOBS of them at a time (default:
# the number of CPUs), seeded from the committed corpus tests/fuzz/corpus/NAME and from
# build/fuzz/corpus/NAME (where new inputs go, so longer runs build on earlier ones). Each run's
# log is build/fuzz/logs/NAME.log; a failing input is saved as build/fuzz/artifacts/NAME-crash-*.
# Prints one line per target (executions per second, coverage and features at the end), in the
# order given; after a failure no further target starts, and the script exits 1 with the failing
# log's tail once the running ones are done.
set -euo pipefail
seconds=${1:?usage: tools/fuzz.sh SECONDS [NAME...]}
shift
jobs=${JOBS:-$(nproc)}
build=build/asan/tests/fuzz
if [ $# -eq 0 ]; then
  for fuzzer in "$build"/braid_fuzz_*; do set -- "$@" "$(basename "$fuzzer" | sed 's/^braid_fuzz_//')"; done
fi
for name in "$@"; do
  [ -x "$build/braid_fuzz_$name" ] || { echo "fuzz: no target $build/braid_fuzz_$name (make fuzz-build first)" >&2; exit 2; }
done
mkdir -p build/fuzz/logs build/fuzz/artifacts build/fuzz/status
# Stack traces with function names, where a symbolizer is installed.
symbolizer=$(command -v llvm-symbolizer-19 || command -v llvm-symbolizer || true)
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer" UBSAN_SYMBOLIZER_PATH="$symbolizer"

# One target: its exit status goes to build/fuzz/status/NAME.
fuzz_one() {
  local name=$1 corpus=build/fuzz/corpus/$1 seeds=tests/fuzz/corpus/$1 status=0
  mkdir -p "$corpus"
  [ -d "$seeds" ] || seeds=
  "$build/braid_fuzz_$name" -max_total_time="$seconds" -timeout=30 -print_final_stats=1 \
    -artifact_prefix=build/fuzz/artifacts/"$name"- "$corpus" $seeds >"build/fuzz/logs/$name.log" 2>&1 || status=$?
  echo "$status" >"build/fuzz/status/$name"
}

summary() {
  local name=$1 log=build/fuzz/logs/$1.log runs rate last cov ft
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
  printf 'fuzz: %-22s %4ss %9s runs %7s exec/s  cov %6s  ft %7s\n' "$name" "$seconds" "$runs" "$rate" "$cov" "$ft"
}

failed() {
  local status_file
  for status_file in build/fuzz/status/*; do
    [ -e "$status_file" ] && [ "$(cat "$status_file")" != 0 ] && return 0
  done
  return 1
}

rm -f build/fuzz/status/*
running=0
for name in "$@"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  failed && break
  fuzz_one "$name" &
  running=$((running + 1))
done
wait || true

status=0
for name in "$@"; do
  [ -e "build/fuzz/status/$name" ] || continue
  if [ "$(cat "build/fuzz/status/$name")" != 0 ]; then
    tail -n 40 "build/fuzz/logs/$name.log" >&2
    echo "fuzz: $name FAILED (log: build/fuzz/logs/$name.log)" >&2
    status=1
  else
    summary "$name"
  fi
done
exit "$status"
