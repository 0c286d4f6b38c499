// pointer-chase: independent lookups that each follow `steps` dependent links through a random
// mapping of cache-line nodes (a node's `next` is a uniformly random node), with a little
// hashing work per node. It is the purest latency-bound lookup: every step is a miss once the
// nodes outsize the caches, and nothing but other lookups can fill the wait. It is the test bench
// of the analytical model (thesis §3.1): per configuration the naive rows carry the model's
// inputs (compute_ns_per_op: the same lookups over an L1-resident 16 KiB of nodes, measured in
// the same call; misses_per_op = suspensions_per_op = steps), the group-1 rows the techniques'
// time on those L1-resident nodes (compute_group1_ns_per_op: switching without stalls), and
// the `chase-model` figure puts the predicted minimum group and maximum speedup beside the
// measured ones.
//
//   naive     a plain loop, one lookup after another
//   coro      coro<interleaved> on interleaved_scheduler{group} (refill at once, AMAC order)
//   batched   the same coroutine on batched_scheduler{group} (strict batches, GP order)
//   fiber     the same loop on a Boost.Context fiber, interleaved_scheduler{group}
//
// With --threads T every technique runs on T pinned workers, each over its chunk of the lookups;
// roofline_fraction is per thread (lines fetched per ns per thread over the one-core peak).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "braid/core/all.hpp"
#include "experiment.hpp"
#include "headline.hpp"
#include "measure.hpp"
#include "roofline.hpp"
#include "threads.hpp"
#include "workloads.hpp"

namespace braid::bench {
namespace {

constexpr unsigned steps = 8;                        // dependent loads per lookup
constexpr std::size_t cache_resident_bytes = 16384;  // the compute reference: L1-resident nodes

struct alignas(64) chase_node {
  std::uint64_t next;
  std::uint64_t payload[7];
};
static_assert(sizeof(chase_node) == 64);

// The work per node: two rounds of the splitmix64 finalizer.
inline std::uint64_t mix(std::uint64_t value) noexcept {
  for (int round = 0; round < 2; ++round) {
    value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ull;
    value = (value ^ (value >> 27)) * 0x94D049BB133111EBull;
  }
  return value ^ (value >> 31);
}

std::uint64_t chase_plain(const chase_node* nodes, std::uint64_t position) {
  std::uint64_t digest = 0;
  for (unsigned step = 0; step < steps; ++step) {
    const chase_node& node = nodes[position];
    digest = mix(digest ^ node.payload[0]);
    position = node.next;
  }
  return digest ^ position;
}

coro<std::uint64_t> chase_coro(const chase_node* nodes, std::uint64_t position) {
  std::uint64_t digest = 0;
  for (unsigned step = 0; step < steps; ++step) {
    const chase_node& node = co_await fetch<interleaved>(&nodes[position]);
    digest = mix(digest ^ node.payload[0]);
    position = node.next;
  }
  co_return digest ^ position;
}

std::uint64_t chase_fiber(fiber_context& context, const chase_node* nodes, std::uint64_t position) {
  std::uint64_t digest = 0;
  for (unsigned step = 0; step < steps; ++step) {
    const chase_node& node = fiber_fetch(context, &nodes[position]);
    digest = mix(digest ^ node.payload[0]);
    position = node.next;
  }
  return digest ^ position;
}

// Nodes whose `next` is a uniformly random node.
huge_array<chase_node> random_mapping(std::size_t count, page_size pages, std::uint64_t seed) {
  huge_array<chase_node> nodes(count, pages);
  random_source random(seed);
  for (std::size_t i = 0; i < count; ++i) {
    nodes[i].next = random.below(count);
    nodes[i].payload[0] = random.next();
  }
  return nodes;
}

void run_pointer_chase(run_context& context) {
  const std::vector<std::size_t> sizes = context.sizes_or({context.quick() ? std::size_t{8} << 20 : dram_resident_bytes()});
  const std::vector<std::size_t> groups = context.groups_or({1, 2, 4, 8, 16, 32});
  const std::vector<unsigned> thread_options = thread_counts(context);
  // 1M lookups touch 8M nodes (512 MiB) per pass: far more than the last-level cache holds
  // after the warm-up pass, so a DRAM-sized buffer is measured from DRAM.
  const std::size_t lookups = context.keys_or(context.quick() ? 5'000 : 1'000'000);
  const unsigned repetitions = context.repetitions_or(context.quick() ? 3 : 5);
  const page_size pages = context.pages_or(page_size::huge_2m);
  for (std::size_t size : sizes) {
    if (size < cache_resident_bytes) {
      throw usage_error("--size: " + format_bytes(size) + " is below the " + format_bytes(cache_resident_bytes) +
                        " of the cache-resident reference");
    }
    context.require_memory(size, "pointer-chase nodes");
  }
  const memory_profile& profile = measured_memory_profile(context);

  const huge_array<chase_node> reference =
      random_mapping(cache_resident_bytes / sizeof(chase_node), pages, context.seed() + 1);
  std::size_t configuration = 0;
  const std::size_t configurations = sizes.size() * thread_options.size();
  for (std::size_t size : sizes) {
    context.progress("building " + format_bytes(size) + " of nodes");
    const huge_array<chase_node> nodes = random_mapping(size / sizeof(chase_node), pages, context.seed());
    context.note("pages_obtained_" + format_bytes(size), nodes.buffer().describe_pages());
    random_source random(context.seed() + 2);
    std::vector<std::uint64_t> starts(lookups);
    for (std::uint64_t& start : starts) start = random.below(nodes.size());
    std::vector<std::uint64_t> reference_starts(lookups);
    for (std::uint64_t& start : reference_starts) start = random.below(reference.size());
    const bool dram_resident = residency_of(size) == "dram";

    for (unsigned threads : thread_options) {
      context.configuration(configuration++, configurations,
                            format_bytes(size) + ", " + std::to_string(threads) + (threads == 1 ? " thread" : " threads"));
      // One call measures every technique at every group size beside one naive loop, so every
      // ratio is taken within the same interleaved repetitions. Passes are named
      // "<technique>@<group>"; "@compute" passes run over the L1-resident reference: naive for
      // the model's T_compute, the interleavers at group 1 for their switching alone (model.hpp).
      worker_team team(threads);
      std::vector<technique_run> techniques;
      auto add_naive = [&](const std::string& name, const chase_node* data, const std::uint64_t* first) {
        techniques.push_back(team.technique(name, lookups, [data, first](std::size_t begin, std::size_t end) {
          std::uint64_t checksum = 0;
          for (std::size_t i = begin; i < end; ++i) checksum += chase_plain(data, first[i]);
          return checksum;
        }));
      };
      auto add_interleavers = [&](const std::string& suffix, std::size_t group, const chase_node* data,
                                  const std::uint64_t* first) {
        auto scheduled = [first](auto scheduler, auto launch) {
          return [first, scheduler, launch](std::size_t begin, std::size_t end) {
            std::uint64_t checksum = 0;
            scheduler.run(end - begin, [&](std::size_t i) { return launch(first[begin + i]); },
                          [&](std::size_t, std::uint64_t result) { checksum += result; });
            return checksum;
          };
        };
        const auto coro_launch = [data](std::uint64_t start) { return chase_coro(data, start); };
        const auto fiber_launch = [data](std::uint64_t start) {
          return fiber<std::uint64_t>([data, start](fiber_context& c) { return chase_fiber(c, data, start); });
        };
        if (context.selected("coro")) {
          techniques.push_back(team.technique("coro" + suffix, lookups, scheduled(interleaved_scheduler{group}, coro_launch)));
        }
        if (context.selected("batched")) {
          techniques.push_back(team.technique("batched" + suffix, lookups, scheduled(batched_scheduler{group}, coro_launch)));
        }
        if (context.selected("fiber")) {
          techniques.push_back(team.technique("fiber" + suffix, lookups, scheduled(interleaved_scheduler{group}, fiber_launch)));
        }
      };
      add_naive("naive", nodes.data(), starts.data());
      add_naive("naive@compute", reference.data(), reference_starts.data());
      for (std::size_t group : groups) add_interleavers("@" + std::to_string(group), group, nodes.data(), starts.data());
      if (std::find(groups.begin(), groups.end(), 1) != groups.end()) {
        add_interleavers("@compute", 1, reference.data(), reference_starts.data());
      }

      std::vector<measurement> measured = measure_interleaved(techniques, repetitions, &context);
      std::vector<measurement> compute_passes;
      for (const measurement& m : measured) {
        if (m.name.ends_with("@compute")) compute_passes.push_back(m);
      }
      std::erase_if(measured, [](const measurement& m) { return m.name.ends_with("@compute"); });
      require_same_checksums(measured, "pointer-chase");
      require_same_checksums(compute_passes, "pointer-chase on the cache-resident reference");

      const double naive_ns = find_measurement(measured, "naive").median_ns;
      const double count = static_cast<double>(lookups);
      for (const measurement& m : measured) {
        const std::size_t at = m.name.find('@');
        const std::string technique = m.name.substr(0, at);
        if (technique == "naive" && !context.selected("naive")) continue;
        const double ns_per_op = m.median_ns / count;
        result_row row;
        row.set("structure", "pointer-chase")
            .set("technique", technique)
            .set("pass", m.name)
            .set("threads", static_cast<std::int64_t>(threads))
            .set("size_bytes", static_cast<std::int64_t>(nodes.size() * sizeof(chase_node)))
            .set("ops", static_cast<std::int64_t>(lookups))
            .set("ns_per_op", ns_per_op)
            .set("mops", count / m.median_ns * 1e3)
            .set("speedup_vs_naive", naive_ns / m.median_ns)
            .set("cycles_per_op", m.median_cycles / count);
        // Per thread, against the one-core peak; only where the nodes live in DRAM.
        if (dram_resident) row.set("roofline_fraction", roofline_fraction(steps, ns_per_op * threads, profile));
        if (at == std::string::npos) {
          row.set("compute_ns_per_op", find_measurement(compute_passes, "naive@compute").median_ns / count)
              .set("misses_per_op", static_cast<std::int64_t>(steps))
              .set("suspensions_per_op", static_cast<std::int64_t>(steps));
        } else {
          const std::size_t group = std::stoul(m.name.substr(at + 1));
          row.set("group", static_cast<std::int64_t>(group));
          if (group == 1) {
            row.set("compute_group1_ns_per_op", find_measurement(compute_passes, technique + "@compute").median_ns / count);
          }
        }
        context.emit(std::move(row));
      }
    }
  }
}

const registration pointer_chase{experiment{
    .name = "pointer-chase",
    .reproduces = "thesis §3.1 model (Formulas 3.2, 3.4) on a synthetic latency-bound lookup",
    .summary = "lookups of 8 dependent random loads each: naive vs coro vs batched vs fiber, group and size sweeps",
    .techniques = {"naive", "coro", "batched", "fiber"},
    .accepted = accepts_size | accepts_keys | accepts_group | accepts_threads | accepts_technique | accepts_pages,
    .run = run_pointer_chase,
}};

const figure_registration chase_model{pointer_chase, figure{
    .name = "chase-model",
    .reproduces = "thesis Fig. 4.6's method (group sweep beside the model of §3.1) on the synthetic pointer chase",
    .summary = "throughput against group size, DRAM-resident and LLC-resident, with the model's predicted optimum",
    .panels = {{.label = "DRAM",
                .arguments = {"--size", "dram", "--group", "1,2,3,4,6,8,10,12,16,20,24,32,48,64"},
                .quick_arguments = {"--size", "64MiB", "--group", "1,4,16", "--keys", "5000"}},
               {.label = "16 MiB (last-level cache)",
                .arguments = {"--size", "16MiB", "--group", "1,2,3,4,6,8,10,12,16,20,24,32,48,64"},
                .quick_arguments = {"--size", "16MiB", "--group", "1,4,16", "--keys", "5000"}}},
    .axes = {.x = "group", .y = "mops"},
    .model = {.techniques = {"coro", "batched", "fiber"}},
}};

const headline_registration chase_headline{chase_model, headline_entry{
    .name = "pointer chase (synthetic, 8 loads)",
    .panels = {{.label = "DRAM",
                .arguments = {"--size", "dram", "--group", "8,16,32", "--keys", "400000", "--repetitions", "3"},
                .quick_arguments = {"--size", "64MiB", "--group", "1,16", "--keys", "5000"}},
               {.label = "1 MiB (cache)",
                .arguments = {"--size", "1MiB", "--group", "4,8,16", "--keys", "400000", "--repetitions", "3"},
                .quick_arguments = {"--size", "1MiB", "--group", "1,8", "--keys", "5000"}}},
    .budget_seconds = 15,
    .summarize = compare_with_naive_and_peers("naive", {}),
}};

}  // namespace
}  // namespace braid::bench
