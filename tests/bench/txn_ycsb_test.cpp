// braid-bench run txn-ycsb as a user runs it: every log mode and isolation level in --quick
// form, rows of the common schema whose checksum equals a plain recomputation of the same
// transactions over a std::unordered_map, every option and setting visible in what ran, and
// bad values refused with exit status 2 and one line. Built with the path of the braid-bench of
// the same build; skipped in builds without the program.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include "bench_program.hpp"
#include "experiments/txn_ycsb.hpp"
#include "process.hpp"

namespace braid::bench {
namespace {

using namespace test_support;

run_output bench(const std::vector<std::string>& arguments) { return run_experiment_csv("txn-ycsb", arguments); }

// The checksum of the first `transactions` transactions of the stream, recomputed without the
// engine: the records in a std::map, each read returning what the map holds (an absent key:
// nothing), each write storing value_of(key) when the key is present, each scan visiting the
// map in key order.
std::uint64_t reference_checksum(const txn_ycsb::workload_shape& shape, std::size_t transactions) {
  std::map<std::uint64_t, std::uint64_t> records;
  for (std::size_t record = 0; record < shape.records; ++record) {
    const std::uint64_t key = txn_ycsb::record_key(record);
    records[key] = value_of(key);
  }
  const txn_ycsb::transaction_stream stream = txn_ycsb::make_stream(shape);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < transactions * shape.operations_per_transaction; ++i) {
    const txn_ycsb::operation& op = stream.operations[i];
    auto found = records.find(op.key);
    if (op.kind == txn_ycsb::operation_kind::scan) {
      auto at = records.lower_bound(op.key);
      for (std::uint32_t n = 0; n < op.scan_length && at != records.end(); ++n, ++at) {
        sum += txn_ycsb::read_share(at->second);
      }
      continue;
    }
    if (op.kind != txn_ycsb::operation_kind::update) {
      sum += txn_ycsb::read_share(found == records.end() ? std::nullopt : std::optional(found->second));
    }
    if (txn_ycsb::writes(op) && found != records.end()) {
      found->second = value_of(op.key);
      sum += txn_ycsb::update_share;
    }
  }
  return sum;
}

// How many of the first `transactions` transactions write something: the commits that log.
std::size_t updating_transactions(const txn_ycsb::workload_shape& shape, std::size_t transactions) {
  const txn_ycsb::transaction_stream stream = txn_ycsb::make_stream(shape);
  std::size_t count = 0;
  for (std::size_t t = 0; t < transactions; ++t) {
    const auto first = stream.operations.begin() + static_cast<std::ptrdiff_t>(t * shape.operations_per_transaction);
    count += std::any_of(first, first + static_cast<std::ptrdiff_t>(shape.operations_per_transaction),
                         txn_ycsb::writes)
                 ? 1
                 : 0;
  }
  return count;
}

// The stream's shape a --quick run with these settings generates (the longest pass it runs).
txn_ycsb::workload_shape quick_shape(std::size_t records, std::size_t transactions, std::size_t ops,
                                     txn_ycsb::transaction_mix mix, key_distribution distribution = {},
                                     std::uint64_t seed = 42) {
  return {.records = records,
          .transactions = transactions,
          .operations_per_transaction = ops,
          .mix = mix,
          .distribution = distribution,
          .seed = seed};
}

using TxnYcsb = bench_program_test;

TEST_F(TxnYcsb, EveryLogModeAndIsolationRunsWithQuickAndReadsWhatAPlainMapHolds) {
  // --quick: 20,000 records, 2,000 transactions a pass; sync: 100 x group x threads.
  const run_output run = bench({"--quick", "--set", "log=memory,none,async,sync", "--group", "1,4"});
  ASSERT_EQ(run.exit_status, 0) << run.text;
  ASSERT_EQ(run.rows.size(), 4u * 2 * 2) << run.text;  // log modes x isolation levels x groups
  const txn_ycsb::workload_shape shape = quick_shape(20'000, 2'000, 10, txn_ycsb::transaction_mix::ycsb_a);
  std::map<std::size_t, std::uint64_t> reference;  // by transactions per pass
  std::map<std::string, int> seen;
  for (const row& fields : run.rows) {
    for (const char* field : {"experiment", "structure", "technique", "group", "threads", "size_bytes", "ops", "ns_per_op",
                              "mops", "speedup_vs_naive", "commits_per_s", "latency_p50_us", "latency_p99_us",
                              "aborts_write_conflict", "aborts_serialization", "log_bytes_per_commit",
                              "fsyncs_per_commit", "checksum"}) {
      EXPECT_TRUE(fields.contains(field) && !fields.at(field).empty()) << field << " missing in " << run.text;
    }
    EXPECT_EQ(fields.at("experiment"), "txn-ycsb");
    const std::string log = fields.at("log");
    const std::string technique = fields.at("technique");
    const auto group = static_cast<std::size_t>(number(fields, "group"));
    ++seen[log + " " + technique + " " + std::to_string(group)];
    EXPECT_EQ(fields.at("records"), "20000");
    EXPECT_EQ(fields.at("threads"), "1");
    EXPECT_EQ(fields.at("mix"), "ycsb-a");
    EXPECT_EQ(fields.at("ops_per_txn"), "10");
    EXPECT_EQ(fields.at("distribution"), "uniform");
    const auto transactions = static_cast<std::size_t>(number(fields, "ops"));
    EXPECT_EQ(transactions, log == "sync" ? 100 * group : 2'000u) << log;
    if (!reference.contains(transactions)) reference[transactions] = reference_checksum(shape, transactions);
    EXPECT_EQ(fields.at("checksum"), std::to_string(reference[transactions])) << log << " " << technique;
    EXPECT_GT(number(fields, "commits_per_s"), 0);
    EXPECT_GT(number(fields, "size_bytes"), 20'000.0 * 100);
    EXPECT_LE(number(fields, "latency_p50_us"), number(fields, "latency_p99_us"));
    EXPECT_GT(number(fields, "latency_p50_us"), 0);
    EXPECT_GE(number(fields, "abort_rate"), 0);
    EXPECT_LT(number(fields, "abort_rate"), 1);
    // One thread: nothing conflicts; SSN certifies a lone writer.
    EXPECT_EQ(number(fields, "aborts_write_conflict") + number(fields, "aborts_serialization"), 0) << log;
    // In memory nothing is logged; every other mode counts a commit block for each transaction
    // that updated something (a transaction that only read logs nothing), with its records
    // (ycsb-a: 5 updates of an 8-byte key and value per transaction on average).
    if (log == "memory") {
      EXPECT_EQ(number(fields, "log_bytes_per_commit"), 0);
      EXPECT_EQ(fields.at("logged_commits"), "0");
    } else {
      EXPECT_GT(number(fields, "log_bytes_per_commit"), 5 * 16.0) << log;
      EXPECT_EQ(fields.at("logged_commits"), std::to_string(updating_transactions(shape, transactions))) << log;
    }
    // Every transaction committed once a pass.
    EXPECT_EQ(fields.at("commits"), fields.at("ops"));
    EXPECT_EQ(fields.at("timed_passes"), "1");
    // Only a synced log fdatasyncs on commit (async may sync once in a while).
    if (log == "memory" || log == "none") {
      EXPECT_EQ(number(fields, "fsyncs_per_commit"), 0) << log;
    }
    if (log == "sync") {
      EXPECT_GT(number(fields, "fsyncs_per_commit"), 0);
      EXPECT_LE(number(fields, "fsyncs_per_commit"), 1.0 + 1e-9);
    }
    if (technique == "snapshot") {
      EXPECT_DOUBLE_EQ(number(fields, "speedup_vs_snapshot"), 1.0);
    }
  }
  EXPECT_EQ(seen.size(), 16u);
}

TEST_F(TxnYcsb, EveryOptionChangesWhatRuns) {
  const std::filesystem::path directory =
      std::filesystem::temp_directory_path() / ("braid-txn-ycsb-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);
  // Records, operations per transaction, mix, transactions, group, isolation, log mode, seed,
  // distribution and the log directory, each away from its default.
  const run_output changed =
      bench({"--quick", "--keys", "3000", "--set", "ops=3", "--set", "mix=single-update", "--set", "transactions=321",
             "--group", "2", "--technique", "serializable", "--set", "log=async", "--seed", "7", "--dist", "zipf:0.5",
             "--set", "log-dir=" + directory.string(), "--repetitions", "2"});
  ASSERT_EQ(changed.exit_status, 0) << changed.text;
  ASSERT_EQ(changed.rows.size(), 1u) << changed.text;
  const row& fields = changed.rows.front();
  EXPECT_EQ(fields.at("records"), "3000");
  EXPECT_EQ(fields.at("ops_per_txn"), "3");
  EXPECT_EQ(fields.at("mix"), "single-update");
  EXPECT_EQ(fields.at("ops"), "321");
  EXPECT_EQ(fields.at("group"), "2");
  EXPECT_EQ(fields.at("technique"), "serializable");
  EXPECT_EQ(fields.at("log"), "async");
  EXPECT_EQ(fields.at("distribution"), "zipf:0.5");
  EXPECT_EQ(fields.at("timed_passes"), "2");
  key_distribution zipf{.shape = key_distribution::kind::zipf, .theta = 0.5};
  EXPECT_EQ(fields.at("checksum"),
            std::to_string(reference_checksum(
                quick_shape(3000, 321, 3, txn_ycsb::transaction_mix::single_update, zipf, 7), 321)));
  // One update per transaction, one commit block each.
  EXPECT_EQ(fields.at("logged_commits"), "321");
  // The database lived under log-dir and was removed with everything in it.
  EXPECT_NE(changed.text.find(directory.string()), std::string::npos) << changed.text;
  EXPECT_TRUE(std::filesystem::is_empty(directory));
  std::filesystem::remove_all(directory);

  // --size sets the records (at the engine's footprint); read-only transactions log nothing.
  const run_output sized = bench({"--quick", "--size", "1MiB", "--set", "mix=read-only", "--set", "log=none",
                                  "--technique", "snapshot", "--group", "1", "--set", "transactions=50"});
  ASSERT_EQ(sized.exit_status, 0) << sized.text;
  ASSERT_EQ(sized.rows.size(), 1u) << sized.text;
  const auto records = static_cast<std::size_t>(number(sized.rows[0], "records"));
  EXPECT_GT(records, 1000u);
  EXPECT_LT(records, 20'000u);
  EXPECT_EQ(sized.rows[0].at("mix"), "read-only");
  EXPECT_EQ(number(sized.rows[0], "log_bytes_per_commit"), 0);
  EXPECT_EQ(sized.rows[0].at("checksum"),
            std::to_string(reference_checksum(quick_shape(records, 50, 10, txn_ycsb::transaction_mix::read_only), 50)));

  // Two threads, where there are two CPUs: the transactions are split, the checksum stays; the
  // ycsb-b mix updates one operation in twenty.
  if (::sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
    const run_output threads = bench({"--quick", "--threads", "2", "--set", "log=memory", "--set", "mix=ycsb-b",
                                      "--group", "1,8", "--set", "transactions=400"});
    ASSERT_EQ(threads.exit_status, 0) << threads.text;
    ASSERT_EQ(threads.rows.size(), 4u) << threads.text;
    const std::uint64_t expected =
        reference_checksum(quick_shape(20'000, 400, 10, txn_ycsb::transaction_mix::ycsb_b), 400);
    for (const row& each : threads.rows) {
      EXPECT_EQ(each.at("threads"), "2");
      EXPECT_EQ(each.at("mix"), "ycsb-b");
      EXPECT_EQ(each.at("checksum"), std::to_string(expected));
    }
  }
}

// The coroutine-to-transaction executions: every execution and batch asked for runs, the
// plain engine's rows stay apart, and every pass reads what the plain map holds.
TEST_F(TxnYcsb, InterleavedExecutionsRunEachBatchAskedFor) {
  const run_output run = bench({"--quick", "--keys", "2500", "--set",
                                "execution=plain,interleaved,interleaved-refill,interleaved-nested",
                                "--set", "batch=1,5", "--set", "mix=ycsb-a", "--set", "log=none", "--set",
                                "transactions=300", "--technique", "snapshot", "--group", "3"});
  ASSERT_EQ(run.exit_status, 0) << run.text;
  ASSERT_EQ(run.rows.size(), 7u) << run.text;
  const std::string expected =
      std::to_string(reference_checksum(quick_shape(2500, 300, 10, txn_ycsb::transaction_mix::ycsb_a), 300));
  std::set<std::string> seen;
  for (const row& each : run.rows) {
    seen.insert(each.at("execution") + "@" + each.at("batch") + "/" + each.at("group"));
    EXPECT_EQ(each.at("checksum"), expected) << each.at("execution");
    EXPECT_EQ(each.at("ops"), "300");
    EXPECT_EQ(each.at("commits"), "300");
    EXPECT_EQ(each.at("logged_commits"), std::to_string(updating_transactions(
                                             quick_shape(2500, 300, 10, txn_ycsb::transaction_mix::ycsb_a), 300)));
    if (each.at("batch") == "1") {
      EXPECT_EQ(number(each, "abort_rate"), 0) << "one transaction at a time";
    }
  }
  EXPECT_EQ(seen, (std::set<std::string>{"plain@1/3", "interleaved@1/1", "interleaved@5/1", "interleaved-refill@1/1",
                                         "interleaved-refill@5/1", "interleaved-nested@1/1",
                                         "interleaved-nested@5/1"}));
}

// The newer mixes, key and value sizes and scan lengths reach the workload: each pass reads
// what the map holds, writes log as many commits as transactions that write, and the sizes
// show in the engine's memory.
TEST_F(TxnYcsb, EveryMixAndSizeRunsPlainAndInterleaved) {
  struct one_mix {
    std::string mix;
    txn_ycsb::transaction_mix parsed;
  };
  for (const one_mix& each : {one_mix{"update-only", txn_ycsb::transaction_mix::update_only},
                              one_mix{"rmw", txn_ycsb::transaction_mix::read_modify_write},
                              one_mix{"2rmw-8r", txn_ycsb::transaction_mix::two_rmw_eight_reads},
                              one_mix{"scan", txn_ycsb::transaction_mix::scan}}) {
    const run_output run = bench({"--quick", "--keys", "1500", "--set", "mix=" + each.mix, "--set", "key-bytes=24",
                                  "--set", "value-bytes=100", "--set", "scan-length=7", "--set", "transactions=120",
                                  "--set", "log=none", "--set", "execution=plain,interleaved", "--set", "batch=4",
                                  "--technique", "snapshot", "--group", "1"});
    ASSERT_EQ(run.exit_status, 0) << run.text;
    ASSERT_EQ(run.rows.size(), 2u) << run.text;
    txn_ycsb::workload_shape shape = quick_shape(1500, 120, 10, each.parsed);
    shape.key_bytes = 24;
    shape.value_bytes = 100;
    shape.longest_scan = 7;
    const std::string expected = std::to_string(reference_checksum(shape, 120));
    for (const row& fields : run.rows) {
      EXPECT_EQ(fields.at("mix"), each.mix);
      EXPECT_EQ(fields.at("checksum"), expected) << each.mix << " " << fields.at("execution");
      EXPECT_EQ(fields.at("logged_commits"), std::to_string(updating_transactions(shape, 120))) << each.mix;
      EXPECT_GT(number(fields, "size_bytes"), 1500.0 * (100 + 2 * 24)) << "the sizes reached the records";
    }
    EXPECT_NE(run.text.find("24-byte keys and 100-byte values"), std::string::npos) << run.text;
  }
}

// --set suspend reaches the engine: on a few hot records, batches of writers whose operations
// suspend overlap and conflict; with no suspension point each transaction of a batch runs to
// its end before the next starts, and nothing conflicts on one thread.
TEST_F(TxnYcsb, SuspensionPointsDecideWhetherABatchOverlaps) {
  auto run_with = [&](const std::string& places) {
    return bench({"--quick", "--keys", "50", "--dist", "zipf:0.99", "--set", "mix=ycsb-a", "--set", "log=memory",
                  "--set", "transactions=400", "--set", "execution=interleaved", "--set", "batch=8", "--set",
                  "suspend=" + places, "--technique", "snapshot"});
  };
  const run_output overlapping = run_with("all");
  const run_output one_at_a_time = run_with("none");
  const run_output entries_only = run_with("entry");
  for (const run_output* run : {&overlapping, &one_at_a_time, &entries_only}) {
    ASSERT_EQ(run->exit_status, 0) << run->text;
    ASSERT_EQ(run->rows.size(), 1u) << run->text;
  }
  EXPECT_EQ(overlapping.rows[0].at("suspend"), "all");
  EXPECT_EQ(one_at_a_time.rows[0].at("suspend"), "none");
  EXPECT_EQ(entries_only.rows[0].at("suspend"), "entry");
  EXPECT_GT(number(overlapping.rows[0], "aborts_write_conflict"), 0);
  EXPECT_GT(number(entries_only.rows[0], "aborts_write_conflict"), 0);
  EXPECT_EQ(number(one_at_a_time.rows[0], "aborts_write_conflict"), 0);
  EXPECT_EQ(overlapping.rows[0].at("checksum"), one_at_a_time.rows[0].at("checksum"));
}

// --workload FILL RUN: the fill's keys are the table, the run's lines the operations, ten a
// transaction; reads of absent keys read nothing, updates of absent keys write nothing, scans
// walk the filled keys in order.
TEST_F(TxnYcsb, WorkloadFilesAreTheRecordsAndTheOperations) {
  const std::filesystem::path directory =
      std::filesystem::temp_directory_path() / ("braid-txn-ycsb-files-" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);
  std::vector<std::uint64_t> filled;
  std::ostringstream fill;
  for (std::uint64_t i = 0; i < 500; ++i) {
    filled.push_back(i * 7919 + 13);
    fill << "INSERT " << filled.back() << "\n";
  }
  std::ostringstream run;
  std::map<std::uint64_t, std::uint64_t> records;
  for (std::uint64_t key : filled) records[key] = value_of(key);
  std::uint64_t expected = 0;
  for (std::uint64_t line = 0; line < 423; ++line) {  // 42 transactions; 3 lines left over
    const std::uint64_t key = line % 9 == 0 ? line * 7919 + 14 : filled[(line * 37) % filled.size()];
    const bool counted = line < 420;
    const auto found = records.find(key);
    if (line % 5 == 0) {
      run << "UPDATE " << key << "\n";
      if (counted && found != records.end()) expected += txn_ycsb::update_share;
    } else if (line % 7 == 0) {
      run << "SCAN " << key << " " << 1 + line % 4 << "\n";
      auto at = records.lower_bound(key);
      for (std::uint64_t n = 0; counted && n < 1 + line % 4 && at != records.end(); ++n, ++at) {
        expected += txn_ycsb::read_share(at->second);
      }
    } else {
      run << "READ " << key << "\n";
      if (counted) expected += txn_ycsb::read_share(found == records.end() ? std::nullopt : std::optional(found->second));
    }
  }
  const std::string fill_path = (directory / "fill.txt").string();
  const std::string run_path = (directory / "run.txt").string();
  std::ofstream(fill_path) << fill.str();
  std::ofstream(run_path) << run.str();
  const run_output ran = bench({"--quick", "--workload", fill_path, run_path, "--set", "log=none", "--set",
                                "execution=plain,interleaved", "--set", "batch=3", "--technique", "snapshot", "--group",
                                "1", "--set", "key-bytes=12"});
  ASSERT_EQ(ran.exit_status, 0) << ran.text;
  ASSERT_EQ(ran.rows.size(), 2u) << ran.text;
  for (const row& fields : ran.rows) {
    EXPECT_EQ(fields.at("records"), "500");
    EXPECT_EQ(fields.at("ops"), "42");
    EXPECT_EQ(fields.at("mix"), "workload-file");
    EXPECT_EQ(fields.at("checksum"), std::to_string(expected)) << fields.at("execution");
  }
  EXPECT_NE(ran.text.find("last 3 lines make no whole transaction"), std::string::npos) << ran.text;

  std::ofstream(directory / "inserting.txt") << "READ 13\nINSERT 99\n";
  std::vector<refused_arguments> bad = {
      {{"--workload", fill_path, (directory / "inserting.txt").string(), "--set", "ops=2"}, "INSERT"},
      {{"--workload", fill_path, run_path, "--keys", "100"}, "--keys"},
      {{"--workload", fill_path, run_path, "--dist", "uniform"}, "--dist"},
      {{"--workload", fill_path, run_path, "--set", "mix=read-only"}, "mix"},
      {{"--workload", fill_path, run_path, "--set", "transactions=43"}, "transactions=43"},
      {{"--workload", fill_path, run_path, "--set", "execution=multi-get-amac"}, "multi_get"},
      {{"--workload", run_path, run_path}, "may only INSERT"},
  };
  for (refused_arguments& each : bad) each.arguments.insert(each.arguments.begin(), "--quick");
  expect_refused("txn-ycsb", bad);
  std::filesystem::remove_all(directory);
}

// multi_get executions read a read-only transaction's keys in one call, group by group.
TEST_F(TxnYcsb, MultiGetExecutionsReadWhatTheMapHolds) {
  const run_output run = bench({"--quick", "--keys", "2000", "--set", "mix=read-only", "--set", "transactions=150",
                                "--set", "log=memory", "--set",
                                "execution=plain,multi-get-coroutines,multi-get-nested,multi-get-amac",
                                "--set", "batch=1,6", "--technique", "snapshot", "--group", "1"});
  ASSERT_EQ(run.exit_status, 0) << run.text;
  ASSERT_EQ(run.rows.size(), 7u) << run.text;
  const std::string expected =
      std::to_string(reference_checksum(quick_shape(2000, 150, 10, txn_ycsb::transaction_mix::read_only), 150));
  std::set<std::string> seen;
  for (const row& fields : run.rows) {
    seen.insert(fields.at("execution") + "@" + fields.at("batch"));
    EXPECT_EQ(fields.at("checksum"), expected) << fields.at("execution");
  }
  EXPECT_EQ(seen, (std::set<std::string>{"plain@1", "multi-get-coroutines@1", "multi-get-coroutines@6",
                                         "multi-get-nested@1", "multi-get-nested@6", "multi-get-amac@1",
                                         "multi-get-amac@6"}));
}

// txn-frame-sizes (beside txn-ycsb: the same engine): one row per operation asked for, each
// holding at least one frame, whole size classes of the frame pool.
TEST_F(TxnYcsb, FrameSizesCountTheFramesOfEachOperation) {
  const run_output all = run_experiment_csv("txn-frame-sizes", {});
  ASSERT_EQ(all.exit_status, 0) << all.text;
  std::map<std::string, row> by_operation;
  for (const row& fields : all.rows) by_operation[fields.at("technique")] = fields;
  ASSERT_EQ(by_operation.size(), 5u) << all.text;
  for (const auto& [operation, fields] : by_operation) {
    EXPECT_GE(number(fields, "frames"), 1) << operation;
    const auto bytes = static_cast<std::int64_t>(number(fields, "frame_bytes"));
    EXPECT_GE(bytes, 64) << operation;
    EXPECT_EQ(bytes % 64, 0) << operation;
  }
  EXPECT_GT(number(by_operation.at("get-nested"), "frames"), number(by_operation.at("get"), "frames"))
      << "the nested get holds its probe's frame too";
  const run_output some = run_experiment_csv("txn-frame-sizes", {"--technique", "update,scan"});
  ASSERT_EQ(some.exit_status, 0) << some.text;
  ASSERT_EQ(some.rows.size(), 2u) << some.text;
  EXPECT_EQ(some.rows[0].at("technique"), "update");
  EXPECT_EQ(some.rows[1].at("technique"), "scan");
}

TEST_F(TxnYcsb, BadValuesExitTwoWithOneLineNamingTheProblem) {
  std::vector<refused_arguments> bad = {
      {{"--set", "log=disk"}, "log=disk"},
      {{"--set", "log=none,none"}, "given twice"},
      {{"--set", "mix=write-only"}, "mix=write-only"},
      {{"--set", "ops=0"}, "ops=0"},
      {{"--set", "ops=ten"}, "--set ops"},
      {{"--set", "transactions=0"}, "transactions=0"},
      {{"--set", "log-dir=/no/such/directory"}, "log-dir"},
      {{"--set", "colour=red"}, "not a setting"},
      {{"--group", "257"}, "--group 257"},
      {{"--set", "execution=parallel"}, "execution=parallel"},
      {{"--set", "execution=plain,plain"}, "given twice"},
      {{"--set", "batch=0"}, "batch=0"},
      {{"--set", "batch=17"}, "batch=17"},
      {{"--set", "execution=multi-get-amac", "--set", "mix=ycsb-a"}, "mix=read-only"},
      {{"--set", "key-bytes=7"}, "key-bytes=7"},
      {{"--set", "key-bytes=257"}, "key-bytes=257"},
      {{"--set", "value-bytes=4097"}, "value-bytes=4097"},
      {{"--set", "scan-length=0"}, "scan-length=0"},
      {{"--set", "suspend=leaves"}, "suspend=leaves"},
      {{"--set", "mix=scan-heavy"}, "mix=scan-heavy"},
      {{"--set", "execution=interleaved", "--group", "4"}, "--group"},
      {{"--technique", "read-committed"}, "unknown technique"},
      {{"--pages", "4k"}, "not an option"},
      {{"--keys", "3000", "--size", "1MiB"}, "give one"},
  };
  for (refused_arguments& each : bad) each.arguments.insert(each.arguments.begin(), "--quick");
  expect_refused("txn-ycsb", bad);
}

}  // namespace
}  // namespace braid::bench
