# The two entry points of a fresh machine:
#   make test    bootstrap, build (Clang 19, release), run every test
#   make bench   bootstrap, build, run the headline benchmarks into results/
# Further targets: test-asan (ASan+UBSan), test-tsan (concurrent tests under TSan),
# test-gcc (second compiler), ci (all of them, what .ci/run calls), clean.

JOBS ?= $(shell nproc)
BENCH := build/release/bench/braid-bench
RESULTS ?= results

.PHONY: test bench bootstrap build test-asan test-tsan test-gcc ci clean

bootstrap:
	@tools/bootstrap.sh

build: bootstrap
	cmake --preset release -DBRAID_BUILD_BENCH=ON >/dev/null
	cmake --build --preset release -j $(JOBS)

test: build
	ctest --preset release -j $(JOBS)

bench: build
	$(BENCH) run switch-cost --out $(RESULTS)

test-asan: bootstrap
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

test-tsan: bootstrap
	cmake --preset tsan >/dev/null
	cmake --build --preset tsan -j $(JOBS)
	ctest --preset tsan -j $(JOBS) -L concurrent

test-gcc: bootstrap
	cmake --preset release-gcc -DBRAID_BUILD_BENCH=ON >/dev/null
	cmake --build --preset release-gcc -j $(JOBS)
	ctest --preset release-gcc -j $(JOBS)

ci: test test-asan test-gcc test-tsan

clean:
	rm -rf build
