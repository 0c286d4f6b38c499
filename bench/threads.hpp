// Thread sweeps for experiments: a technique's pass run by N pinned workers, each over its own
// contiguous chunk of the operations (the multithreaded interleaved execution of the papers:
// one scheduler per thread).
//
//   const std::vector<unsigned> counts = thread_counts(context);   // --threads, default 1
//   for (unsigned threads : counts) {
//     worker_team team(threads);                                    // created outside the timing
//     techniques.push_back(team.technique("coro", operations, [&](std::size_t begin, std::size_t end) {
//       ... run operations [begin, end) with this worker's own scheduler; return a checksum ...
//     }));
//   }
//
// --threads above the CPUs available is refused with exit status 2 by the option check
// (check_options): pinned workers sharing a CPU would measure the OS scheduler, not the
// technique. thread_sweep_to_cores() is the default sweep: 1, 2, 4, ... and the core count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "braid/core/thread_runner.hpp"
#include "measure.hpp"

namespace braid::bench {

class run_context;

// 1, 2, 4, ... up to the CPUs available, the CPU count last.
std::vector<unsigned> thread_sweep_to_cores();

// --threads, else `fallback` (default: one thread).
std::vector<unsigned> thread_counts(const run_context& context, std::vector<unsigned> fallback = {1});

class worker_team {
 public:
  explicit worker_team(unsigned threads);

  [[nodiscard]] unsigned size() const noexcept { return runner_->size(); }
  [[nodiscard]] bool pinned() const noexcept { return runner_->pinned(); }

  // One full pass of `operations`: every worker runs chunk_pass(begin, end) over its chunk
  // (chunk_of) concurrently; the pass's checksum is the sum of the workers' checksums, so it
  // does not depend on the thread count when each operation adds its own share.
  [[nodiscard]] technique_run technique(std::string name, std::size_t operations,
                                        std::function<std::uint64_t(std::size_t begin, std::size_t end)> chunk_pass);

 private:
  std::unique_ptr<thread_runner> runner_;  // a stable address for the passes that capture it
};

}  // namespace braid::bench
