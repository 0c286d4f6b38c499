// The roofline's sequential-read bandwidth: the measurement (a sane positive figure for 1 and 2
// threads, its arguments checked), the process's figure once adopted, and `braid-bench roofline` end to end, whose output keeps the
// pointer-chase rows and adds one sequential-read row for one thread and one for all threads
// over the --size given.
// braid-test: concurrent
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "bench_program.hpp"
#include "braid/core/thread_runner.hpp"
#include "experiment.hpp"
#include "roofline.hpp"

namespace braid::bench {
namespace {

using namespace test_support;

TEST(ReadBandwidth, MeasuresAPositiveRate) {
  for (const unsigned threads : {1u, 2u}) {
    const read_bandwidth measured = measure_read_bandwidth(std::size_t{4} << 20, threads, 2);
    EXPECT_EQ(measured.threads, threads);
    EXPECT_EQ(measured.buffer_bytes, std::size_t{4} << 20);
    EXPECT_FALSE(measured.pages.empty());
    EXPECT_TRUE(std::isfinite(measured.gigabytes_per_s) && measured.gigabytes_per_s > 0) << measured.gigabytes_per_s;
  }
  // A size that is not a whole number of words per thread is rounded down to one.
  EXPECT_EQ(measure_read_bandwidth((std::size_t{1} << 20) + 20, 3, 1).buffer_bytes % (3 * sizeof(std::uint64_t)), 0u);
}

TEST(ReadBandwidth, RefusesMeaninglessArguments) {
  EXPECT_THROW(measure_read_bandwidth(1024, 1, 1), std::invalid_argument);
  EXPECT_THROW(measure_read_bandwidth(std::size_t{4} << 20, 0, 1), std::invalid_argument);
  EXPECT_THROW(measure_read_bandwidth(std::size_t{4} << 20, 1, 0), std::invalid_argument);
}

TEST(ReadBandwidth, AnAdoptedFigureIsTheProcesss) {
  const experiment definition{.name = "reader", .reproduces = "-", .summary = "-", .techniques = {}, .accepted = 0,
                              .run = [](run_context&) {}};
  std::ostringstream quiet;
  run_context context(definition, options{}, quiet);
  adopt_read_bandwidth({.threads = 3, .buffer_bytes = std::size_t{1} << 20, .pages = "4k", .gigabytes_per_s = 12.5});
  const read_bandwidth& figure = measured_read_bandwidth(context);
  EXPECT_EQ(figure.threads, 3u);
  EXPECT_EQ(figure.gigabytes_per_s, 12.5);
  bool noted = false;
  for (const auto& [key, value] : context.notes()) noted = noted || (key == "read_bandwidth" && value.starts_with("12.5 GB/s"));
  EXPECT_TRUE(noted);
}

class RooflineCommand : public bench_program_test {};

TEST_F(RooflineCommand, ReportsTheChaseAndTheSequentialRead) {
  const run_output output =
      parse_csv(run_program({program, "roofline", "--quick", "--size", "2MiB", "--pages", "4k", "--format", "csv"}));
  ASSERT_EQ(output.exit_status, 0) << output.text;
  std::size_t chases = 0;
  std::vector<row> reads;
  for (const row& r : output.rows) {
    if (r.at("technique") == "pointer-chase") {
      ++chases;
      EXPECT_GT(number(r, "lines_per_ns"), 0);
    } else if (r.at("technique") == "sequential-read") {
      reads.push_back(r);
    }
  }
  EXPECT_GT(chases, 0u);
  ASSERT_EQ(reads.size(), 2u) << output.text;
  EXPECT_EQ(reads[0].at("read_scope"), "one thread");
  EXPECT_EQ(reads[0].at("threads"), "1");
  EXPECT_EQ(reads[1].at("read_scope"), "all threads");
  EXPECT_EQ(reads[1].at("threads"), std::to_string(available_cpus().size()));
  for (const row& r : reads) {
    EXPECT_EQ(r.at("size_bytes"), std::to_string(std::size_t{2} << 20));  // the --size given
    EXPECT_GT(number(r, "read_gigabytes_per_s"), 0);
    EXPECT_TRUE(r.at("lines_per_ns").empty()) << "a read row must not count as a chase rate";
  }
}

}  // namespace
}  // namespace braid::bench
