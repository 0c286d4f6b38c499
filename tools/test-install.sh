#!/usr/bin/env bash
# braid as a dependency, as another project sees it: installs the release build into a fresh
# prefix, then (1) builds and runs the examples as an outside CMake project that finds braid
# with find_package(braid CONFIG REQUIRED), (2) builds one example through pkg-config alone,
# (3) compiles every installed header on its own, so a header that leans on another one it
# does not include, or on a private include path, fails here, and (4) builds an example in a
# project that pulls braid's source tree in with add_subdirectory (as FetchContent does),
# whose own code braid's warning flags must not reach.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build/release}
jobs=${JOBS:-$(nproc)}
compiler=${CXX:-clang++-19}
work=build/install-check
rm -rf "$work"
prefix=$PWD/$work/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null

# (1) find_package
cmake -S examples -B "$work/examples" -G Ninja -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/examples" -j "$jobs" >/dev/null
ctest --test-dir "$work/examples" --output-on-failure >/dev/null

# (2) pkg-config
pc_dir=$(dirname "$(find "$prefix" -name braid.pc | head -n 1)")
# shellcheck disable=SC2046  # pkg-config's flags are separate words
"$compiler" examples/lookup_once.cpp $(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags --libs braid) -o "$work/lookup_once"
"$work/lookup_once" >/dev/null

# (3) every header on its own, $jobs at a time
check_header() {
  echo "#include <$1>" | "$compiler" -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror -I "$prefix/include" -x c++ - ||
    { echo "test-install: $1 does not compile on its own" >&2; exit 1; }
}
export -f check_header
export compiler prefix
headers=$(cd "$prefix/include" && find braid -name '*.hpp' | sort)
count=$(wc -l <<<"$headers")
xargs -P "$jobs" -I{} bash -c 'check_header "$1"' _ {} <<<"$headers"

# (4) add_subdirectory: braid builds only its library, leaves the parent's build type alone (none
# here), and a parent's code that braid's -Wextra -Werror would refuse (an unused parameter) still
# builds.
mkdir -p "$work/parent"
echo 'int lenient(int unused) { return 0; }' >"$work/parent/lenient.cpp"
cat >"$work/parent/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(parent LANGUAGES CXX)
add_subdirectory($PWD braid)
if(NOT "\${CMAKE_BUILD_TYPE}" STREQUAL "")
  message(FATAL_ERROR "braid set the build type of a project that includes it to \${CMAKE_BUILD_TYPE}")
endif()
foreach(option BRAID_BUILD_TESTS BRAID_BUILD_BENCH BRAID_BUILD_EXAMPLES BRAID_NATIVE)
  if(\${option})
    message(FATAL_ERROR "\${option} is on in a project that includes braid")
  endif()
endforeach()
if(TARGET braid_bench_support)
  message(FATAL_ERROR "a project that includes braid builds braid-bench's support library")
endif()
add_executable(parent_example $PWD/examples/lookup_once.cpp)
target_link_libraries(parent_example PRIVATE braid::braid)
add_library(parent_lenient STATIC lenient.cpp)
target_link_libraries(parent_lenient PRIVATE braid::braid)
CMAKE
cmake -S "$work/parent" -B "$work/parent/build" -G Ninja -DCMAKE_CXX_COMPILER="$compiler" >/dev/null
cmake --build "$work/parent/build" -j "$jobs" >/dev/null
"$work/parent/build/parent_example" >/dev/null

echo "test-install: passed (examples via find_package and pkg-config, $count headers on their own, add_subdirectory)"
