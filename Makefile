# The two entry points of a fresh machine:
#   make test    bootstrap, build (Clang 19, release), run every test
#   make bench   bootstrap, build, run the headline benchmarks into results/
# Further targets: test-asan (ASan+UBSan), test-tsan (concurrent tests under TSan),
# test-gcc (second compiler, GCC 12 at -O2), callgrind (the braid-bench build valgrind can run, for
# `--callgrind` instruction counts), bench-smoke (every experiment and the headline in seconds),
# test-install (install into a fresh prefix; build the examples against it with find_package
# and pkg-config; compile every installed header on its own), ci (all of them, what .ci/run
# calls), fuzz (every libFuzzer target of tests/fuzz for FUZZ_SECONDS each), fuzz-smoke (the same for FUZZ_SMOKE_SECONDS each, in CI), clean.

JOBS ?= $(shell nproc)
BENCH := build/release/bench/braid-bench
RESULTS ?= results
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 4

.PHONY: test bench bootstrap build test-install test-asan test-tsan test-gcc callgrind bench-smoke ci fuzz fuzz-build fuzz-smoke clean

bootstrap:
	@tools/bootstrap.sh

build: bootstrap
	cmake --preset release -DBRAID_BUILD_BENCH=ON >/dev/null
	cmake --build --preset release -j $(JOBS)

test: build
	ctest --preset release -j $(JOBS)

# The headline table, results/report.md and the plots: at most 10 minutes on 2 cores.
bench: build
	$(BENCH) headline --out $(RESULTS)

callgrind: bootstrap
	cmake --preset callgrind >/dev/null
	cmake --build --preset callgrind -j $(JOBS)

bench-smoke: build callgrind
	JOBS=$(JOBS) tools/bench-smoke.sh

test-asan: bootstrap
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

test-tsan: bootstrap
	cmake --preset tsan >/dev/null
	cmake --build --preset tsan -j $(JOBS)
	ctest --preset tsan -j $(JOBS) -L concurrent

test-gcc: bootstrap
	cmake --preset check-gcc -DBRAID_BUILD_BENCH=ON >/dev/null
	cmake --build --preset check-gcc -j $(JOBS)
	ctest --preset check-gcc -j $(JOBS)

test-install: build
	JOBS=$(JOBS) tools/test-install.sh

ci: test test-install bench-smoke test-asan test-gcc test-tsan fuzz-smoke

# Clang + libFuzzer + ASan + UBSan: every target of tests/fuzz for FUZZ_SECONDS each (tools/fuzz.sh:
# seeded from tests/fuzz/corpus/<target>, new inputs kept in build/fuzz/corpus/<target>);
# FUZZ_TARGETS="bplus_tree_256 masstree" runs only those, JOBS at a time. fuzz-smoke (CI) gives each target
# FUZZ_SMOKE_SECONDS, so the whole run stays within a few minutes. The targets are part of the asan
# build (its library carries libFuzzer's coverage instrumentation), so after test-asan they are built.
fuzz-build: bootstrap
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS) --target braid_fuzzers

fuzz: fuzz-build
	JOBS=$(JOBS) tools/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build
	JOBS=$(JOBS) tools/fuzz.sh $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)

clean:
	rm -rf build
