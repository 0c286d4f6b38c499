#include "measure.hpp"

#include <algorithm>
#include <stdexcept>

#include "braid/core/cycles.hpp"
#include "callgrind.hpp"
#include "experiment.hpp"

namespace braid::bench {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

std::vector<measurement> measure_interleaved(const std::vector<technique_run>& techniques,
                                             unsigned repetitions, const run_context* progress) {
  std::vector<measurement> results(techniques.size());
  std::vector<std::vector<double>> cycles(techniques.size());
  std::vector<std::string> names;
  for (const technique_run& technique : techniques) names.push_back(technique.name);
  const std::size_t call = record_measurement_call(names);
  for (std::size_t t = 0; t < techniques.size(); ++t) {
    results[t].name = techniques[t].name;
    results[t].checksum = techniques[t].run();  // warm-up: caches, TLB, frame pool
  }
  // Under callgrind: one counted pass per technique; the times mean nothing there.
  if (counting_instructions() || repetitions == 0) repetitions = 1;
  for (unsigned repetition = 0; repetition < repetitions; ++repetition) {
    if (progress != nullptr) {
      progress->progress("repetition " + std::to_string(repetition + 1) + "/" + std::to_string(repetitions));
    }
    for (std::size_t offset = 0; offset < techniques.size(); ++offset) {
      const std::size_t t = (repetition + offset) % techniques.size();
      if (counting_instructions()) begin_counted_pass();
      const std::int64_t start_ns = now_ns();
      const std::uint64_t start_cycles = read_cycle_counter();
      const std::uint64_t checksum = techniques[t].run();
      const std::uint64_t elapsed_cycles = read_cycle_counter() - start_cycles;
      const std::int64_t elapsed_ns = now_ns() - start_ns;
      if (counting_instructions()) end_counted_pass({call, techniques[t].name});
      if (checksum != results[t].checksum) {
        throw std::logic_error("technique '" + techniques[t].name + "' computed a different checksum on repetition " +
                               std::to_string(repetition + 1));
      }
      results[t].samples_ns.push_back(static_cast<double>(elapsed_ns));
      cycles[t].push_back(static_cast<double>(elapsed_cycles));
    }
  }
  for (std::size_t t = 0; t < techniques.size(); ++t) {
    results[t].median_ns = median(results[t].samples_ns);
    results[t].median_cycles = median(cycles[t]);
    results[t].min_ns = *std::min_element(results[t].samples_ns.begin(), results[t].samples_ns.end());
  }
  return results;
}

void require_same_checksums(const std::vector<measurement>& measurements, const std::string& what) {
  for (const measurement& m : measurements) {
    if (m.checksum != measurements.front().checksum) {
      throw std::logic_error(what + ": technique '" + m.name + "' disagrees with '" + measurements.front().name +
                             "' (checksum " + std::to_string(m.checksum) + " vs " +
                             std::to_string(measurements.front().checksum) + ")");
    }
  }
}

const measurement& find_measurement(const std::vector<measurement>& measurements, const std::string& name) {
  for (const measurement& m : measurements) {
    if (m.name == name) return m;
  }
  throw std::logic_error("no measurement named '" + name + "'");
}

}  // namespace braid::bench
