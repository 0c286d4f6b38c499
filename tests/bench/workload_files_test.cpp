// YCSB-style workload files: the parser (valid forms, every malformed case with its file and
// line), the writer (round trip through a file larger than the reader's chunk), and the YCSB
// generator (hashed insert order, proportions, key choice, determinism).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "workload_files.hpp"
#include "workloads.hpp"

namespace braid::bench {
namespace {

using kind = workload_operation_kind;

TEST(WorkloadFiles, ParsesEveryOperationAndTheUsualWhitespace) {
  const std::string text =
      "INSERT 1\nREAD 18446744073709551615\r\n\n  UPDATE\t42  \nDELETE 0\nSCAN 7 100\n\t\nSCAN 8 4294967295";
  const std::vector<workload_operation> parsed = parse_workload(text, "memory");
  const std::vector<workload_operation> expected = {
      {1, 0, kind::insert},  {18446744073709551615ull, 0, kind::read}, {42, 0, kind::update},
      {0, 0, kind::erase},   {7, 100, kind::scan},                     {8, 4294967295u, kind::scan}};
  EXPECT_EQ(parsed, expected);
  EXPECT_TRUE(parse_workload("", "empty").empty());
  EXPECT_TRUE(parse_workload("\n\n", "blank").empty());
}

TEST(WorkloadFiles, AMalformedLineNamesTheFileAndLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"READ 1\nFETCH 2\n", "work.txt:2: unknown operation 'FETCH'"},
      {"read 1\n", "work.txt:1: unknown operation 'read'"},
      {"READ 1\n\nINSERT\n", "work.txt:3: INSERT needs a key"},
      {"UPDATE x12\n", "work.txt:1: key 'x12' is not a decimal unsigned integer"},
      {"READ 12x\n", "work.txt:1: key '12x' is not a decimal unsigned integer"},
      {"READ -1\n", "work.txt:1: key '-1' is not a decimal unsigned integer"},
      {"READ +1\n", "work.txt:1: key '+1' is not a decimal unsigned integer"},
      {"READ 18446744073709551616\n", "work.txt:1: key '18446744073709551616' is out of range"},
      {"SCAN 5\n", "work.txt:1: SCAN needs a key and a length"},
      {"SCAN 5 0\n", "work.txt:1: scan length must be at least 1"},
      {"SCAN 5 4294967296\n", "work.txt:1: scan length '4294967296' is out of range"},
      {"READ 5 6\n", "work.txt:1: unexpected '6' after the operation"},
      {"SCAN 5 6 7\n", "work.txt:1: unexpected '7' after the operation"},
      {"INSERT 1\r\nINSERT 2 extra\r\n", "work.txt:2: unexpected 'extra'"},
  };
  for (const auto& [text, message] : cases) {
    try {
      (void)parse_workload(text, "work.txt");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const usage_error& error) {
      EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what() << " (wanted " << message << ")";
    }
  }
}

class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& name)
      : path_((std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))).string()) {}
  ~TemporaryFile() { std::remove(path_.c_str()); }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(WorkloadFiles, RoundTripThroughAFileLargerThanOneReadChunk) {
  const generated_workload made = generate_ycsb({.workload = ycsb_workload::e, .records = 700'000, .operations = 100'000,
                                                 .requests = {.shape = key_distribution::kind::zipf}, .seed = 3});
  TemporaryFile fill("braid-fill");
  TemporaryFile run("braid-run");
  write_workload_file(fill.path(), made.fill);
  write_workload_file(run.path(), made.run);
  EXPECT_GT(std::filesystem::file_size(fill.path()), std::uintmax_t{16} << 20) << "spans several 16 MiB chunks";
  EXPECT_EQ(read_workload_file(fill.path()), made.fill);
  EXPECT_EQ(read_workload_file(run.path()), made.run);
}

TEST(WorkloadFiles, UnreadableAndHalfBadFilesAreRefusedWhole) {
  EXPECT_THROW((void)read_workload_file("/nonexistent/braid/workload.txt"), usage_error);
  TemporaryFile file("braid-bad");
  {
    std::ofstream out(file.path());
    for (int line = 0; line < 1000; ++line) out << "READ " << line << '\n';
    out << "READ ten\n";
  }
  try {
    (void)read_workload_file(file.path());
    FAIL() << "a malformed last line must refuse the file";
  } catch (const usage_error& error) {
    EXPECT_NE(std::string(error.what()).find(file.path() + ":1001: key 'ten'"), std::string::npos) << error.what();
  }
}

TEST(YcsbGenerator, FillsInHashedInsertOrder) {
  const generated_workload made = generate_ycsb({.workload = ycsb_workload::c, .records = 1000, .operations = 10});
  ASSERT_EQ(made.fill.size(), 1000u);
  for (std::uint64_t index = 0; index < made.fill.size(); ++index) {
    ASSERT_EQ(made.fill[index], (workload_operation{ycsb_fnv_hash64(index), 0, kind::insert}));
  }
}

TEST(YcsbGenerator, ProportionsKeysAndDeterminism) {
  constexpr std::uint64_t records = 20'000;
  constexpr std::uint64_t operations = 40'000;
  const std::pair<ycsb_workload, std::map<kind, double>> mixes[] = {
      {ycsb_workload::a, {{kind::read, 0.5}, {kind::update, 0.5}}},
      {ycsb_workload::b, {{kind::read, 0.95}, {kind::update, 0.05}}},
      {ycsb_workload::c, {{kind::read, 1.0}}},
      {ycsb_workload::d, {{kind::read, 0.95}, {kind::insert, 0.05}}},
      {ycsb_workload::e, {{kind::scan, 0.95}, {kind::insert, 0.05}}},
  };
  for (const key_distribution::kind shape : {key_distribution::kind::zipf, key_distribution::kind::uniform}) {
    for (const auto& [workload, mix] : mixes) {
      const ycsb_spec spec{.workload = workload, .records = records, .operations = operations, .requests = {.shape = shape}};
      const generated_workload made = generate_ycsb(spec);
      ASSERT_EQ(made.run.size(), operations);
      std::map<kind, double> seen;
      std::set<std::uint64_t> existing;
      for (const workload_operation& operation : made.fill) existing.insert(operation.key);
      std::uint64_t next_insert = records;
      for (const workload_operation& operation : made.run) {
        seen[operation.kind] += 1.0 / operations;
        if (operation.kind == kind::insert) {
          ASSERT_EQ(operation.key, ycsb_fnv_hash64(next_insert++)) << "inserts continue the hashed order";
          existing.insert(operation.key);
        } else {
          ASSERT_TRUE(existing.contains(operation.key)) << "requests name inserted records only";
        }
        if (operation.kind == kind::scan) {
          ASSERT_GE(operation.scan_length, 1u);
          ASSERT_LE(operation.scan_length, 100u);
        }
      }
      for (const auto& [operation, share] : mix) {
        EXPECT_NEAR(seen[operation], share, 0.01) << static_cast<char>(workload) << ' ' << to_string(operation);
      }
      EXPECT_EQ(generate_ycsb(spec).run, made.run) << "deterministic for a seed";
      ycsb_spec reseeded = spec;
      reseeded.seed += 1;
      EXPECT_NE(generate_ycsb(reseeded).run, made.run);
    }
  }
}

TEST(YcsbGenerator, ReadModifyWriteIsAReadThenAnUpdateOfOneKey) {
  const generated_workload made = generate_ycsb({.workload = ycsb_workload::f, .records = 5000, .operations = 10'000});
  std::size_t pairs = 0;
  for (std::size_t index = 0; index < made.run.size(); ++index) {
    if (made.run[index].kind != kind::update) continue;
    ASSERT_GT(index, 0u);
    ASSERT_EQ(made.run[index - 1].kind, kind::read);
    ASSERT_EQ(made.run[index - 1].key, made.run[index].key);
    ++pairs;
  }
  EXPECT_EQ(made.run.size(), 10'000 + pairs);
  EXPECT_NEAR(static_cast<double>(pairs) / 10'000, 0.5, 0.02);
}

TEST(YcsbGenerator, SkewsAsYcsbDoes) {
  // Scrambled Zipfian: a few records take a large share; uniform: none does.
  constexpr std::uint64_t records = 100'000;
  auto top_share = [](const std::vector<workload_operation>& run) {
    std::map<std::uint64_t, std::size_t> counts;
    for (const workload_operation& operation : run) ++counts[operation.key];
    std::vector<std::size_t> sorted;
    for (const auto& [key, count] : counts) sorted.push_back(count);
    std::sort(sorted.rbegin(), sorted.rend());
    std::size_t top = 0;
    for (std::size_t index = 0; index < std::min<std::size_t>(100, sorted.size()); ++index) top += sorted[index];
    return static_cast<double>(top) / static_cast<double>(run.size());
  };
  const double zipf = top_share(generate_ycsb({.records = records, .operations = 100'000,
                                                .requests = {.shape = key_distribution::kind::zipf}}).run);
  const double uniform = top_share(generate_ycsb({.records = records, .operations = 100'000,
                                                   .requests = {.shape = key_distribution::kind::uniform}}).run);
  EXPECT_GT(zipf, 0.15) << "the 100 hottest of 100k records";
  EXPECT_LT(uniform, 0.01);
  // Latest (D): reads concentrate on the most recent inserts.
  const generated_workload latest = generate_ycsb({.workload = ycsb_workload::d, .records = records, .operations = 100'000});
  std::set<std::uint64_t> recent;
  for (std::uint64_t index = records - 1000; index < records + 10'000; ++index) recent.insert(ycsb_fnv_hash64(index));
  std::size_t recent_reads = 0;
  std::size_t reads = 0;
  for (const workload_operation& operation : latest.run) {
    if (operation.kind != kind::read) continue;
    ++reads;
    recent_reads += recent.contains(operation.key);
  }
  EXPECT_GT(static_cast<double>(recent_reads) / static_cast<double>(reads), 0.5);
}

TEST(YcsbGenerator, RefusesWhatYcsbCannotDo) {
  EXPECT_THROW(generate_ycsb({.records = 1, .operations = 1}), usage_error);
  EXPECT_THROW(generate_ycsb({.records = 10, .operations = 1, .requests = {.shape = key_distribution::kind::sorted}}),
               usage_error);
  EXPECT_THROW(parse_ycsb_workload("g"), usage_error);
  EXPECT_THROW(parse_ycsb_workload("ab"), usage_error);
  EXPECT_EQ(parse_ycsb_workload("C"), ycsb_workload::c);
}

}  // namespace
}  // namespace braid::bench
