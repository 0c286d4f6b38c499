// masstree-strings: the Masstree-style index on the workload of Masstree's own `mttest rw1`
// test — random 32-bit integers as decimal-string keys, put them all, then get them all in
// shuffled order, one thread (Mao, Kohler, Morris, EuroSys 2012, §6).
//
// The gets read their keys in sequence from a copy laid out in the shuffled order, as rw1 reads
// its shuffled array of integers: a key's bytes cost no miss, only the index's nodes do.
//
// Techniques (gets; every one answers every key once, in the same shuffled order):
//   naive        find(): Masstree's own get, each node prefetched whole and waited for;
//   coro_nested  lookup_nested: the helper functions as nested task<>s, interleaved;
//   coro         lookup: the flattened get (one frame), interleaved.
// The puts are the plain put(), timed once while the index is built (row phase=put).
//
// Rows: phase (put / get), mops, bytes_per_key (the index's bytes after the puts over the
// keys put), key_bytes (mean key length), node_prefetches_per_get (suspensions of the flat
// get, cache hits of the upper levels and layers included), frame_bytes of the flat get.
// Checksums: every put stores value_of(number) for its key, so each get must return it; a
// pass's checksum is the sum of mix_of over what it returned, compared with the one computed
// from the keys alone. The put row's checksum is the number of distinct keys.
//
// Options: --keys (default 10 M; --quick 100 k), --group (default 8,16,32), --technique,
// --pages, --repetitions (default 2), --seed; settings bits=32|64, prefix=TEXT
// (masstree_strings.hpp).
#include <chrono>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "braid/core/all.hpp"
#include "braid/core/cycles.hpp"
#include "braid/index/masstree.hpp"
#include "index_ycsb.hpp"
#include "masstree_strings.hpp"
#include "ordered_experiment.hpp"

namespace braid::bench {
namespace {

using namespace masstree_strings;
using tree_type = masstree<std::uint64_t>;

class string_passes {
 public:
  // `keys`: the keys to get, in the order of the gets.
  string_passes(const tree_type& tree, key_set keys) : tree_(tree), keys_(std::move(keys)) {}

  [[nodiscard]] std::uint64_t expected() const {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < keys_.size(); ++i) sum += mix_of(std::optional<std::uint64_t>(value_of(keys_.number(i))));
    return sum;
  }

  [[nodiscard]] std::uint64_t naive() const {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < keys_.size(); ++i) sum += mix_of(tree_.find(keys_[i]));
    return sum;
  }

  template <bool Nested>
  [[nodiscard]] std::uint64_t interleaved_pass(std::size_t group) const {
    std::uint64_t sum = 0;
    interleaved_scheduler{group}.run(
        keys_.size(),
        [&](std::size_t index) {
          const std::string_view key = keys_[index];
          if constexpr (Nested) {
            return tree_.lookup_nested<interleaved>(key);
          } else {
            return tree_.lookup<interleaved>(key);
          }
        },
        [&](std::size_t, std::optional<std::uint64_t> result) { sum += mix_of(result); });
    return sum;
  }

  [[nodiscard]] double suspensions_per_get() const {
    std::vector<std::uint32_t> sample(std::min<std::size_t>(keys_.size(), 20'000));
    std::iota(sample.begin(), sample.end(), 0u);
    return ordered::suspensions_per_operation(std::span<const std::uint32_t>(sample),
                                              [this](std::uint32_t i) { return tree_.lookup<interleaved>(keys_[i]); });
  }

  [[nodiscard]] std::size_t frame_bytes_flat() const {
    const std::string_view key = keys_[0];
    return ordered::pool_bytes_per_operation([&] { return tree_.lookup<interleaved>(key); });
  }

 private:
  const tree_type& tree_;
  const key_set keys_;
};

void run_masstree_strings(run_context& context) {
  const bool quick = context.quick();
  const key_shape shape = key_shape_of(context);
  const std::size_t records = context.keys_or(quick ? 100'000 : 10'000'000);
  if (records == 0 || records > std::size_t{1} << 31) throw usage_error("--keys: 1 .. 2^31 keys");
  const std::vector<std::size_t> groups = context.groups_or(quick ? std::vector<std::size_t>{8, 16} : std::vector<std::size_t>{8, 16, 32});
  const unsigned repetitions = context.repetitions_or(quick ? 1 : 2);
  const page_size pages = context.pages_or(page_size::huge_2m);
  context.require_memory(records * (160 + 2 * (shape.prefix.size() + 20 + 2 * sizeof(std::uint64_t)) + sizeof(std::uint32_t)),
                         "the Masstree index and its string keys");

  context.progress("generating " + std::to_string(records) + " keys");
  const key_set keys(records, shape, context.seed());
  tree_type tree(pages);

  // The puts: the plain put of every key, timed once.
  context.progress("putting " + std::to_string(records) + " keys");
  std::uint64_t inserted = 0;
  const std::uint64_t start_cycles = read_cycle_counter();
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < keys.size(); ++i) inserted += tree.put(keys[i], value_of(keys.number(i))) ? 0 : 1;
  const double put_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  const double put_cycles = static_cast<double>(read_cycle_counter() - start_cycles);
  const std::size_t bytes = tree.memory_bytes();
  const double bytes_per_key = static_cast<double>(bytes) / static_cast<double>(inserted);

  string_passes passes(tree, keys.in_order(shuffled_order(records, context.seed() + 1)));
  const double node_prefetches = passes.suspensions_per_get();
  const std::string bits = std::to_string(shape.bits);

  index_ycsb::run_facts facts{.structure = "masstree",
                              .distribution = "uniform",
                              .pages = to_string(pages),
                              .size_bytes = bytes,
                              .records = records,
                              .operations = records,
                              .lines_per_op = node_prefetches * (detail::masstree::prefetched_bytes / 64),
                              .extra = {{"phase", std::string("get")},
                                        {"bits", static_cast<std::int64_t>(shape.bits)},
                                        {"prefix", shape.prefix},
                                        {"key_bytes", keys.mean_length()},
                                        {"distinct_keys", static_cast<std::int64_t>(inserted)},
                                        {"bytes_per_key", bytes_per_key},
                                        {"node_prefetches_per_get", node_prefetches},
                                        {"frame_bytes_flat", static_cast<std::int64_t>(passes.frame_bytes_flat())}}};

  if (context.selected("naive")) {
    result_row row;
    row.set("structure", facts.structure)
        .set("technique", "naive")
        .set("pass", "put")
        .set("group", std::int64_t{0})
        .set("threads", std::int64_t{1})
        .set("size_bytes", static_cast<std::int64_t>(bytes))
        .set("records", static_cast<std::int64_t>(records))
        .set("ops", static_cast<std::int64_t>(records))
        .set("ns_per_op", put_ns / static_cast<double>(records))
        .set("mops", static_cast<double>(records) * 1e3 / put_ns)
        .set("cycles_per_op", put_cycles / static_cast<double>(records))
        .set("distribution", facts.distribution)
        .set("pages", facts.pages)
        .set("checksum", static_cast<std::int64_t>(inserted));
    for (const auto& [name, value] : facts.extra) row.set(name, value);
    row.set("phase", std::string("put"));
    context.emit(std::move(row));
  }

  std::vector<index_ycsb::pass> labels;
  std::vector<technique_run> runs;
  if (context.selected("naive")) {
    labels.push_back({"naive", 0});
    runs.push_back({"naive", [&passes] { return passes.naive(); }});
  }
  for (const std::size_t group : groups) {
    if (context.selected("coro_nested")) {
      labels.push_back({"coro_nested", group});
      runs.push_back({labels.back().label(), [&passes, group] { return passes.interleaved_pass<true>(group); }});
    }
    if (context.selected("coro")) {
      labels.push_back({"coro", group});
      runs.push_back({labels.back().label(), [&passes, group] { return passes.interleaved_pass<false>(group); }});
    }
  }
  context.progress(std::to_string(runs.size()) + " get passes of " + std::to_string(records) + " keys");
  if (!runs.empty()) index_ycsb::measure_and_emit(context, facts, labels, runs, passes.expected(), repetitions);
  context.note("masstree-strings keys", std::to_string(records) + " keys (" + std::to_string(inserted) + " distinct), " +
                                            bits + "-bit decimal" + (shape.prefix.empty() ? "" : " after \"" + shape.prefix + "\"") +
                                            ", mean " + std::to_string(keys.mean_length()) + " bytes");
  context.note("masstree-strings index", std::to_string(bytes >> 20) + " MiB, " + std::to_string(bytes_per_key) +
                                             " bytes per key, " + std::to_string(node_prefetches) + " node prefetches per get");
}

const registration masstree_strings_experiment{experiment{
    .name = "masstree-strings",
    .reproduces = "Masstree (EuroSys 2012) mttest rw1: decimal-string keys, put all, shuffled gets",
    .summary = "Masstree-style index on decimal-string keys: plain puts, then plain, nested and flat gets (group sweep), "
               "bytes per key",
    .techniques = {"naive", "coro_nested", "coro"},
    .accepted = accepts_keys | accepts_group | accepts_technique | accepts_pages,
    .settings = {{.name = "bits", .values = "32|64", .meaning = "the random integers' width (default 32: keys of up to 10 digits)"},
                 {.name = "prefix", .values = "TEXT", .meaning = "bytes prepended to every key, at most 64 (default none)"}},
    .run = run_masstree_strings,
}};

}  // namespace
}  // namespace braid::bench
