// task-cost: what the task runtime itself costs per task, with every byte in L1, so that no
// miss hides it (the measurement every change to the runtime is judged on). `--group` chains
// run at once; each is one task that adds its object's value to its sum, re-annotates itself
// with the next object of a ring of 64 and runs again, `--keys` tasks in all. A chain's last
// task clears its object and runs once more, unsynchronized, to add its sum to the pass's
// checksum (the plain loop computes the same sums) and, if it is the last chain, to stop the
// runtime. Per technique: ns, and TSC cycles a worker spends per task (wall cycles × workers
// / tasks); with --callgrind, instructions per task (of every worker: spawn-remote's count
// includes what the waiting worker runs while it polls for work).
//
//   plain             the same sums in a loop, no runtime
//   chain             1 worker, objects without synchronization, prefetching off: dispatch alone
//   chain-prefetch    the same with a fixed prefetch distance of 2 (the prefetch buffer's cost)
//   chain-optimistic  objects under olfit, read-only tasks: the optimistic read's saved bytes
//                     and validation on every task
//   spawn-local       each task allocates its successor, spawns it and frees itself
//   spawn-remote      2 workers; each task sends itself to the other worker
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "braid/tasks/runtime.hpp"
#include "experiment.hpp"
#include "measure.hpp"

namespace braid::bench {
namespace {

constexpr std::size_t ring_size = 64;

struct alignas(64) cell : tasks::resource {
  std::uint64_t value = 0;
};

// What every chain of a pass shares: the checksum and how many chains are still running.
struct alignas(64) pass_state {
  std::atomic<std::uint64_t> checksum{0};
  std::atomic<std::size_t> running{0};
};

enum class successor_form : std::uint8_t { self, fresh, other_worker };

// One chain: runs `left` more times over the ring, then once more unsynchronized to report.
struct hop : tasks::annotated_task<hop> {
  const tasks::resource_ptr* ring;  // the 64 annotated cells
  pass_state* state;
  std::uint64_t sum = 0;
  std::uint32_t position;
  std::uint32_t left;
  tasks::access_intent intent;
  successor_form form;
  bool reporting = false;

  hop(const tasks::resource_ptr* cells, pass_state* shared, std::uint32_t first, std::uint32_t steps,
      tasks::access_intent access, successor_form successor) noexcept
      : ring(cells), state(shared), position(first), left(steps), intent(access), form(successor) {
    annotate(ring[position], intent);
  }

  tasks::task_result execute(tasks::worker& self) {
    if (reporting) {
      state->checksum.fetch_add(sum, std::memory_order_relaxed);
      if (state->running.fetch_sub(1, std::memory_order_acq_rel) == 1) return tasks::task_result::stop();
      return tasks::task_result::remove();
    }
    sum += object_as<cell>()->value;
    position = static_cast<std::uint32_t>((position + 1) % ring_size);
    if (--left == 0) {
      reporting = true;
      clear_object();
      return tasks::task_result::succeed(*this);
    }
    switch (form) {
      case successor_form::fresh: {
        hop* next = self.allocate<hop>(ring, state, position, left, intent, form);
        next->sum = sum;
        return tasks::task_result::succeed_and_remove(*next);
      }
      case successor_form::other_worker:
        annotate(ring[position], intent);
        annotate_worker(static_cast<std::uint16_t>(1 - self.id()));
        return tasks::task_result::succeed(*this);
      case successor_form::self:
        break;
    }
    annotate(ring[position], intent);
    return tasks::task_result::succeed(*this);
  }
};

std::uint64_t value_at(std::size_t index) { return (index + 1) * 0x9E3779B97F4A7C15ull; }

// Chain `chain`'s share of `task_count` tasks (the first ones one more), at least one each.
std::uint32_t steps_of(std::size_t chain, std::size_t chains, std::size_t task_count) {
  return static_cast<std::uint32_t>(task_count / chains + (chain < task_count % chains ? 1 : 0));
}

std::uint64_t plain_sums(std::size_t chains, std::size_t task_count) {
  std::uint64_t checksum = 0;
  for (std::size_t chain = 0; chain < chains; ++chain) {
    const std::uint32_t steps = steps_of(chain, chains, task_count);
    for (std::uint32_t step = 0; step < steps; ++step) checksum += value_at((chain + step) % ring_size);
  }
  return checksum;
}

// A runtime of `workers` workers and the ring annotated for it with `protocol`.
struct task_setup {
  std::unique_ptr<tasks::runtime> runtime;
  std::vector<tasks::resource_ptr> ring;

  task_setup(unsigned workers, tasks::primitive protocol, cell* cells)
      : runtime(std::make_unique<tasks::runtime>(tasks::runtime_config{.workers = workers})) {
    for (std::size_t i = 0; i < ring_size; ++i) {
      const auto owner = static_cast<std::uint16_t>(i % workers);
      ring.push_back(runtime->annotate(&cells[i], {.protocol = protocol, .owner = owner}));
    }
  }

  // One pass: `chains` chains sharing `task_count` tasks; returns the sum of their sums.
  std::uint64_t run(std::size_t chains, std::size_t task_count, tasks::prefetch_distance distance,
                    tasks::access_intent intent, successor_form form) {
    runtime->set_prefetch_distance(distance);
    pass_state state;
    state.running.store(chains, std::memory_order_relaxed);
    for (std::size_t chain = 0; chain < chains; ++chain) {
      hop* first = runtime->allocate<hop>(ring.data(), &state, static_cast<std::uint32_t>(chain % ring_size),
                                          steps_of(chain, chains, task_count), intent, form);
      if (form == successor_form::other_worker) first->annotate_worker(static_cast<std::uint16_t>(chain % 2));
      runtime->spawn(*first);
    }
    runtime->run();
    return state.checksum.load(std::memory_order_relaxed);
  }
};

void run_task_cost(run_context& context) {
  const std::size_t task_count = context.keys_or(context.quick() ? 20'000 : 2'000'000);
  const unsigned repetitions = context.repetitions_or(context.quick() ? 3 : 9);
  const std::vector<std::size_t> groups = context.groups_or({1, 16});
  if (task_count < *std::max_element(groups.begin(), groups.end())) {
    throw usage_error("task-cost: --keys (tasks per pass) must be at least the number of chains (--group)");
  }
  if (task_count >= std::size_t{1} << 32) throw usage_error("task-cost: --keys (tasks per pass) must be below 2^32");

  auto cells = std::make_unique<cell[]>(ring_size);
  for (std::size_t i = 0; i < ring_size; ++i) cells[i].value = value_at(i);
  const bool wants_one_worker = context.selected("chain") || context.selected("chain-prefetch") ||
                                context.selected("spawn-local");
  std::optional<task_setup> unsynchronized, optimistic, two_workers;
  if (wants_one_worker) unsynchronized.emplace(1, tasks::primitive::none, cells.get());
  if (context.selected("chain-optimistic")) optimistic.emplace(1, tasks::primitive::olfit, cells.get());
  if (context.selected("spawn-remote")) two_workers.emplace(2, tasks::primitive::none, cells.get());
  context.note("cpus", std::to_string(std::thread::hardware_concurrency()) + " hardware threads");

  using tasks::access_intent;
  using tasks::prefetch_distance;
  for (const std::size_t chains : groups) {
    std::vector<technique_run> techniques;
    techniques.push_back({"plain", [&] { return plain_sums(chains, task_count); }});
    const auto add = [&](const char* name, task_setup* setup, prefetch_distance distance, access_intent intent,
                         successor_form form) {
      if (setup == nullptr || !context.selected(name)) return;
      techniques.push_back({name, [=] { return setup->run(chains, task_count, distance, intent, form); }});
    };
    task_setup* one = unsynchronized ? &*unsynchronized : nullptr;
    add("chain", one, prefetch_distance::off(), access_intent::write, successor_form::self);
    add("chain-prefetch", one, prefetch_distance::fixed(2), access_intent::write, successor_form::self);
    add("chain-optimistic", optimistic ? &*optimistic : nullptr, prefetch_distance::off(), access_intent::readonly,
        successor_form::self);
    add("spawn-local", one, prefetch_distance::off(), access_intent::write, successor_form::fresh);
    add("spawn-remote", two_workers ? &*two_workers : nullptr, prefetch_distance::off(), access_intent::write,
        successor_form::other_worker);

    const std::vector<measurement> measured = measure_interleaved(techniques, repetitions, &context);
    require_same_checksums(measured, "task-cost");
    const double plain_ns = find_measurement(measured, "plain").median_ns;
    for (const measurement& m : measured) {
      const unsigned workers = m.name == "spawn-remote" ? 2 : 1;
      // Every chain runs once more to report its sum: those runs are tasks too.
      const double runs = static_cast<double>(m.name == "plain" ? task_count : task_count + chains);
      result_row row;
      row.set("structure", "task-runtime")
          .set("technique", m.name)
          .set("group", static_cast<std::int64_t>(chains))
          .set("threads", static_cast<std::int64_t>(workers))
          .set("ops", static_cast<std::int64_t>(runs))
          .set("unit", m.name == "plain" ? "loop step" : "task")
          .set("ns_per_op", m.median_ns / runs)
          .set("mops", runs / m.median_ns * 1e3)
          .set("cycles_per_op", m.median_cycles * workers / runs)
          .set("ns_over_plain", (m.median_ns - plain_ns) / runs)
          .set("checksum", std::to_string(m.checksum));
      context.emit(std::move(row));
    }
  }
}

const registration task_cost{experiment{
    .name = "task-cost",
    .reproduces = "machinery (MxTasks §5.5: the runtime's cost per task; no paper figure)",
    .summary = "cycles per task of the task runtime, data in L1: a self-re-annotating chain (prefetch off / "
               "distance 2 / optimistic reads), a fresh task per step, a task sent to the other worker",
    .techniques = {"chain", "chain-prefetch", "chain-optimistic", "spawn-local", "spawn-remote"},
    .accepted = accepts_keys | accepts_group | accepts_technique,
    .run = run_task_cost,
}};

}  // namespace
}  // namespace braid::bench
