// micro_radix_joiner: the micro-partitioned radix join on the task runtime (MxTasks, Mühlig
// 2023, §6.3, Fig. 6.6-6.7): partitioning and building/probing are tasks, and the runtime does
// the bookkeeping of the scattered micro fragments.
//
//   braid::tasks::runtime tasks({.workers = 2});
//   braid::join::micro_radix_joiner joiner(tasks, {.bits = 10, .fragment_tuples = 256});
//   braid::join::join_output out = joiner.run(build, probe);   // runs the runtime to the end
//
// Phases, all inside one run() of the runtime:
//   1. partition R: R is cut into morsels, one partition task each, morsel i on worker
//      i mod workers. A task micro-partitions its morsel into its worker's block
//      (micro_partition.hpp); each fragment that fills spawns a build task annotated with the
//      partition's squad and a prefetch of the fragment's first prefetch_bytes. Squad tasks
//      wait in their squad. The last partition task to finish (an atomic countdown) spawns
//      build tasks for the partly filled last fragments, sets the build countdown and flushes
//      every squad (MxTasking's spawn(squads)): each partition's tasks then run back to back on
//      the squad's owner, which keeps the partition's table in its cache.
//   2. build: a build task inserts its fragment into the partition's table (keys and payloads
//      inline: fragments are scattered, so the table cannot index a contiguous partition;
//      detail/inline_chain_table.hpp, probed with group prefetching). The
//      last build task to finish starts phase 3: probing begins only once every table is built.
//   3. partition S: as 1 (into the same blocks: R's fragments are no longer needed), spawning
//      probe tasks.
//   4. probe: a probe task probes its fragment against the partition's table and writes the
//      matches to its worker's join_output; the last one stops the runtime. The workers'
//      outputs are merged with absorb.
//
// The phases are separated by atomic countdowns whose acquire-release order makes each phase's
// writes (blocks, tables, counts) visible to the next; a partition's table is touched only by
// its squad's tasks, which run one after another on one worker, so it needs no latch.
//
// Complexity: O(|R| + |S| + matches) work, plus one task per fragment and morsel. Memory: one
// block per worker of (its share + fanout fragments) and the tables (32 bytes per bucket,
// 2^ceil(log2 |R_p|) buckets, plus 32 per colliding R tuple). Known limits: the runtime must
// be idle when run() is called and is used exclusively until it returns; if a task throws,
// run() rethrows and the joiner and the runtime's queues are left in an unspecified state
// (discard both). Empty R or S return no matches without running the runtime.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "braid/join/detail/inline_chain_table.hpp"
#include "braid/join/micro_partition.hpp"
#include "braid/join/radix_join.hpp"
#include "braid/join/relation.hpp"
#include "braid/tasks/runtime.hpp"

namespace braid::join {

inline constexpr std::size_t max_fragment_prefetch_bytes = 65536;

struct micro_radix_join_options {
  unsigned bits = 10;
  std::size_t fragment_tuples = 256;  // micro fragment capacity: a power of two, 4..65536
  bool write_combine = false;         // software write-combine buffers while partitioning
  std::size_t prefetch_bytes = 1024;  // of a fragment, ahead of its build/probe task (0: none)
  std::size_t morsel_tuples = 16384;  // input tuples per partition task
  bool materialize = false;
};

class micro_radix_joiner {
 public:
  micro_radix_joiner(tasks::runtime& runtime, const micro_radix_join_options& options)
      : runtime_(runtime), options_(options) {
    check_micro_partition_options(partition_options(), "micro_radix_join");
    if (options.prefetch_bytes > max_fragment_prefetch_bytes) {
      throw std::invalid_argument("micro_radix_join: prefetch_bytes must be at most " +
                                  std::to_string(max_fragment_prefetch_bytes) + ", not " +
                                  std::to_string(options.prefetch_bytes));
    }
    if (options.morsel_tuples == 0) throw std::invalid_argument("micro_radix_join: morsel_tuples must be at least 1");
    const std::size_t fanout = std::size_t{1} << options.bits;
    squads_.reserve(fanout);
    for (std::size_t p = 0; p < fanout; ++p) squads_.push_back(runtime.new_squad());
    tables_.resize(fanout);
    workers_ = std::make_unique<worker_state[]>(runtime.workers());
  }
  micro_radix_joiner(const micro_radix_joiner&) = delete;
  micro_radix_joiner& operator=(const micro_radix_joiner&) = delete;
  ~micro_radix_joiner() {
    for (tasks::resource_ptr squad : squads_) runtime_.delete_squad(squad);
  }

  // Joins build ⋈ probe; runs the runtime until the join is done.
  [[nodiscard]] join_output run(std::span<const tuple> build, std::span<const tuple> probe) {
    phases_ = {};
    if (build.empty() || probe.empty()) return join_output(options_.materialize);
    build_ = build;
    probe_ = probe;
    const unsigned workers = runtime_.workers();
    for (unsigned w = 0; w < workers; ++w) {
      worker_state& state = workers_[w];
      state.output = join_output(options_.materialize);
      state.spawned = 0;
      const std::size_t share = std::max(tuples_of_worker(build.size(), w), tuples_of_worker(probe.size(), w));
      if (!state.block) {
        state.block = std::make_unique<micro_partition_block>(partition_options(), share);
      } else {
        state.block->reset(share);  // room for the larger side, so phase 3 does not reallocate
      }
      state.block->reset(tuples_of_worker(build.size(), w));
    }
    for (detail::inline_chain_table& table : tables_) table.invalidate();
    build_sizes_.assign(fanout(), 0);
    marks_ = {};
    marks_[0] = clock::now();
    spawn_partition_tasks(nullptr, build_, side::build);
    runtime_.run();
    join_output out = std::move(workers_[0].output);
    for (unsigned w = 1; w < workers; ++w) out.absorb(std::move(workers_[w].output));
    phases_.partition_ns = elapsed(marks_[0], marks_[1]) + elapsed(marks_[2], marks_[3]);
    phases_.build_probe_ns = elapsed(marks_[0], marks_[4]) - phases_.partition_ns;
    return out;
  }

  [[nodiscard]] const micro_radix_join_options& options() const noexcept { return options_; }
  [[nodiscard]] const join_phase_times& last_phases() const noexcept { return phases_; }
  [[nodiscard]] std::size_t fanout() const noexcept { return std::size_t{1} << options_.bits; }

 private:
  using clock = std::chrono::steady_clock;
  enum class side : std::uint8_t { build, probe };

  struct alignas(64) worker_state {
    std::unique_ptr<micro_partition_block> block;
    std::size_t spawned = 0;  // fragment tasks this worker's partition tasks spawned this phase
    join_output output;
  };

  struct partition_task : tasks::annotated_task<partition_task> {
    partition_task(micro_radix_joiner* joiner, std::span<const tuple> morsel, side which) noexcept
        : joiner(joiner), data(morsel.data()), count(morsel.size()), which(which) {}
    tasks::task_result execute(tasks::worker& self) { return joiner->partition_morsel(self, {data, count}, which); }
    micro_radix_joiner* joiner;
    const tuple* data;
    std::size_t count;
    side which;
  };

  struct fragment_task : tasks::annotated_task<fragment_task> {
    fragment_task(micro_radix_joiner* joiner, const tuple* data, std::size_t count, std::size_t partition,
                  side which) noexcept
        : joiner(joiner), data(data), count(static_cast<std::uint32_t>(count)),
          partition(static_cast<std::uint32_t>(partition)), which(which) {}
    tasks::task_result execute(tasks::worker& self) {
      return which == side::build ? joiner->build_fragment(self, partition, {data, count})
                                  : joiner->probe_fragment(self, partition, {data, count});
    }
    micro_radix_joiner* joiner;
    const tuple* data;
    std::uint32_t count;
    std::uint32_t partition;
    side which;
  };

  [[nodiscard]] micro_partition_options partition_options() const noexcept {
    return {.bits = options_.bits, .shift = 0, .fragment_tuples = options_.fragment_tuples,
            .write_combine = options_.write_combine};
  }
  static double elapsed(clock::time_point from, clock::time_point to) noexcept {
    return std::chrono::duration<double, std::nano>(to - from).count();
  }
  [[nodiscard]] std::size_t morsels_of(std::size_t tuples) const noexcept {
    return (tuples + options_.morsel_tuples - 1) / options_.morsel_tuples;
  }
  // Tuples of the morsels that go to worker w (morsel i to worker i mod workers).
  [[nodiscard]] std::size_t tuples_of_worker(std::size_t tuples, unsigned w) const noexcept {
    std::size_t total = 0;
    const unsigned workers = runtime_.workers();
    for (std::size_t first = std::size_t{w} * options_.morsel_tuples; first < tuples;
         first += std::size_t{workers} * options_.morsel_tuples) {
      total += std::min(options_.morsel_tuples, tuples - first);
    }
    return total;
  }

  // From the caller's thread (self == nullptr) or a worker.
  void spawn_partition_tasks(tasks::worker* self, std::span<const tuple> input, side which) {
    const std::size_t morsels = morsels_of(input.size());
    partitions_left_.store(morsels, std::memory_order_relaxed);
    const unsigned workers = runtime_.workers();
    for (std::size_t i = 0; i < morsels; ++i) {
      const std::size_t first = i * options_.morsel_tuples;
      const std::span<const tuple> morsel = input.subspan(first, std::min(options_.morsel_tuples, input.size() - first));
      auto* task = self != nullptr ? self->allocate<partition_task>(this, morsel, which)
                                   : runtime_.allocate<partition_task>(this, morsel, which);
      task->annotate_worker(static_cast<std::uint16_t>(i % workers));
      if (self != nullptr) {
        self->spawn(*task);
      } else {
        runtime_.spawn(*task);
      }
    }
  }

  void spawn_fragment(tasks::worker& self, std::size_t partition, const tuple* data, std::size_t count, side which) {
    auto* task = self.allocate<fragment_task>(this, data, count, partition, which);
    task->annotate(squads_[partition], tasks::access_intent::write);
    if (const std::size_t bytes = std::min(options_.prefetch_bytes, count * sizeof(tuple)); bytes != 0) {
      task->annotate_prefetch(data, tasks::prefetch_descriptor::bytes(bytes, tasks::prefetch_temporality::temporal));
    }
    self.spawn(*task);
  }

  tasks::task_result partition_morsel(tasks::worker& self, std::span<const tuple> morsel, side which) {
    worker_state& state = workers_[self.id()];
    state.block->add(morsel, [&](std::size_t partition, const tuple* full) {
      spawn_fragment(self, partition, full, options_.fragment_tuples, which);
      ++state.spawned;
    });
    if (partitions_left_.fetch_sub(1, std::memory_order_acq_rel) == 1) end_partition_phase(self, which);
    return tasks::task_result::remove();
  }

  // On the worker whose partition task finished last: every block is complete.
  void end_partition_phase(tasks::worker& self, side which) {
    marks_[which == side::build ? 1 : 3] = clock::now();
    const unsigned workers = runtime_.workers();
    std::size_t fragment_tasks = 0;
    for (unsigned w = 0; w < workers; ++w) {
      fragment_tasks += std::exchange(workers_[w].spawned, 0);
      workers_[w].block->finish();
    }
    std::vector<bool> has_tasks(fanout(), false);
    for (std::size_t p = 0; p < fanout(); ++p) {
      for (unsigned w = 0; w < workers; ++w) {
        const micro_partition_block& block = *workers_[w].block;
        const std::size_t size = block.partition_size(p);
        if (size == 0) continue;
        has_tasks[p] = true;
        if (which == side::build) build_sizes_[p] += size;
        if (const std::span<const tuple> open = block.open_fragment(p); !open.empty()) {
          spawn_fragment(self, p, open.data(), open.size(), which);
          ++fragment_tasks;
        }
      }
    }
    fragments_left_.store(fragment_tasks, std::memory_order_release);
    for (std::size_t p = 0; p < fanout(); ++p) {
      if (has_tasks[p]) self.flush(squads_[p]);
    }
  }

  tasks::task_result build_fragment(tasks::worker& self, std::size_t partition, std::span<const tuple> fragment) {
    detail::inline_chain_table& table = tables_[partition];
    if (!table.prepared()) table.prepare(build_sizes_[partition], options_.bits);
    table.insert(fragment);
    if (fragments_left_.fetch_sub(1, std::memory_order_acq_rel) == 1) start_probe_phase(self);
    return tasks::task_result::remove();
  }

  // On the worker whose build task finished last: every table is built.
  void start_probe_phase(tasks::worker& self) {
    marks_[2] = clock::now();
    for (unsigned w = 0; w < runtime_.workers(); ++w) {
      workers_[w].block->reset(tuples_of_worker(probe_.size(), w));
    }
    spawn_partition_tasks(&self, probe_, side::probe);
  }

  tasks::task_result probe_fragment(tasks::worker& self, std::size_t partition, std::span<const tuple> fragment) {
    const detail::inline_chain_table& table = tables_[partition];
    if (table.prepared()) table.probe(fragment, workers_[self.id()].output);
    if (fragments_left_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      marks_[4] = clock::now();
      return tasks::task_result::stop();
    }
    return tasks::task_result::remove();
  }

  tasks::runtime& runtime_;
  micro_radix_join_options options_;
  std::vector<tasks::resource_ptr> squads_;  // one per partition
  std::vector<detail::inline_chain_table> tables_;
  std::vector<std::size_t> build_sizes_;     // R tuples per partition, known after phase 1
  std::unique_ptr<worker_state[]> workers_;
  std::span<const tuple> build_;
  std::span<const tuple> probe_;
  std::array<clock::time_point, 5> marks_{};  // start, R partitioned, built, S partitioned, probed
  join_phase_times phases_;
  alignas(64) std::atomic<std::size_t> partitions_left_{0};
  alignas(64) std::atomic<std::size_t> fragments_left_{0};
};

inline join_output micro_radix_join(tasks::runtime& runtime, std::span<const tuple> build,
                                    std::span<const tuple> probe, const micro_radix_join_options& options) {
  micro_radix_joiner joiner(runtime, options);
  return joiner.run(build, probe);
}

}  // namespace braid::join
