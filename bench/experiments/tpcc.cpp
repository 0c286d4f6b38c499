// tpcc: TPC-C, TPC-CR and TPC-CH on braid's transaction engine (CoroBase §5.8, Table 2 and
// Figures 14 and 15), the transactions of bench/tpcc.hpp written once as coroutines and run by
// the plain engine (M = sequential, each transaction driven to its end before the next), as
// interleaved transactions (M = interleaved, run_transactions with strict or refilled batches
// of --set batch per worker) and as CoroBase's hybrid (strict batches; New-Order and
// Stock-Level read their ITEM and STOCK rows with multi_get).
//
// Pass order: every (threads, execution, batch) configuration gets a freshly loaded database
// (the spec's population for --set warehouses, loaded on every CPU available and timed apart)
// and runs `repetitions` passes of --set transactions on it, pass p running transactions
// [p*T, (p+1)*T) of the stream; so configuration k's pass p sees the same database, grown by
// the same number of earlier passes, as every other configuration's pass p. Workers split a
// pass into contiguous chunks; each transaction's inputs come from the seed and its index.
// After the passes the consistency conditions 1-4 are checked: a violation throws.
//
// Rows, one per configuration: commits_per_s and new_orders_per_s (tpmC / 60) from the median
// pass, aborts by reason (the engine's, per pass) and rollbacks (New-Order's 1 %, per pass),
// abort_rate (engine aborts over attempts), latency p50/p99 (first attempt to commit),
// speedup_vs_plain (commits/s over the plain execution's at the same thread count),
// logged_commits per pass and log_bytes_per_commit (the log's counters: 0 in memory; read-only
// transactions log nothing), query2_per_s (TPC-CH's Q2* commits), suppliers (the SUPPLIER
// rows loaded, counted in the store) and consistency ("ok").
//
// Options: --threads, --repetitions (default 3, --quick 1), --seed, --quick; settings (--set):
// warehouses, mix, execution, batch, transactions, log, suppliers (declared below).
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "braid/core/cycles.hpp"
#include "braid/core/thread_runner.hpp"
#include "braid/txn/transaction_scheduler.hpp"
#include "experiment.hpp"
#include "measure.hpp"
#include "threads.hpp"
#include "tpcc.hpp"

namespace braid::bench {
namespace {

using tpcc::execution;

enum class log_choice { memory, none };

struct tpcc_settings {
  std::uint32_t warehouses = 1;
  tpcc::mix mix = tpcc::mix::tpcc;
  std::vector<execution> executions{execution::plain, execution::interleaved};
  std::vector<std::size_t> batches{8};
  std::size_t transactions = 0;  // per pass
  log_choice log = log_choice::memory;
  std::uint32_t suppliers = tpcc::default_suppliers;
};

std::uint64_t setting_number(const std::string& name, const std::string& text, std::uint64_t low, std::uint64_t high) {
  const std::uint64_t value = parse_count(text, "--set " + name);
  if (value < low || value > high) {
    throw usage_error("--set " + name + "=" + text + ": must be in " + std::to_string(low) + ".." + std::to_string(high));
  }
  return value;
}

std::vector<execution> executions_of(const std::string& text) {
  std::vector<execution> out;
  for (const std::string& item : split_list(text)) {
    std::optional<execution> how;
    for (execution each : {execution::plain, execution::interleaved, execution::interleaved_refill, execution::hybrid}) {
      if (item == tpcc::to_string(each)) how = each;
    }
    if (!how) {
      throw usage_error("--set execution=" + text + ": '" + item + "' is not plain, interleaved, interleaved-refill or hybrid");
    }
    if (std::find(out.begin(), out.end(), *how) != out.end()) {
      throw usage_error("--set execution=" + text + ": '" + item + "' given twice");
    }
    out.push_back(*how);
  }
  return out;
}

std::vector<std::size_t> batches_of(const std::string& text) {
  std::vector<std::size_t> out;
  for (const std::string& item : split_list(text)) {
    const std::size_t batch = setting_number("batch", item, 1, txn::max_batch_size);
    if (std::find(out.begin(), out.end(), batch) != out.end()) throw usage_error("--set batch=" + text + ": " + item + " given twice");
    out.push_back(batch);
  }
  return out;
}

tpcc_settings settings_of(const run_context& context) {
  tpcc_settings settings;
  settings.warehouses = static_cast<std::uint32_t>(
      setting_number("warehouses", context.setting("warehouses").value_or(context.quick() ? "1" : "2"), 1,
                     tpcc::max_warehouses));
  if (const std::optional<std::string> mix = context.setting("mix")) {
    if (*mix == "tpcc") settings.mix = tpcc::mix::tpcc;
    else if (*mix == "tpcc-r") settings.mix = tpcc::mix::tpcc_r;
    else if (*mix == "tpcc-ch") settings.mix = tpcc::mix::tpcc_ch;
    else throw usage_error("--set mix=" + *mix + ": not tpcc, tpcc-r or tpcc-ch");
  }
  if (const std::optional<std::string> executions = context.setting("execution")) settings.executions = executions_of(*executions);
  const bool interleaves = std::any_of(settings.executions.begin(), settings.executions.end(),
                                       [](execution how) { return how != execution::plain; });
  if (const std::optional<std::string> batches = context.setting("batch")) {
    if (!interleaves) {
      throw usage_error("--set batch: only the interleaved and hybrid executions run batches; add one to --set execution");
    }
    settings.batches = batches_of(*batches);
  }
  settings.transactions = setting_number("transactions", context.setting("transactions").value_or(context.quick() ? "1000" : "20000"),
                                         1, 100'000'000);
  if (const std::optional<std::string> log = context.setting("log")) {
    if (*log == "memory") settings.log = log_choice::memory;
    else if (*log == "none") settings.log = log_choice::none;
    else throw usage_error("--set log=" + *log + ": not memory or none");
  }
  if (const std::optional<std::string> suppliers = context.setting("suppliers")) {
    settings.suppliers = static_cast<std::uint32_t>(setting_number("suppliers", *suppliers, 1, tpcc::max_suppliers));
  }
  return settings;
}

// A loaded store; with log none a durable database in a fresh temporary directory whose log
// writes nothing (removed with the store).
class loaded_store {
 public:
  loaded_store(const tpcc_settings& settings, std::uint64_t seed, std::size_t serial) {
    txn::database_options options;
    if (settings.log == log_choice::none) {
      directory_ = std::filesystem::temp_directory_path() /
                   ("braid-tpcc-" + std::to_string(::getpid()) + "-" + std::to_string(serial));
      std::filesystem::remove_all(directory_);
      options.directory = directory_;
      options.log_mode = txn::commit_mode::none;
    }
    shop_ = std::make_unique<tpcc::store>(options, settings.warehouses, settings.suppliers);
    const std::int64_t start = now_ns();
    tpcc::load(*shop_, seed, std::max<unsigned>(1, static_cast<unsigned>(available_cpus().size())));
    load_seconds_ = static_cast<double>(now_ns() - start) * 1e-9;
  }
  loaded_store(const loaded_store&) = delete;
  loaded_store& operator=(const loaded_store&) = delete;
  ~loaded_store() {
    shop_.reset();
    if (!directory_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(directory_, ignored);
    }
  }
  [[nodiscard]] tpcc::store& shop() const noexcept { return *shop_; }
  [[nodiscard]] double load_seconds() const noexcept { return load_seconds_; }

 private:
  std::filesystem::path directory_;
  std::unique_ptr<tpcc::store> shop_;
  double load_seconds_ = 0;
};

struct configuration {
  unsigned threads = 1;
  execution how = execution::plain;
  std::size_t batch = 1;
};

struct outcome {
  tpcc::worker_tally total;
  double median_ns = 0;
  double load_seconds = 0;
  unsigned passes = 0;
  std::uint64_t logged_commits = 0;  // the log's commit records over the passes (0 in memory)
  std::uint64_t logged_bytes = 0;
  std::uint64_t supplier_rows = 0;  // SUPPLIER rows in the store
};

// One pass: transactions [first, first + count) split over the runner's workers.
tpcc::worker_tally run_pass(thread_runner& runner, tpcc::store& shop, const tpcc::workload& stream,
                            const configuration& one, std::uint64_t first, std::size_t count) {
  std::vector<tpcc::worker_tally> tallies(runner.size());
  runner.run([&](unsigned worker) {
    const chunk mine = chunk_of(count, runner.size(), worker);
    tallies[worker] = tpcc::run_range(shop, stream, one.how, one.batch, first + mine.begin, first + mine.end);
  });
  tpcc::worker_tally pass;
  for (const tpcc::worker_tally& tally : tallies) pass.add(tally);
  return pass;
}

outcome measure_configuration(run_context& context, const tpcc_settings& settings, const configuration& one,
                              unsigned repetitions, std::size_t serial) {
  context.progress("loading " + std::to_string(settings.warehouses) + " warehouses");
  const loaded_store loaded(settings, context.seed(), serial);
  tpcc::store& shop = loaded.shop();
  const tpcc::workload stream{.warehouses = settings.warehouses, .mix = settings.mix, .seed = context.seed(),
                              .constants = shop.constants()};
  thread_runner runner(one.threads);
  outcome result;
  result.load_seconds = loaded.load_seconds();
  result.supplier_rows = tpcc::row_count(shop, shop.tables().supplier);
  std::vector<double> samples;
  const txn::log_stats before = shop.db().log_statistics();
  for (unsigned pass = 0; pass < repetitions; ++pass) {
    const std::int64_t start = now_ns();
    const tpcc::worker_tally tally =
        run_pass(runner, shop, stream, one, std::uint64_t{pass} * settings.transactions, settings.transactions);
    samples.push_back(static_cast<double>(now_ns() - start));
    result.total.add(tally);
  }
  result.median_ns = median(samples);
  result.passes = repetitions;
  const txn::log_stats after = shop.db().log_statistics();
  result.logged_commits = after.commits - before.commits;
  result.logged_bytes = after.bytes - before.bytes;
  const tpcc::consistency_report report = tpcc::check_consistency(shop);
  if (!report.ok()) {
    throw std::logic_error("tpcc: " + std::string(tpcc::to_string(one.how)) + " with batch " + std::to_string(one.batch) +
                           " on " + std::to_string(one.threads) + " threads broke consistency (" +
                           std::to_string(report.violations.size()) + " violations): " + report.violations.front());
  }
  return result;
}

std::int64_t percentile_ns(std::vector<std::int64_t> values, double fraction) {
  if (values.empty()) return 0;
  const auto rank = static_cast<std::size_t>(fraction * static_cast<double>(values.size() - 1) + 0.5);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank), values.end());
  return values[rank];
}

constexpr const char* abort_fields[] = {"aborts_write_conflict", "aborts_serialization", "aborts_log_failure"};

result_row row_of(const tpcc_settings& settings, const configuration& one, const outcome& result) {
  const double passes = result.passes;
  const double seconds = result.median_ns * 1e-9;
  const tpcc::worker_tally& total = result.total;
  std::uint64_t aborts = 0;
  for (std::uint64_t count : total.aborts) aborts += count;
  const double new_orders = static_cast<double>(total.commits_by_kind[static_cast<std::size_t>(tpcc::kind::new_order)]);
  const double queries = static_cast<double>(total.commits_by_kind[static_cast<std::size_t>(tpcc::kind::query2)]);
  result_row row;
  row.set("structure", "braid-txn")
      .set("technique", tpcc::to_string(one.how))
      .set("execution", tpcc::to_string(one.how))
      .set("batch", static_cast<std::int64_t>(one.batch))
      .set("threads", static_cast<std::int64_t>(one.threads))
      .set("warehouses", static_cast<std::int64_t>(settings.warehouses))
      .set("mix", tpcc::to_string(settings.mix))
      .set("log", settings.log == log_choice::memory ? "memory" : "none")
      .set("ops", static_cast<std::int64_t>(settings.transactions))
      .set("ns_per_op", result.median_ns / static_cast<double>(settings.transactions))
      .set("commits_per_s", static_cast<double>(total.commits) / passes / seconds)
      .set("new_orders_per_s", new_orders / passes / seconds)
      .set("tpmc", 60 * new_orders / passes / seconds)
      .set("query2_per_s", queries / passes / seconds)
      .set("suppliers", static_cast<std::int64_t>(result.supplier_rows))
      .set("rollbacks", static_cast<double>(total.rollbacks) / passes);
  for (std::size_t r = 0; r < tpcc::engine_abort_reasons.size(); ++r) {
    row.set(abort_fields[r], static_cast<double>(total.aborts[r]) / passes);
  }
  row.set("abort_rate", static_cast<double>(aborts) / static_cast<double>(std::max<std::uint64_t>(1, aborts + total.commits)))
      .set("latency_p50_us", static_cast<double>(percentile_ns(total.latencies_ns, 0.50)) * 1e-3)
      .set("latency_p99_us", static_cast<double>(percentile_ns(total.latencies_ns, 0.99)) * 1e-3)
      .set("logged_commits", static_cast<double>(result.logged_commits) / passes)
      .set("log_bytes_per_commit", static_cast<double>(result.logged_bytes) /
                                       static_cast<double>(std::max<std::uint64_t>(1, result.logged_commits)))
      .set("timed_passes", static_cast<std::int64_t>(result.passes))
      .set("load_s", result.load_seconds)
      .set("consistency", "ok");
  return row;
}

void run_tpcc(run_context& context) {
  const tpcc_settings settings = settings_of(context);
  const std::vector<unsigned> thread_list = thread_counts(context, {1});
  for (unsigned threads : thread_list) {
    for (std::size_t batch : settings.batches) {
      if (batch * threads > txn::max_transactions) {
        throw usage_error("--set batch=" + std::to_string(batch) + " with " + std::to_string(threads) +
                          " threads keeps more transactions open than the engine's " + std::to_string(txn::max_transactions));
      }
    }
  }
  constexpr std::size_t bytes_per_warehouse = std::size_t{400} << 20;
  context.require_memory(settings.warehouses * bytes_per_warehouse, "the TPC-C database");
  const unsigned repetitions = context.repetitions_or(context.quick() ? 1 : 3);
  context.note("workload", std::string(tpcc::to_string(settings.mix)) + ", " + std::to_string(settings.warehouses) +
                               " warehouses, " + std::to_string(settings.transactions) + " transactions per pass");
  std::size_t serial = 0;
  for (unsigned threads : thread_list) {
    std::vector<configuration> configurations;
    for (execution how : settings.executions) {
      for (std::size_t batch : how == execution::plain ? std::vector<std::size_t>{1} : settings.batches) {
        configurations.push_back({.threads = threads, .how = how, .batch = batch});
      }
    }
    std::vector<result_row> rows;
    std::vector<double> rates;  // commits per second of the median pass
    std::optional<double> plain_rate;
    for (std::size_t i = 0; i < configurations.size(); ++i) {
      const configuration& one = configurations[i];
      context.configuration(i, configurations.size(), std::string(tpcc::to_string(one.how)) + " batch " +
                                                          std::to_string(one.batch) + ", " + std::to_string(threads) +
                                                          " threads");
      const outcome result = measure_configuration(context, settings, one, repetitions, serial++);
      rows.push_back(row_of(settings, one, result));
      rates.push_back(static_cast<double>(result.total.commits) / result.passes / (result.median_ns * 1e-9));
      if (one.how == execution::plain) plain_rate = rates.back();
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (plain_rate) rows[i].set("speedup_vs_plain", rates[i] / *plain_rate);
      context.emit(std::move(rows[i]));
    }
  }
}

const registration tpcc_registration{experiment{
    .name = "tpcc",
    .reproduces = "CoroBase §5.8 (TPC-C, TPC-CR, TPC-CH; Table 2, Figures 14 and 15)",
    .summary = "TPC-C, TPC-CR and TPC-CH on braid's transaction engine, the plain engine vs interleaved transactions "
               "vs hybrid: commits/s, new orders/s, aborts, latency, consistency conditions 1-4 checked",
    .accepted = accepts_threads,
    .settings = {{.name = "warehouses", .values = "1..500", .meaning = "warehouses loaded (default 2, --quick 1)"},
                 {.name = "mix",
                  .values = "tpcc|tpcc-r|tpcc-ch",
                  .meaning = "tpcc: 45/43/4/4/4 New-Order/Payment/Order-Status/Delivery/Stock-Level (default); "
                             "tpcc-r: 50 % Stock-Level, 50 % Order-Status; tpcc-ch: 10 % Q2*, 40/38/4/4/4"},
                 {.name = "execution",
                  .values = "plain|interleaved|interleaved-refill|hybrid[,...]",
                  .meaning = "the plain engine, or transactions as coroutines in strict or refilled batches, or "
                             "hybrid (strict; New-Order and Stock-Level read by multi_get) (default plain,interleaved)"},
                 {.name = "batch", .values = "1..16[,...]", .meaning = "interleaved executions: transactions in flight per worker (default 8)"},
                 {.name = "suppliers",
                  .values = "1..10000",
                  .meaning = "TPC-CH's SUPPLIER rows, loaded for every mix (default 100; CoroBase's tpcch<x>: 100 x)"},
                 {.name = "transactions", .values = "N", .meaning = "transactions per pass (default 20000, --quick 1000)"},
                 {.name = "log",
                  .values = "memory|none",
                  .meaning = "memory: no directory (default); none: a durable database in a temporary directory whose "
                             "log writes nothing"}},
    .run = run_tpcc,
}};

}  // namespace
}  // namespace braid::bench
