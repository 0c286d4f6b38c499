#!/bin/sh
# tools/fuzz-deep-states.sh NAME [REGEX]: how deep a fuzz target's corpus reaches. Runs
# build/asan/tests/fuzz/braid_fuzz_NAME once over its corpus (build/fuzz/corpus/NAME and the
# seeds in tests/fuzz/corpus/NAME) with libFuzzer's -print_coverage=1 and lists the functions
# whose names match REGEX (default: the structural changes — splits, merges, borrows,
# rebalancing, growth, new layers and roots, consolidation), covered or not, with the edges of
# each that the corpus executed.
set -eu
name=${1:?usage: tools/fuzz-deep-states.sh NAME [REGEX]}
pattern=${2:-split|merge|borrow|rebalance|grow|layer|root|consolidat|parent|separator|remove_from_inner|free_node}
corpora=
for directory in build/fuzz/corpus/"$name" tests/fuzz/corpus/"$name"; do
  [ -d "$directory" ] && corpora="$corpora $directory"
done
symbolizer=$(command -v llvm-symbolizer-19 || command -v llvm-symbolizer || true)
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer"
# shellcheck disable=SC2086
build/asan/tests/fuzz/braid_fuzz_"$name" -runs=0 -print_coverage=1 $corpora 2>&1 |
  grep -E '^(UN)?COVERED_FUNC:' |
  sed -E 's/^COVERED_FUNC: hits: [0-9]+ edges: ([0-9]+\/[0-9]+) ([^(]*)\(.*/  covered   \1  \2/;
          s/^UNCOVERED_FUNC: hits: [0-9]+ edges: ([0-9]+\/[0-9]+) ([^(]*)\(.*/  UNCOVERED \1  \2/' |
  grep -v '_FUNC:' | grep -E "$pattern" | grep -v -E 'std::|fuzzer::|__' | sort -u
