// Request drivers: run a list of tree requests (YCSB-style) in batches of 500, as the
// dissertation's benchmark does (§5.5.1), three ways over the same tree:
//
//   run_on_runtime              one low-priority fetcher task per worker takes the next batch
//                               when its worker has almost nothing else to run and spawns
//                               the batch's operations as tasks (or, for lookups, as
//                               coroutines through the bridge);
//   run_on_threads              each thread takes the next batch (an atomic cursor) and runs
//                               its operations one after another: optimistic lock coupling;
//   run_interleaved_on_threads  the same, with each batch's lookups interleaved by braid's
//                               scheduler (the coroutine lookup source); writes run plainly
//                               in between.
//
// An insert request upserts (insert_or_assign): a YCSB insert of a key already there
// overwrites its value and counts as an update, as std::map::insert_or_assign would.
//
// Part of the benchmark harness (braid-bench and the B-link tree tests use it), not of the
// library.
//
// Values: a request at index i writes request_value(key, i), the key's fingerprint above the
// index, so any read can tell whether the value it returns was written for its key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "braid/core/thread_runner.hpp"
#include "braid/index/blink_tree.hpp"
#include "braid/index/blink_tree/tasks.hpp"
#include "braid/tasks/runtime.hpp"

namespace braid::bench::blink_bench {

using key_type = blink_tree::key_type;
using value_type = blink_tree::value_type;
using operation_status = blink_tree_operation_status;
using operation_result = blink_tree_operation_result;

// insert: insert_or_assign (the YCSB insert); insert_if_absent: insert, a present key keeps
// its value and the result says `present`.
enum class request_kind : std::uint8_t { insert, read, update, erase, scan, insert_if_absent };

struct request {
  key_type key = 0;
  std::uint32_t scan_length = 0;  // scan only
  request_kind kind = request_kind::read;
};
static_assert(sizeof(request) == 16);

[[nodiscard]] value_type request_value(key_type key, std::uint64_t index) noexcept;
// Whether `value` was written by some request for `key`.
[[nodiscard]] bool written_for(key_type key, value_type value) noexcept;

struct run_totals {
  std::uint64_t operations = 0;
  std::uint64_t found = 0;
  std::uint64_t absent = 0;
  std::uint64_t inserted = 0;
  std::uint64_t updated = 0;
  std::uint64_t present = 0;  // inserts that found the key and kept it
  std::uint64_t erased = 0;
  std::uint64_t scanned_entries = 0;
  value_type checksum = 0;  // sum of the values lookups found and scans saw

  void add(const operation_result& result) noexcept;
  run_totals& operator+=(const run_totals& other) noexcept;
  friend bool operator==(const run_totals&, const run_totals&) = default;
};

enum class lookup_form : std::uint8_t { tasks, coroutine_bridge };

struct driver_options {
  std::size_t batch = 500;
  lookup_form lookups = lookup_form::tasks;
};

// `results`, when not empty, receives every request's result at its index.
run_totals run_on_runtime(blink_tree& tree, tasks::runtime& tasks, std::span<const request> requests,
                          const driver_options& options = {}, std::span<operation_result> results = {});

run_totals run_on_threads(blink_tree& tree, thread_runner& threads, std::span<const request> requests,
                          std::size_t batch = 500, std::span<operation_result> results = {});

run_totals run_interleaved_on_threads(blink_tree& tree, thread_runner& threads, std::span<const request> requests,
                                      std::size_t batch = 500, std::size_t group = 16,
                                      std::span<operation_result> results = {});

// What std::map answers to each request in order, starting from `map`'s contents (which the
// requests change as the drivers' do): the results every driver must report.
std::vector<operation_result> reference_results(std::span<const request> requests, std::map<key_type, value_type>& map);

}  // namespace braid::bench::blink_bench
