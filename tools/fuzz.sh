#!/bin/sh
# tools/fuzz.sh SECONDS [NAME...]: runs libFuzzer targets of build/fuzz (all, or the named ones:
# `bplus_tree_256` for braid_fuzz_bplus_tree_256) for SECONDS each, one after another, seeded
# from the committed corpus tests/fuzz/corpus/NAME and from build/fuzz/corpus/NAME (where new
# inputs go, so longer runs build on earlier ones). Each run's log is build/fuzz/logs/NAME.log;
# a failing input is saved as build/fuzz/artifacts/NAME-crash-*. Prints one line per target
# (executions per second, coverage and features at the end) and stops at the first failure.
set -eu
seconds=${1:?usage: tools/fuzz.sh SECONDS [NAME...]}
shift
build=build/fuzz/tests/fuzz
if [ $# -eq 0 ]; then
  set --
  for fuzzer in "$build"/braid_fuzz_*; do set -- "$@" "$(basename "$fuzzer" | sed 's/^braid_fuzz_//')"; done
fi
mkdir -p build/fuzz/logs build/fuzz/artifacts
# Stack traces with function names, where a symbolizer is installed.
symbolizer=$(command -v llvm-symbolizer-19 || command -v llvm-symbolizer || true)
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer" UBSAN_SYMBOLIZER_PATH="$symbolizer"
for name in "$@"; do
  fuzzer=$build/braid_fuzz_$name
  [ -x "$fuzzer" ] || { echo "fuzz: no target $fuzzer (build braid_fuzzers first)" >&2; exit 2; }
  corpus=build/fuzz/corpus/$name
  seeds=tests/fuzz/corpus/$name
  mkdir -p "$corpus"
  [ -d "$seeds" ] || seeds=
  log=build/fuzz/logs/$name.log
  if ! "$fuzzer" -max_total_time="$seconds" -timeout=30 -print_final_stats=1 \
      -artifact_prefix=build/fuzz/artifacts/"$name"- "$corpus" $seeds >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz: $name FAILED (log: $log)" >&2
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
  printf 'fuzz: %-22s %4ss %9s runs %7s exec/s  cov %6s  ft %7s\n' "$name" "$seconds" "$runs" "$rate" "$cov" "$ft"
done
