#include "threads.hpp"

#include "experiment.hpp"

namespace braid::bench {

std::vector<unsigned> thread_sweep_to_cores() {
  const unsigned cpus = static_cast<unsigned>(available_cpus().size());
  std::vector<unsigned> counts;
  for (unsigned threads = 1; threads < cpus; threads *= 2) counts.push_back(threads);
  counts.push_back(cpus);
  return counts;
}

std::vector<unsigned> thread_counts(const run_context& context, std::vector<unsigned> fallback) {
  return context.threads_or(std::move(fallback));
}

worker_team::worker_team(unsigned threads) : runner_(std::make_unique<thread_runner>(threads)) {}

technique_run worker_team::technique(std::string name, std::size_t operations,
                                     std::function<std::uint64_t(std::size_t begin, std::size_t end)> chunk_pass) {
  thread_runner* runner = runner_.get();
  return {std::move(name), [runner, operations, chunk_pass = std::move(chunk_pass)] {
            std::vector<std::uint64_t> checksums(runner->size(), 0);
            runner->run([&](unsigned worker) {
              const chunk mine = chunk_of(operations, runner->size(), worker);
              checksums[worker] = chunk_pass(mine.begin, mine.end);
            });
            std::uint64_t total = 0;
            for (std::uint64_t checksum : checksums) total += checksum;
            return total;
          }};
}

}  // namespace braid::bench
