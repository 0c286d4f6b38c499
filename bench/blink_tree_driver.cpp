#include "blink_tree_driver.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>

#include "braid/core/detail/counters.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/tasks/coroutine_bridge.hpp"

namespace braid::bench::blink_bench {

using tasks::annotated_task;
using tasks::on_runtime_with;
using tasks::prefetch_temporality;
using tasks::priority;
using tasks::runtime;
using tasks::task_result;
using tasks::worker;

value_type request_value(key_type key, std::uint64_t index) noexcept {
  std::uint64_t mixed = key * 0x9E3779B97F4A7C15ull;
  mixed ^= mixed >> 29;
  const std::uint64_t fingerprint = (mixed >> 32) | 1u;  // never 0: a zero value is never a written one
  return (fingerprint << 32) | (index & 0xFFFF'FFFFull);
}

bool written_for(key_type key, value_type value) noexcept {
  return (value >> 32) == (request_value(key, 0) >> 32);
}

void run_totals::add(const operation_result& result) noexcept {
  ++operations;
  switch (result.status) {
    case operation_status::found:
      ++found;
      checksum += result.value;
      break;
    case operation_status::absent: ++absent; break;
    case operation_status::inserted: ++inserted; break;
    case operation_status::updated: ++updated; break;
    case operation_status::present: ++present; break;
    case operation_status::erased: ++erased; break;
    case operation_status::scanned:
      scanned_entries += result.count;
      checksum += result.value;
      break;
  }
}

run_totals& run_totals::operator+=(const run_totals& other) noexcept {
  using totals = run_totals;
  return braid::detail::add_counters<&totals::operations, &totals::found, &totals::absent, &totals::inserted,
                                     &totals::updated, &totals::present, &totals::erased, &totals::scanned_entries,
                                     &totals::checksum>(*this, other);
}

namespace {

// Per worker or thread: what its operations produced. Written by its owner only; `completed`
// is also read by the other workers' fetchers.
struct alignas(64) tally {
  std::atomic<std::uint64_t> completed{0};
  run_totals totals;

  void record(std::span<operation_result> results, std::uint64_t request, const operation_result& result) noexcept {
    totals.add(result);
    if (!results.empty()) results[request] = result;
    completed.store(completed.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
};

run_totals sum(const std::unique_ptr<tally[]>& tallies, unsigned count) {
  run_totals total;
  for (unsigned index = 0; index < count; ++index) total += tallies[index].totals;
  return total;
}

void check_batch(std::size_t batch) {
  if (batch == 0) throw std::invalid_argument("request driver: batch size must be at least 1");
}

// ---- the task runtime ---------------------------------------------------------------------------

class runtime_driver final : public blink_tree_completion_sink {
 public:
  runtime_driver(blink_tree& tree, runtime& tasks, std::span<const request> requests, const driver_options& options,
                 std::span<operation_result> results)
      : tree_(tree),
        tasks_(tasks),
        requests_(requests),
        results_(results),
        options_(options),
        tallies_(new tally[tasks.workers()]) {}

  run_totals run() {
    check_batch(options_.batch);
    fetchers_left_.store(tasks_.workers(), std::memory_order_relaxed);
    for (unsigned index = 0; index < tasks_.workers(); ++index) {
      auto* batch_fetcher = tasks_.allocate<fetcher>(*this);
      batch_fetcher->annotate(priority::low);
      batch_fetcher->annotate_worker(static_cast<std::uint16_t>(index));
      tasks_.spawn(*batch_fetcher);
    }
    tasks_.run();
    return sum(tallies_, tasks_.workers());
  }

  void complete(worker& on, std::uint64_t request, const operation_result& result) override {
    tallies_[on.id()].record(results_, request, result);
  }

 private:
  // One per worker, low priority: takes the next batch when its worker runs dry, and once
  // every request is done (separator insertions included) leaves; the last one stops.
  struct fetcher : annotated_task<fetcher> {
    explicit fetcher(runtime_driver& owner) noexcept : driver(&owner) {}
    task_result execute(worker& self) {
      if (driver->spawn_next_batch(self)) return task_result::succeed(*this);
      if (!driver->all_done()) return task_result::succeed(*this);  // poll again when idle
      if (driver->fetchers_left_.fetch_sub(1, std::memory_order_acq_rel) == 1) return task_result::stop();
      return task_result::remove();
    }
    runtime_driver* driver;
  };

  bool spawn_next_batch(worker& self) {
    if (cursor_.load(std::memory_order_relaxed) >= requests_.size()) return false;
    const std::size_t begin = cursor_.fetch_add(options_.batch, std::memory_order_relaxed);
    if (begin >= requests_.size()) return false;
    const std::size_t end = std::min(requests_.size(), begin + options_.batch);
    for (std::size_t index = begin; index < end; ++index) spawn_operation(self, index);
    return true;
  }

  void spawn_operation(worker& self, std::size_t index) {
    const request& wanted = requests_[index];
    switch (wanted.kind) {
      case request_kind::read:
        if (options_.lookups == lookup_form::coroutine_bridge) {
          using mode = on_runtime_with<prefetch_temporality::non_temporal>;
          spawn_coroutine(self, tree_.lookup<mode>(wanted.key),
                          [this, index](worker& on, std::optional<value_type> value) {
                            complete(on, index, value ? operation_result{operation_status::found, *value, 0}
                                                      : operation_result{operation_status::absent, 0, 0});
                          });
        } else {
          self.spawn(*self.allocate<blink_tree_lookup_task>(tree_, wanted.key, *this, index));
        }
        return;
      case request_kind::insert:
        self.spawn(*self.allocate<blink_tree_write_task>(tree_, blink_tree_write_task::kind::insert_or_assign,
                                                         wanted.key, request_value(wanted.key, index), *this, index));
        return;
      case request_kind::insert_if_absent:
        self.spawn(*self.allocate<blink_tree_write_task>(tree_, blink_tree_write_task::kind::insert, wanted.key,
                                                         request_value(wanted.key, index), *this, index));
        return;
      case request_kind::update:
        self.spawn(*self.allocate<blink_tree_write_task>(tree_, blink_tree_write_task::kind::update, wanted.key,
                                                         request_value(wanted.key, index), *this, index));
        return;
      case request_kind::erase:
        self.spawn(
            *self.allocate<blink_tree_write_task>(tree_, blink_tree_write_task::kind::erase, wanted.key, 0, *this, index));
        return;
      case request_kind::scan:
        self.spawn(*self.allocate<blink_tree_scan_task>(tree_, wanted.key, wanted.scan_length, *this, index));
        return;
    }
  }

  [[nodiscard]] bool all_done() const noexcept {
    std::uint64_t completed = 0;
    for (unsigned index = 0; index < tasks_.workers(); ++index) {
      completed += tallies_[index].completed.load(std::memory_order_acquire);
    }
    return completed == requests_.size() && tree_.pending_separators() == 0;
  }

  blink_tree& tree_;
  runtime& tasks_;
  std::span<const request> requests_;
  std::span<operation_result> results_;
  driver_options options_;
  std::unique_ptr<tally[]> tallies_;
  alignas(64) std::atomic<std::size_t> cursor_{0};
  alignas(64) std::atomic<unsigned> fetchers_left_{0};
};

// ---- plain threads --------------------------------------------------------------------------------

operation_result run_plainly(blink_tree& tree, const request& wanted, std::uint64_t index) {
  switch (wanted.kind) {
    case request_kind::read:
      if (const std::optional<value_type> value = tree.find(wanted.key)) return {operation_status::found, *value, 0};
      return {operation_status::absent, 0, 0};
    case request_kind::insert: {
      const value_type value = request_value(wanted.key, index);
      return {tree.insert_or_assign(wanted.key, value) ? operation_status::inserted : operation_status::updated, value, 0};
    }
    case request_kind::insert_if_absent: {
      const value_type value = request_value(wanted.key, index);
      return {tree.insert(wanted.key, value) ? operation_status::inserted : operation_status::present, value, 0};
    }
    case request_kind::update: {
      const value_type value = request_value(wanted.key, index);
      return {tree.update(wanted.key, value) ? operation_status::updated : operation_status::absent, value, 0};
    }
    case request_kind::erase:
      return {tree.erase(wanted.key) ? operation_status::erased : operation_status::absent, 0, 0};
    case request_kind::scan: {
      const blink_tree::scan_summary seen = tree.scan(wanted.key, wanted.scan_length);
      return {operation_status::scanned, seen.checksum, seen.count};
    }
  }
  return {};
}

// Every thread takes batches from one cursor until the requests run out.
template <class Batch>
run_totals run_batches(thread_runner& threads, std::size_t count, std::size_t batch, Batch&& run_batch) {
  check_batch(batch);
  std::unique_ptr<tally[]> tallies(new tally[threads.size()]);
  std::atomic<std::size_t> cursor{0};
  threads.run([&](unsigned thread) {
    for (;;) {
      const std::size_t begin = cursor.fetch_add(batch, std::memory_order_relaxed);
      if (begin >= count) return;
      run_batch(tallies[thread], begin, std::min(count, begin + batch));
    }
  });
  return sum(tallies, threads.size());
}

// A finished lookup that stands in for a write in an interleaved batch.
coro<std::optional<value_type>> already_done() { co_return std::nullopt; }

}  // namespace

run_totals run_on_runtime(blink_tree& tree, runtime& tasks, std::span<const request> requests,
                          const driver_options& options, std::span<operation_result> results) {
  if (!results.empty() && results.size() < requests.size()) throw std::invalid_argument("request driver: results too short");
  runtime_driver driver(tree, tasks, requests, options, results);
  return driver.run();
}

run_totals run_on_threads(blink_tree& tree, thread_runner& threads, std::span<const request> requests, std::size_t batch,
                          std::span<operation_result> results) {
  if (!results.empty() && results.size() < requests.size()) throw std::invalid_argument("request driver: results too short");
  return run_batches(threads, requests.size(), batch, [&](tally& mine, std::size_t begin, std::size_t end) {
    for (std::size_t index = begin; index < end; ++index) {
      mine.record(results, index, run_plainly(tree, requests[index], index));
    }
  });
}

run_totals run_interleaved_on_threads(blink_tree& tree, thread_runner& threads, std::span<const request> requests,
                                      std::size_t batch, std::size_t group, std::span<operation_result> results) {
  if (!results.empty() && results.size() < requests.size()) throw std::invalid_argument("request driver: results too short");
  const interleaved_scheduler scheduler{group};
  using mode = interleaved_with<blink_tree::default_prefetch_hint>;
  return run_batches(threads, requests.size(), batch, [&](tally& mine, std::size_t begin, std::size_t end) {
    scheduler.run(
        end - begin,
        [&](std::size_t offset) {
          const std::size_t index = begin + offset;
          const request& wanted = requests[index];
          if (wanted.kind == request_kind::read) return tree.lookup<mode>(wanted.key);
          mine.record(results, index, run_plainly(tree, wanted, index));  // writes run plainly, in order
          return already_done();
        },
        [&](std::size_t offset, std::optional<value_type> value) {
          const std::size_t index = begin + offset;
          if (requests[index].kind != request_kind::read) return;
          mine.record(results, index,
                      value ? operation_result{operation_status::found, *value, 0}
                            : operation_result{operation_status::absent, 0, 0});
        });
  });
}

std::vector<operation_result> reference_results(std::span<const request> requests, std::map<key_type, value_type>& map) {
  std::vector<operation_result> results;
  for (std::size_t index = 0; index < requests.size(); ++index) {
    const request& wanted = requests[index];
    const value_type written = request_value(wanted.key, index);
    switch (wanted.kind) {
      case request_kind::read: {
        const auto found = map.find(wanted.key);
        results.push_back(found == map.end() ? operation_result{operation_status::absent, 0, 0}
                                             : operation_result{operation_status::found, found->second, 0});
        break;
      }
      case request_kind::insert: {
        const bool fresh = map.insert_or_assign(wanted.key, written).second;
        results.push_back({fresh ? operation_status::inserted : operation_status::updated, written, 0});
        break;
      }
      case request_kind::insert_if_absent: {
        const bool fresh = map.try_emplace(wanted.key, written).second;
        results.push_back({fresh ? operation_status::inserted : operation_status::present, written, 0});
        break;
      }
      case request_kind::update: {
        const auto found = map.find(wanted.key);
        if (found != map.end()) found->second = written;
        results.push_back({found == map.end() ? operation_status::absent : operation_status::updated, written, 0});
        break;
      }
      case request_kind::erase:
        results.push_back({map.erase(wanted.key) ? operation_status::erased : operation_status::absent, 0, 0});
        break;
      case request_kind::scan: {
        operation_result seen{operation_status::scanned, 0, 0};
        for (auto at = map.lower_bound(wanted.key); at != map.end() && seen.count < wanted.scan_length; ++at) {
          seen.value += at->second;
          ++seen.count;
        }
        results.push_back(seen);
        break;
      }
    }
  }
  return results;
}

}  // namespace braid::bench::blink_bench
