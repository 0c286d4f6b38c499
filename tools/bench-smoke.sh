#!/usr/bin/env bash
# braid-bench smoke test (CI): the headline and every experiment and figure preset in their
# --quick configurations ($JOBS at a time), the usage errors (exit status 2, one line naming
# the problem), and, when the callgrind build exists, instruction counts. Seconds of
# benchmarking, not numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${BENCH:-build/release/bench/braid-bench}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$bench" headline --quick --out "$out/headline" >/dev/null
for file in report.md headline.csv machine.jsonl roofline-mlp.csv; do
  [[ -s "$out/headline/$file" ]] || { echo "bench-smoke: headline wrote no $file" >&2; exit 1; }
done

# Every experiment and preset, $JOBS at a time (each into its own directory).
run_quick() {
  "$bench" run "$1" --quick --out "$out/runs/$1" >/dev/null || { echo "bench-smoke: run $1 --quick failed" >&2; exit 1; }
  "$bench" run "$1" --help >/dev/null || { echo "bench-smoke: run $1 --help failed" >&2; exit 1; }
}
export -f run_quick
export bench out
"$bench" list --names | xargs -P "${JOBS:-$(nproc)}" -I{} bash -c 'run_quick "$1"' _ {}
for command in list run headline roofline; do "$bench" "$command" --help >/dev/null; done

# Bad input: exit status 2 and one line on stderr that names the problem.
expect_usage_error() {
  local expected=$1
  shift
  local status=0
  "$bench" "$@" >/dev/null 2>"$out/stderr" || status=$?
  if [[ $status -ne 2 ]] || [[ $(wc -l <"$out/stderr") -ne 1 ]] || ! grep -q -- "$expected" "$out/stderr"; then
    echo "bench-smoke: '$*' gave status $status and: $(cat "$out/stderr")" >&2
    exit 1
  fi
}
expect_usage_error "unknown experiment" run no-such-experiment
expect_usage_error "unknown technique" run pointer-chase --technique warp-drive --quick
expect_usage_error "--size" run pointer-chase --size 12parsecs
expect_usage_error "memory is available" run pointer-chase --size 1000GiB
expect_usage_error "--group" run pointer-chase --group 0
expect_usage_error "--threads" run pointer-chase --threads 100000 --quick
expect_usage_error "not an option" run roofline --group 4
expect_usage_error "not a setting" run pointer-chase --set mix=read-only --quick
expect_usage_error "unknown option" headline --bogus

if [[ -x build/callgrind/bench/braid-bench ]] && command -v valgrind >/dev/null; then
  "$bench" run switch-cost --quick --callgrind --format csv >"$out/counted.csv"
  grep -q instructions_per_op "$out/counted.csv" || { echo "bench-smoke: --callgrind counted nothing" >&2; exit 1; }
fi
echo "bench-smoke: passed"
