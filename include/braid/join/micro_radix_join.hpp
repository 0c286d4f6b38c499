// micro_radix_joiner: the micro-partitioned radix join on the task runtime (MxTasks, Mühlig
// 2023, §6.3, Fig. 6.6-6.7): partitioning and building/probing are tasks, and the runtime does
// the bookkeeping of the scattered micro fragments.
//
//   braid::tasks::runtime tasks({.workers = 2});
//   braid::join::micro_radix_joiner joiner(tasks, {.bits = 10, .fragment_tuples = 256});
//   braid::join::join_output out = joiner.run(build, probe);   // runs the runtime to the end
//
// Partitioning: R, then S, is cut into morsels, one partition task each, morsel i on worker
// i mod workers. A task micro-partitions its morsel into its worker's block of that side
// (micro_partition.hpp); each fragment that fills spawns a build (R) or probe (S) task
// annotated with the partition's squad and a prefetch of the fragment's first prefetch_bytes.
// Squad tasks wait in their squad until it is flushed; on its owner they then run back to
// back (MxTasking's spawn(squads)). The last partition task of a side (an atomic countdown)
// spawns the tasks of the partly filled last fragments.
//
// Schedules (micro_join_schedule):
//   pairs (default, §6.3's intent): R is partitioned, then S, and only then every squad is
//     flushed, once: on the squad's owner partition p's build tasks and its probe tasks run
//     one after another, so p's table is built and probed while it is in the owner's cache,
//     as Balkesen's join builds and probes one pair of partitions at a time.
//   phases: R is partitioned, its squads flushed, every table built; then S is partitioned,
//     flushed and probed. All tables live at once and come back from memory while probing
//     (the schedule this join had first; kept to measure what pairs gains).
//
// Build before probe: a squad's tasks reach its owner in the order local list, then remote
// queue (squad.hpp), so the owner's probe tasks of p may come before another worker's build
// tasks of p. A per-partition count of build tasks still to run decides: a probe task that
// finds builds outstanding links itself into p's waiting list and returns keep(); the build
// task that brings the count to 0 probes the waiting fragments and frees their tasks. Nothing
// spins and nothing is lost. All of p's tasks run on one worker, so this state needs no
// atomics; the acquire-release of the countdowns and queues orders it across phases. The
// flushed tasks are counted down per partition, in that plain state; only a partition's last
// task touches the shared countdown of flushed squads (one atomic per squad, not per task).
//
// Tables (detail/inline_chain_table.hpp, keys and payloads inline: fragments are scattered,
// so a table cannot index a contiguous partition; probed with group prefetching) come from a
// pool per worker: p's first build task takes one, sized for |R_p|. Under pairs, the task that
// finishes p's last build or probe returns it to its worker's pool, and since p's tasks run
// back to back the next partition takes the same table: about one table per worker is live,
// and its memory stays in cache from partition to partition. (A per-partition table freed at
// the end would allocate and fault fresh pages for every partition; one fixed table per worker
// would rely on partitions never interleaving on a worker, which the pool does not need.)
// Under phases no table returns before the run ends: one per non-empty partition.
//
// Each partition's table and counts are touched only by its squad's tasks, which run one
// after another on the squad's owner, so they need no latch; the phase boundaries (atomic
// countdowns, acquire-release) make each phase's writes (blocks, counts) visible to the next.
//
// Complexity: O(|R| + |S| + matches) work, plus one task per fragment and morsel. Memory:
// blocks per worker of (its share + fanout fragments), for R and for S (phases: one block for
// the larger share, reused by S), tables of 32 bytes per bucket (2^ceil(log2 |R_p|) buckets)
// plus 32 per colliding R tuple: about one per worker under pairs, one per partition under
// phases. Under pairs every fragment task waits in a squad until S is partitioned (one
// 128-byte descriptor per fragment). Known limits: the runtime must be idle when run() is
// called and is used exclusively until it returns; if a task throws, run() rethrows and the
// joiner and the runtime's queues are left in an unspecified state (discard both; waiting
// probe tasks are then lost with their descriptors). Empty R or S return no matches without
// running the runtime.
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

// When a partition's build and probe tasks run (see the header comment).
enum class micro_join_schedule : std::uint8_t {
  pairs,   // R and S partitioned, then each partition built and probed back to back
  phases,  // R partitioned, all tables built, then S partitioned and probed
};

struct micro_radix_join_options {
  unsigned bits = 10;
  std::size_t fragment_tuples = 256;  // micro fragment capacity: a power of two, 4..65536
  bool write_combine = false;         // software write-combine buffers while partitioning
  std::size_t prefetch_bytes = 1024;  // of a fragment, ahead of its build/probe task (0: none)
  std::size_t morsel_tuples = 16384;  // input tuples per partition task
  bool materialize = false;
  micro_join_schedule schedule = micro_join_schedule::pairs;
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
    if (options.schedule != micro_join_schedule::pairs && options.schedule != micro_join_schedule::phases) {
      throw std::invalid_argument("micro_radix_join: schedule must be pairs or phases");
    }
    const std::size_t fanout = std::size_t{1} << options.bits;
    squads_.reserve(fanout);
    for (std::size_t p = 0; p < fanout; ++p) squads_.push_back(runtime.new_squad());
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
    for (unsigned w = 0; w < workers; ++w) prepare_worker(workers_[w], w);
    partitions_.assign(fanout(), partition_state{});
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
  // Tables the workers' pools hold (the most that were live at once in any run so far).
  [[nodiscard]] std::size_t tables_allocated() const noexcept {
    std::size_t total = 0;
    for (unsigned w = 0; w < runtime_.workers(); ++w) total += workers_[w].tables.size();
    return total;
  }
  // Probe tasks of the last run that came before their partition's last build task and waited.
  [[nodiscard]] std::size_t last_waiting_probes() const noexcept {
    std::size_t total = 0;
    for (unsigned w = 0; w < runtime_.workers(); ++w) total += workers_[w].waited;
    return total;
  }

 private:
  using clock = std::chrono::steady_clock;
  enum class side : std::uint8_t { build, probe };
  struct fragment_task;

  struct alignas(64) worker_state {
    std::array<std::unique_ptr<micro_partition_block>, 2> blocks;  // [side]; phases: [0] for both
    std::size_t waited = 0;   // probe tasks of squads this worker owns that had to wait
    join_output output;
    std::vector<std::unique_ptr<detail::inline_chain_table>> tables;  // this worker's pool
    std::vector<detail::inline_chain_table*> free_tables;
  };

  // Touched only by the partition's squad tasks (on its owner) and at phase boundaries.
  struct alignas(64) partition_state {
    detail::inline_chain_table* table = nullptr;
    std::size_t build_tuples = 0;    // |R_p|, known once R is partitioned
    std::size_t builds_left = 0;     // build tasks still to run
    std::size_t tasks_left = 0;      // build and probe tasks flushed and still to run
    fragment_task* waiting = nullptr;  // probe tasks that came before the last build task
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
      return which == side::build ? joiner->build_fragment(self, partition, fragment())
                                  : joiner->probe_fragment(self, *this);
    }
    [[nodiscard]] std::span<const tuple> fragment() const noexcept { return {data, count}; }
    micro_radix_joiner* joiner;
    const tuple* data;
    fragment_task* next_waiting = nullptr;
    std::uint32_t count;
    std::uint32_t partition;
    side which;
  };

  [[nodiscard]] micro_partition_options partition_options() const noexcept {
    return {.bits = options_.bits, .shift = 0, .fragment_tuples = options_.fragment_tuples,
            .write_combine = options_.write_combine};
  }
  [[nodiscard]] bool pairs() const noexcept { return options_.schedule == micro_join_schedule::pairs; }
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

  static void reset_block(std::unique_ptr<micro_partition_block>& block, const micro_partition_options& options,
                          std::size_t tuples) {
    if (!block) {
      block = std::make_unique<micro_partition_block>(options, tuples);
    } else {
      block->reset(tuples);
    }
  }
  void prepare_worker(worker_state& state, unsigned w) {
    state.output = join_output(options_.materialize);
    state.waited = 0;
    state.free_tables.clear();
    for (const auto& table : state.tables) state.free_tables.push_back(table.get());
    const std::size_t build_share = tuples_of_worker(build_.size(), w);
    const std::size_t probe_share = tuples_of_worker(probe_.size(), w);
    if (pairs()) {
      reset_block(state.blocks[0], partition_options(), build_share);
      reset_block(state.blocks[1], partition_options(), probe_share);
    } else {
      // Room for the larger side, so S's partitioning does not reallocate.
      reset_block(state.blocks[0], partition_options(), std::max(build_share, probe_share));
      state.blocks[0]->reset(build_share);
    }
  }
  [[nodiscard]] micro_partition_block& block_of(unsigned w, side which) const noexcept {
    return *workers_[w].blocks[pairs() && which == side::probe ? 1 : 0];
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
    block_of(self.id(), which).add(morsel, [&](std::size_t partition, const tuple* full) {
      spawn_fragment(self, partition, full, options_.fragment_tuples, which);
    });
    if (partitions_left_.fetch_sub(1, std::memory_order_acq_rel) == 1) end_partition_phase(self, which);
    return tasks::task_result::remove();
  }

  // On the worker whose partition task of `which` finished last: every block of that side is
  // complete. Counts each partition's fragment tasks, spawns the open fragments' tasks, then
  // (phases: after either side; pairs: after S) flushes the squads or (pairs, after R) starts
  // partitioning S.
  void end_partition_phase(tasks::worker& self, side which) {
    marks_[which == side::build ? 1 : 3] = clock::now();
    const unsigned workers = runtime_.workers();
    for (unsigned w = 0; w < workers; ++w) block_of(w, which).finish();
    for (std::size_t p = 0; p < fanout(); ++p) {
      partition_state& partition = partitions_[p];
      for (unsigned w = 0; w < workers; ++w) {
        const micro_partition_block& block = block_of(w, which);
        const std::size_t size = block.partition_size(p);
        if (size == 0) continue;
        const std::span<const tuple> open = block.open_fragment(p);
        const std::size_t tasks = block.directory(p).size() + (open.empty() ? 0 : 1);
        partition.tasks_left += tasks;
        if (which == side::build) {
          partition.build_tuples += size;
          partition.builds_left += tasks;
        }
        if (!open.empty()) spawn_fragment(self, p, open.data(), open.size(), which);
      }
    }
    if (pairs() && which == side::build) {
      marks_[2] = marks_[1];
      spawn_partition_tasks(&self, probe_, side::probe);
      return;
    }
    flushed_side_ = which;
    std::size_t flushed = 0;
    for (std::size_t p = 0; p < fanout(); ++p) flushed += partitions_[p].tasks_left != 0 ? 1 : 0;
    squads_left_.store(flushed, std::memory_order_release);
    for (std::size_t p = 0; p < fanout(); ++p) {
      if (partitions_[p].tasks_left != 0) self.flush(squads_[p]);
    }
  }

  tasks::task_result build_fragment(tasks::worker& self, std::size_t p, std::span<const tuple> fragment) {
    partition_state& partition = partitions_[p];
    if (partition.table == nullptr) partition.table = take_table(self, partition.build_tuples);
    partition.table->insert(fragment);
    std::size_t finished = 1;
    if (--partition.builds_left == 0) {
      join_output& out = workers_[self.id()].output;
      while (fragment_task* waiting = partition.waiting) {
        partition.waiting = waiting->next_waiting;
        partition.table->probe(waiting->fragment(), out);
        self.free(*waiting);
        ++finished;
      }
    }
    return finish_tasks(self, partition, finished);
  }

  tasks::task_result probe_fragment(tasks::worker& self, fragment_task& task) {
    partition_state& partition = partitions_[task.partition];
    if (partition.builds_left != 0) {
      task.next_waiting = partition.waiting;
      partition.waiting = &task;
      ++workers_[self.id()].waited;
      return tasks::task_result::keep();
    }
    if (partition.table != nullptr) partition.table->probe(task.fragment(), workers_[self.id()].output);
    return finish_tasks(self, partition, 1);
  }

  // `finished` fragment tasks of `partition` are done. The partition's last one (under pairs)
  // returns its table to the pool and counts the partition's squad off the flushed ones (one
  // atomic per squad, not per task); the last squad's ends the phase.
  tasks::task_result finish_tasks(tasks::worker& self, partition_state& partition, std::size_t finished) {
    partition.tasks_left -= finished;
    if (partition.tasks_left != 0) return tasks::task_result::remove();
    if (partition.table != nullptr && pairs()) {
      workers_[self.id()].free_tables.push_back(std::exchange(partition.table, nullptr));
    }
    if (squads_left_.fetch_sub(1, std::memory_order_acq_rel) != 1) return tasks::task_result::remove();
    if (flushed_side_ == side::build) {
      start_probe_phase(self);
      return tasks::task_result::remove();
    }
    marks_[4] = clock::now();
    return tasks::task_result::stop();
  }

  // p's table from this worker's pool, prepared for `expected` tuples.
  detail::inline_chain_table* take_table(tasks::worker& self, std::size_t expected) {
    worker_state& state = workers_[self.id()];
    detail::inline_chain_table* table = nullptr;
    if (state.free_tables.empty()) {
      table = state.tables.emplace_back(std::make_unique<detail::inline_chain_table>()).get();
    } else {
      table = state.free_tables.back();
      state.free_tables.pop_back();
    }
    table->prepare(expected, options_.bits);
    return table;
  }

  // Phases schedule, on the worker whose build task finished last: every table is built.
  void start_probe_phase(tasks::worker& self) {
    marks_[2] = clock::now();
    for (unsigned w = 0; w < runtime_.workers(); ++w) block_of(w, side::probe).reset(tuples_of_worker(probe_.size(), w));
    spawn_partition_tasks(&self, probe_, side::probe);
  }

  tasks::runtime& runtime_;
  micro_radix_join_options options_;
  std::vector<tasks::resource_ptr> squads_;  // one per partition
  std::vector<partition_state> partitions_;
  std::unique_ptr<worker_state[]> workers_;
  std::span<const tuple> build_;
  std::span<const tuple> probe_;
  side flushed_side_ = side::build;  // the side whose squads were flushed last
  // start, R partitioned, S partitioning started, S partitioned, probed
  std::array<clock::time_point, 5> marks_{};
  join_phase_times phases_;
  alignas(64) std::atomic<std::size_t> partitions_left_{0};
  alignas(64) std::atomic<std::size_t> squads_left_{0};  // flushed squads with tasks still to run
};

inline join_output micro_radix_join(tasks::runtime& runtime, std::span<const tuple> build,
                                    std::span<const tuple> probe, const micro_radix_join_options& options) {
  micro_radix_joiner joiner(runtime, options);
  return joiner.run(build, probe);
}

}  // namespace braid::join
