// libFuzzer target: the B-link tree in its task form, on one worker of the task runtime with
// one request in flight (so the order is the input's): inserts (upserts), inserts of absent
// keys, reads, updates, erases and scans decoded from the input, runs of many keys included,
// run by the request driver as tasks (lookups as tasks or through the coroutine bridge), each
// result against std::map; then the tree's consistency and its whole contents.
#include <map>
#include <vector>

#include "blink_tree_driver.hpp"
#include "braid/index/blink_tree.hpp"
#include "index_fuzz_harness.hpp"

namespace {

namespace blink = braid::bench::blink_bench;
using braid::fuzzing::fuzz_check;
using braid::fuzzing::fuzz_input;
using keys = braid::fuzzing::unsigned_keys;
using reference_map = std::map<blink::key_type, blink::value_type>;

braid::tasks::runtime& one_worker() {
  static braid::tasks::runtime runtime([] {
    braid::tasks::runtime_config config;
    config.workers = 1;
    config.low_priority_below = 1;  // the fetcher waits until the one request in flight is done
    return config;
  }());
  return runtime;
}

constexpr std::size_t max_requests = 20'000;

std::vector<blink::request> decode_requests(fuzz_input& input) {
  using blink::request_kind;
  static constexpr request_kind kinds[] = {request_kind::insert, request_kind::insert_if_absent, request_kind::read,
                                           request_kind::update, request_kind::erase, request_kind::scan};
  std::vector<blink::request> requests;
  while (!input.empty() && requests.size() < max_requests) {
    const std::uint8_t choice = input.byte() % 8;
    if (choice < 6) {
      const std::uint32_t length = input.byte() >= 240 ? 1'000 : 1 + input.byte() % 30;
      requests.push_back({keys::decode(input), length, kinds[choice]});
      continue;
    }
    const blink::key_type base = keys::decode(input);
    const braid::fuzzing::run_shape shape = braid::fuzzing::decode_run(input, 4096);  // three levels of 60-key nodes
    const request_kind kind = choice == 6 ? request_kind::insert : request_kind::erase;
    for (std::size_t n = 0; n < shape.count && requests.size() < max_requests; ++n) {
      requests.push_back({keys::nth_after(base, n, shape.stride), 0, kind});
    }
  }
  return requests;
}

bool writes(blink::request_kind kind) {
  return kind != blink::request_kind::read && kind != blink::request_kind::scan;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz_input input(data, size);
  braid::blink_tree_options options;
  options.value_step = input.byte() % 2 == 0;
  const blink::lookup_form lookups = input.byte() % 2 == 0 ? blink::lookup_form::tasks : blink::lookup_form::coroutine_bridge;
  const std::vector<blink::request> requests = decode_requests(input);
  reference_map reference;
  const std::vector<blink::operation_result> expected = blink::reference_results(requests, reference);

  braid::blink_tree tree(one_worker(), options);
  std::vector<blink::operation_result> actual(requests.size());
  blink::run_on_runtime(tree, one_worker(), requests, {.batch = 1, .lookups = lookups}, actual);
  for (std::size_t index = 0; index < requests.size(); ++index) {
    fuzz_check(actual[index].status == expected[index].status, "task form: status");
    if (!writes(requests[index].kind)) {
      fuzz_check(actual[index].value == expected[index].value && actual[index].count == expected[index].count,
                 "task form: value or count");
    }
  }
  const braid::blink_tree::consistency_report report = tree.check();
  fuzz_check(report.ok && report.keys == reference.size(), "task form: consistency");
  std::vector<std::pair<blink::key_type, blink::value_type>> everything;
  tree.scan(0, static_cast<std::uint32_t>(reference.size() + 1), &everything);
  fuzz_check(everything == std::vector<std::pair<blink::key_type, blink::value_type>>(reference.begin(), reference.end()),
             "task form: contents");
  return 0;
}
