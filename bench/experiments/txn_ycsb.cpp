// txn-ycsb: braid's transaction engine (braid/txn) under YCSB-style transactions (point reads,
// writes, read-modify-writes and scans; txn_ycsb.hpp), run by the plain engine (`tx.get`,
// `tx.update`: the sequential mode) or as interleaved coroutines, in each log mode, under
// snapshot isolation and under SSN (CoroBase §5.1: "SSN adds a fixed amount of overhead,
// ~10-15 %").
//
// Each log mode gets a database of its own, loaded with the records (8-byte keys and values
// unless --set key-bytes / value-bytes say otherwise; the workload in txn_ycsb.hpp) and removed afterwards:
//   memory  no directory: nothing is logged;
//   none    a durable database whose log counts commits and bytes and writes nothing
//           (CoroBase's null log device);
//   async   commit returns at once, the flusher syncs within 10 ms;
//   sync    commit returns after the fdatasync that covers it (group commit).
// Durable databases live in a fresh directory under the system's temporary directory (or
// under --set log-dir=DIR). The load installs the records as committed versions (the engine's
// recovery hook, before any transaction runs: nothing is logged), on every CPU available, and
// is timed apart from the passes.
//
// Techniques: the isolation level, `snapshot` or `serializable` (SI + SSN), measured
// interleaved on the same database. Executions (--set execution): `plain`, the engine's
// operations called one after another (the ERMIA-equivalent baseline), and CoroBase's
// coroutine-to-transaction execution (transaction_scheduler.hpp): the same transactions
// written once as tasks whose operations suspend at the likely misses, run in batches of
// --set batch per worker, `interleaved` (strict batches) or `interleaved-refill`, and
// `interleaved-nested` (strict batches whose point reads are the fully nested get_nested); and
// CoroBase's intra-transaction baselines, the plain engine reading each read-only
// transaction's keys with one transaction::multi_get, --set batch keys in flight
// (`multi-get-coroutines`: flattened get coroutines; `multi-get-nested`: fully nested ones;
// `multi-get-amac`: AMAC state machines). --group K is the number of transactions a worker keeps in
// flight (pipelined commit): a transaction is precommitted (commit timestamp, certification,
// log record appended) and finished (durable, visible) once the worker has K precommitted or
// the log says it is durable, so one fdatasync covers many commits. Group 1 is commit() one
// transaction at a time. An aborted transaction is retried (after the worker finishes its own
// precommitted ones) until it commits; every abort is counted by its reason.
//
// Rows, one per (log mode, thread count, isolation, group): `ops` is the transactions of a pass
// (each counted once, however many attempts it took), ns_per_op and mops per transaction,
// commits_per_s, execution and batch, commits and aborts per pass (aborts by reason), latency percentiles from
// begin to durable commit (every transaction of the timed passes), commit blocks logged per
// pass (transactions that wrote nothing log nothing), log bytes and fdatasyncs per commit (the
// database's log counters over the timed passes), cpu_share (the workers' CPU time over their
// wall time: below 1 when they waited for the disk or, on a shared machine, for a CPU), the
// engine's memory (size_bytes: versions, both indexes, indirection) and the pass checksum
// (txn_ycsb.hpp). speedup_vs_naive is against snapshot isolation at group 1, plain (a user's
// plain loop of commit()); speedup_vs_snapshot against snapshot isolation at the same group,
// execution and batch; speedup_vs_plain against the plain loop of the same isolation level.
//
// Options: --keys (records; or --size: as many records as fill it at the engine's footprint;
// default the DRAM-resident size, 16x the last-level cache), --threads, --group, --dist,
// --technique, --repetitions, --seed; settings (--set NAME=VALUE): log, execution, batch,
// suspend, mix, key-bytes, value-bytes, scan-length, ops, transactions, log-dir (declared
// below).
#include "txn_ycsb.hpp"

#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "braid/core/cycles.hpp"
#include "braid/core/thread_runner.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/task.hpp"
#include "braid/txn/database.hpp"
#include "braid/txn/transaction_scheduler.hpp"
#include "experiment.hpp"
#include "measure.hpp"
#include "threads.hpp"

namespace braid::bench {
namespace {

using namespace txn_ycsb;
using txn::access;
using txn::commit_mode;
using txn::database;
using txn::isolation;
using txn::status;
using txn::table_handle;
using txn::transaction;

// ---- settings -------------------------------------------------------------------------------------

enum class log_choice { memory, none, async, sync };

const char* to_string(log_choice log) noexcept {
  switch (log) {
    case log_choice::memory: return "memory";
    case log_choice::none: return "none";
    case log_choice::async: return "async";
    case log_choice::sync: return "sync";
  }
  return "?";
}

// How a worker runs its transactions: the plain engine (commit() or pipelined precommit with
// --group), or CoroBase's coroutine-to-transaction batches (transaction_scheduler.hpp), strict
// or refilled.
// multi-get-*: the plain engine, each read-only transaction's reads one transaction::multi_get
// of --set batch keys at a time (CoroBase's intra-transaction batching baselines).
// interleaved-nested: strict batches whose reads are CoroBase's fully nested get
// (transaction::get_nested) instead of the flattened one.
enum class execution_choice {
  plain,
  interleaved,
  interleaved_refill,
  interleaved_nested,
  multi_get_coroutines,
  multi_get_nested,
  multi_get_amac
};

constexpr execution_choice all_executions[] = {
    execution_choice::plain,          execution_choice::interleaved,          execution_choice::interleaved_refill,
    execution_choice::interleaved_nested, execution_choice::multi_get_coroutines, execution_choice::multi_get_nested,
    execution_choice::multi_get_amac};

const char* to_string(execution_choice execution) noexcept {
  switch (execution) {
    case execution_choice::plain: return "plain";
    case execution_choice::interleaved: return "interleaved";
    case execution_choice::interleaved_refill: return "interleaved-refill";
    case execution_choice::interleaved_nested: return "interleaved-nested";
    case execution_choice::multi_get_coroutines: return "multi-get-coroutines";
    case execution_choice::multi_get_nested: return "multi-get-nested";
    case execution_choice::multi_get_amac: return "multi-get-amac";
  }
  return "?";
}

bool batches_transactions(execution_choice execution) noexcept {
  return execution == execution_choice::interleaved || execution == execution_choice::interleaved_refill ||
         execution == execution_choice::interleaved_nested;
}
bool uses_multi_get(execution_choice execution) noexcept {
  return execution == execution_choice::multi_get_coroutines || execution == execution_choice::multi_get_nested ||
         execution == execution_choice::multi_get_amac;
}

struct txn_settings {
  std::vector<log_choice> logs;
  std::vector<execution_choice> executions{execution_choice::plain};
  std::vector<std::size_t> batches{8};
  transaction_mix mix = transaction_mix::ycsb_a;
  std::size_t operations_per_transaction = 10;
  std::size_t key_bytes = 8;
  std::size_t value_bytes = 8;
  std::size_t longest_scan = 100;
  txn::suspension_points suspend_at;  // interleaved operations' suspension places
  std::string suspend_text = "all";
  std::optional<std::size_t> transactions;  // per pass; unset: the default of the log mode
  std::filesystem::path log_parent;
};

std::uint64_t setting_count(const std::string& name, const std::string& text, std::uint64_t low, std::uint64_t high) {
  const std::uint64_t value = parse_count(text, "--set " + name);
  if (value < low || value > high) {
    throw usage_error("--set " + name + "=" + text + ": must be in " + std::to_string(low) + ".." +
                      std::to_string(high));
  }
  return value;
}

// --set suspend: all, none, or a list of index-nodes, entry, versions, write-chain.
txn::suspension_points suspension_points_of(const std::string& text) {
  if (text == "all") return {};
  txn::suspension_points points{.index_nodes = false, .indirection_entry = false, .version_headers = false,
                                .write_chain = false};
  if (text == "none") return points;
  for (const std::string& item : split_list(text)) {
    bool* place = item == "index-nodes" ? &points.index_nodes
                  : item == "entry"     ? &points.indirection_entry
                  : item == "versions"  ? &points.version_headers
                  : item == "write-chain" ? &points.write_chain
                                          : nullptr;
    if (place == nullptr) {
      throw usage_error("--set suspend=" + text + ": '" + item +
                        "' is not all, none, index-nodes, entry, versions or write-chain");
    }
    *place = true;
  }
  return points;
}

txn_settings settings_of(const run_context& context) {
  txn_settings settings;
  const std::string logs = context.setting("log").value_or("none,async,sync");
  for (const std::string& item : split_list(logs)) {
    const std::optional<log_choice> log = item == "memory" ? std::optional(log_choice::memory)
                                          : item == "none"  ? std::optional(log_choice::none)
                                          : item == "async" ? std::optional(log_choice::async)
                                          : item == "sync"  ? std::optional(log_choice::sync)
                                                            : std::nullopt;
    if (!log) throw usage_error("--set log=" + logs + ": '" + item + "' is not memory, none, async or sync");
    if (std::find(settings.logs.begin(), settings.logs.end(), *log) != settings.logs.end()) {
      throw usage_error("--set log=" + logs + ": '" + item + "' given twice");
    }
    settings.logs.push_back(*log);
  }
  if (const std::optional<std::string> executions = context.setting("execution")) {
    settings.executions.clear();
    for (const std::string& item : split_list(*executions)) {
      const auto* found = std::find_if(std::begin(all_executions), std::end(all_executions),
                                       [&](execution_choice each) { return item == to_string(each); });
      if (found == std::end(all_executions)) {
        throw usage_error("--set execution=" + *executions + ": '" + item +
                          "' is not plain, interleaved, interleaved-refill, interleaved-nested, multi-get-coroutines, "
                          "multi-get-nested or multi-get-amac");
      }
      const execution_choice execution = *found;
      if (std::find(settings.executions.begin(), settings.executions.end(), execution) != settings.executions.end()) {
        throw usage_error("--set execution=" + *executions + ": '" + item + "' given twice");
      }
      settings.executions.push_back(execution);
    }
  }
  if (const std::optional<std::string> batches = context.setting("batch")) {
    settings.batches.clear();
    for (const std::string& item : split_list(*batches)) {
      settings.batches.push_back(setting_count("batch", item, 1, txn::max_batch_size));
    }
  }
  if (const std::optional<std::string> mix = context.setting("mix")) settings.mix = parse_mix(*mix);
  if (const std::optional<std::string> ops = context.setting("ops")) {
    settings.operations_per_transaction = setting_count("ops", *ops, 1, 10'000);
  }
  if (const std::optional<std::string> bytes = context.setting("key-bytes")) {
    settings.key_bytes = setting_count("key-bytes", *bytes, number_bytes, most_key_bytes);
  }
  if (const std::optional<std::string> bytes = context.setting("value-bytes")) {
    settings.value_bytes = setting_count("value-bytes", *bytes, number_bytes, most_value_bytes);
  }
  if (const std::optional<std::string> length = context.setting("scan-length")) {
    settings.longest_scan = setting_count("scan-length", *length, 1, 10'000);
  }
  if (const std::optional<std::string> places = context.setting("suspend")) {
    settings.suspend_at = suspension_points_of(*places);
    settings.suspend_text = *places;
  }
  if (const std::optional<std::string> count = context.setting("transactions")) {
    settings.transactions = setting_count("transactions", *count, 1, 100'000'000);
  }
  settings.log_parent = std::filesystem::temp_directory_path();
  if (const std::optional<std::string> directory = context.setting("log-dir")) {
    std::error_code error;
    if (!std::filesystem::is_directory(*directory, error)) {
      throw usage_error("--set log-dir=" + *directory + ": not a directory");
    }
    settings.log_parent = *directory;
  }
  return settings;
}

// ---- the engine's footprint ---------------------------------------------------------------------

// Bytes per record once loaded (measured: 347 at 20 thousand and at 2 million records): the
// version (a 128-byte header and the value, in a 64-byte size class: 192), the indirection
// entry (8) and the record's share of both Masstree indexes (key order and reversed, about 70
// each). `typical` sizes --size and the default; `most` is what the memory check reserves.
constexpr std::size_t footprint_typical = 340;
constexpr std::size_t footprint_most = 380;

// Longer keys add to both indexes and the log; longer values to the version.
std::size_t footprint(std::size_t base, const txn_settings& settings) {
  return base + 2 * (settings.key_bytes - number_bytes) + (settings.value_bytes - number_bytes);
}

std::size_t engine_bytes(const database& db, table_handle table) {
  const txn::detail::table& t = *table.table;
  const std::size_t indirection = t.oids.end() * sizeof(std::atomic<txn::detail::version*>);
  return db.version_bytes() + t.primary.memory_bytes() + t.reversed.memory_bytes() + indirection;
}

// ---- one database per log mode ------------------------------------------------------------------

// The filesystem a path is on, by statfs's magic number ("ext4", "tmpfs", ...).
std::string filesystem_of(const std::filesystem::path& path) {
  struct statfs facts {};
  if (::statfs(path.c_str(), &facts) != 0) return "unknown";
  switch (static_cast<unsigned long>(facts.f_type)) {
    case 0xEF53: return "ext2/3/4";
    case 0x01021994: return "tmpfs (memory: fdatasync costs nothing)";
    case 0x58465342: return "xfs";
    case 0x9123683E: return "btrfs";
    case 0x794C7630: return "overlayfs";
    case 0x6969: return "nfs";
    default: return "type 0x" + [&] {
      char text[17] = {};
      std::snprintf(text, sizeof text, "%lx", static_cast<unsigned long>(facts.f_type));
      return std::string(text);
    }();
  }
}

// A database of one log mode with the records loaded; the directory goes with it.
class loaded_database {
 public:
  loaded_database(run_context& context, log_choice log, const std::filesystem::path& parent,
                  const transaction_stream& stream, const txn_settings& settings, unsigned loaders) {
    const std::size_t records = stream.shape.records;
    txn::database_options options;
    options.suspend_at = settings.suspend_at;
    if (log != log_choice::memory) {
      directory_ = parent / ("braid-txn-ycsb-" + std::to_string(::getpid()) + "-" + to_string(log));
      std::filesystem::remove_all(directory_);
      options.directory = directory_;
      options.log_mode = log == log_choice::sync ? commit_mode::sync : log == log_choice::async ? commit_mode::async
                                                                                                 : commit_mode::none;
      context.note("log " + std::string(to_string(log)), directory_.string() + " (" + filesystem_of(parent) + ")");
    }
    std::string message;
    if (const status s = database::open(options, db_, message); s != status::ok) {
      throw std::runtime_error("txn-ycsb: cannot open a database (" + std::string(txn::describe(s)) + "): " + message);
    }
    if (const status s = db_->create_table("usertable", table_); s != status::ok) {
      throw std::runtime_error("txn-ycsb: create_table: " + std::string(txn::describe(s)));
    }
    context.progress("log " + std::string(to_string(log)) + ": loading " + std::to_string(records) + " records");
    const std::int64_t start = now_ns();
    thread_runner runner(loaders);
    runner.run([&](unsigned worker) {
      const chunk mine = chunk_of(records, runner.size(), worker);
      for (std::size_t record = mine.begin; record < mine.end; ++record) {
        const std::uint64_t key = stream.key_of_record(record);
        const encoded_key key_bytes(key, settings.key_bytes);
        const encoded_value value_bytes(value_of(key), settings.value_bytes);
        const status s =
            db_->install_committed(table_.table->id, record + 1, key_bytes.view(), value_bytes.view(), false, 1);
        if (s != status::ok) {
          throw std::runtime_error("txn-ycsb: loading record " + std::to_string(record) + ": " + txn::describe(s));
        }
      }
    });
    load_seconds_ = static_cast<double>(now_ns() - start) * 1e-9;
    bytes_ = engine_bytes(*db_, table_);
  }
  loaded_database(const loaded_database&) = delete;
  loaded_database& operator=(const loaded_database&) = delete;
  ~loaded_database() {
    db_.reset();
    if (!directory_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(directory_, ignored);
    }
  }

  [[nodiscard]] database& db() const noexcept { return *db_; }
  [[nodiscard]] table_handle table() const noexcept { return table_; }
  [[nodiscard]] double load_seconds() const noexcept { return load_seconds_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

 private:
  std::filesystem::path directory_;
  std::unique_ptr<database> db_;
  table_handle table_;
  double load_seconds_ = 0;
  std::size_t bytes_ = 0;
};

// ---- running transactions -----------------------------------------------------------------------

// The abort reasons a pass counts, in row order.
constexpr std::array<status, 4> abort_reasons = {status::abort_write_conflict, status::abort_serialization,
                                                 status::abort_user, status::abort_log_failure};
constexpr std::array<const char*, 4> abort_fields = {"aborts_write_conflict", "aborts_serialization", "aborts_user",
                                                     "aborts_log_failure"};

std::size_t reason_index(status s) {
  return static_cast<std::size_t>(std::find(abort_reasons.begin(), abort_reasons.end(), s) - abort_reasons.begin());
}

// What one worker saw in one pass.
struct worker_tally {
  std::uint64_t commits = 0;
  std::array<std::uint64_t, abort_reasons.size()> aborts{};
  std::vector<std::int64_t> latencies_ns;
  std::int64_t cpu_ns = 0;  // the worker thread's CPU time
};

// This thread's CPU time: with the wall time it says how much of a CPU a worker had.
std::int64_t thread_cpu_ns() noexcept {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// The operations of stream transaction t in `tx`, each awaited (with M = interleaved an
// operation suspends at the likely misses), adding the transaction's checksum share to
// `share`. Returns ok, or the first other status (a read that finds nothing counts as a read
// of nothing, a write that finds nothing writes nothing, and the transaction goes on). Nested: point reads by get_nested.
template <execution_mode M, bool Nested = false>
task<status> stream_operations(transaction& tx, table_handle table, const transaction_stream& stream, std::size_t t,
                               std::string& value, std::uint64_t& share) {
  const workload_shape& shape = stream.shape;
  const std::size_t per = stream.per_transaction();
  for (std::size_t i = t * per; i < (t + 1) * per; ++i) {
    const operation& op = stream.operations[i];
    const encoded_key key(op.key, shape.key_bytes);
    if (op.kind == operation_kind::scan) {
      const status s = co_await tx.scan<M>(table, key.view(), op.scan_length, [&](std::string_view, std::string_view found) {
        share += read_share(decode_value(found, shape.value_bytes));
      });
      if (s != status::ok) co_return s;
      continue;
    }
    if (op.kind != operation_kind::update) {
      status s = status::ok;
      if constexpr (Nested) {
        s = co_await tx.get_nested<M>(table, key.view(), value);
      } else {
        s = co_await tx.get<M>(table, key.view(), value);
      }
      if (s == status::not_found) {
        share += read_share(std::nullopt);
        continue;  // nothing to modify
      }
      if (s != status::ok) co_return s;
      share += read_share(decode_value(value, shape.value_bytes));
    }
    if (writes(op)) {
      const encoded_value written(value_of(op.key), shape.value_bytes);
      const status s = co_await tx.update<M>(table, key.view(), written.view());
      if (s == status::ok) {
        share += update_share;
      } else if (s != status::not_found) {  // an absent record: nothing to write
        co_return s;
      }
    }
  }
  co_return status::ok;
}

// The reads of read-only stream transaction t as transaction::multi_get calls of `group`
// keys each. Returns ok or the first other status.
status multi_get_operations(transaction& tx, table_handle table, const transaction_stream& stream, std::size_t t,
                            txn::multi_get_technique technique, std::size_t group, std::uint64_t& share) {
  const workload_shape& shape = stream.shape;
  const std::size_t per = stream.per_transaction();
  std::vector<encoded_key> keys;
  std::vector<std::string_view> views(per);
  std::vector<std::string> values(per);
  std::vector<status> statuses(per);
  keys.reserve(per);
  for (std::size_t i = 0; i < per; ++i) {
    keys.emplace_back(stream.operations[t * per + i].key, shape.key_bytes);
    views[i] = keys.back().view();
  }
  if (const status s = tx.multi_get(table, views, values, statuses, technique, group); s != status::ok) return s;
  for (std::size_t i = 0; i < per; ++i) {
    if (statuses[i] == status::ok) {
      share += read_share(decode_value(values[i], shape.value_bytes));
    } else if (statuses[i] == status::not_found) {
      share += read_share(std::nullopt);
    } else {
      return statuses[i];
    }
  }
  return status::ok;
}

// One worker's transactions [begin, end) of the stream on the plain engine, at most `group`
// precommitted at a time; with a multi_get technique, each transaction's reads are one
// multi_get of `multi_get_group` keys at a time. Returns the checksum shares of the committed
// transactions.
class transaction_worker {
 public:
  struct how {
    isolation level = isolation::snapshot;
    std::size_t group = 1;
    std::optional<txn::multi_get_technique> multi_get;
    std::size_t multi_get_group = 8;
  };

  transaction_worker(database& db, table_handle table, const transaction_stream& stream, how choice,
                     worker_tally& tally)
      : db_(db), table_(table), stream_(stream), how_(choice), ring_(choice.group), tally_(tally) {}

  std::uint64_t run(std::size_t begin, std::size_t end) {
    tally_.latencies_ns.reserve(tally_.latencies_ns.size() + (end - begin));
    for (std::size_t t = begin; t < end; ++t) {
      start(t);
      while (in_flight_ > 0 && ring_[oldest_].tx.is_durable()) finish_oldest();
      while (in_flight_ >= ring_.size()) finish_oldest();
    }
    while (in_flight_ > 0) finish_oldest();
    return checksum_;
  }

 private:
  struct pending {
    transaction tx;
    std::int64_t started_ns = 0;
    std::uint64_t share = 0;
  };

  status operations(transaction& tx, std::size_t t, std::uint64_t& share) {
    if (how_.multi_get) return multi_get_operations(tx, table_, stream_, t, *how_.multi_get, how_.multi_get_group, share);
    task<status> plain = stream_operations<sequential>(tx, table_, stream_, t, value_, share);
    plain.resume();  // sequential: runs to its end without suspending
    return plain.take_result();
  }

  // Runs transaction t until an attempt precommits, and queues it.
  void start(std::size_t t) {
    const std::int64_t started = now_ns();
    const access mode = stream_.read_only() ? access::read_only : access::read_write;
    for (;;) {
      transaction tx = db_.begin(how_.level, mode);
      std::uint64_t share = 0;
      status s = operations(tx, t, share);
      if (s == status::ok) s = tx.precommit();
      if (s == status::ok) {
        pending& slot = ring_[(oldest_ + in_flight_) % ring_.size()];
        slot.tx = std::move(tx);
        slot.started_ns = started;
        slot.share = share;
        ++in_flight_;
        return;
      }
      if (!txn::is_abort(s)) {
        throw std::logic_error("txn-ycsb: transaction " + std::to_string(t) + ": " + txn::describe(s));
      }
      ++tally_.aborts[reason_index(s)];
      // The retry may need this worker's own precommitted writes: finish them first.
      while (in_flight_ > 0) finish_oldest();
    }
  }

  void finish_oldest() {
    pending& done = ring_[oldest_];
    if (const status s = done.tx.finish_commit(); s != status::ok) {
      throw std::runtime_error("txn-ycsb: a precommitted transaction failed: " + std::string(txn::describe(s)));
    }
    tally_.latencies_ns.push_back(now_ns() - done.started_ns);
    ++tally_.commits;
    checksum_ += done.share;
    done.tx = transaction();
    oldest_ = (oldest_ + 1) % ring_.size();
    --in_flight_;
  }

  database& db_;
  table_handle table_;
  const transaction_stream& stream_;
  how how_;
  std::vector<pending> ring_;
  std::size_t oldest_ = 0;
  std::size_t in_flight_ = 0;
  std::uint64_t checksum_ = 0;
  std::string value_;
  worker_tally& tally_;
};

// Stream transaction t as a task, the way an application writes it once: its operations
// awaited, commit<M> suspending while the log syncs, retried after an abort (after a yield,
// so the batch's other transactions can finish what conflicted).
template <execution_mode M, bool Nested>
task<status> stream_transaction(database& db, table_handle table, const transaction_stream& stream, std::size_t t,
                                isolation level, worker_tally& tally, std::uint64_t& checksum) {
  const std::int64_t started = now_ns();
  const access mode = stream.read_only() ? access::read_only : access::read_write;
  std::string value;
  for (;;) {
    transaction tx = db.begin(level, mode);
    std::uint64_t share = 0;
    status s = co_await stream_operations<M, Nested>(tx, table, stream, t, value, share);
    if (s == status::ok) s = co_await txn::commit<M>(tx);
    if (s == status::ok) {
      tally.latencies_ns.push_back(now_ns() - started);
      ++tally.commits;
      checksum += share;
      co_return s;
    }
    if (!txn::is_abort(s)) {
      throw std::logic_error("txn-ycsb: transaction " + std::to_string(t) + ": " + txn::describe(s));
    }
    ++tally.aborts[reason_index(s)];
    co_await yield_point<M>();
  }
}

// One worker's transactions [begin, end) of the stream as interleaved batches. Returns the
// checksum shares of the committed transactions.
template <bool Nested>
std::uint64_t run_batches(database& db, table_handle table, const transaction_stream& stream, isolation level,
                          txn::batch_options batch, std::size_t begin, std::size_t end, worker_tally& tally) {
  tally.latencies_ns.reserve(tally.latencies_ns.size() + (end - begin));
  std::uint64_t checksum = 0;
  const status s = txn::run_transactions(
      batch, end - begin,
      [&](std::size_t i) {
        return stream_transaction<interleaved, Nested>(db, table, stream, begin + i, level, tally, checksum);
      },
      [](std::size_t, status) {});
  if (s != status::ok) throw std::logic_error("txn-ycsb: batch of " + std::to_string(batch.size) + " refused");
  return checksum;
}

// A measured configuration: the timed passes' tallies and log counters.
struct configuration {
  isolation level = isolation::snapshot;
  std::size_t group = 1;
  execution_choice execution = execution_choice::plain;
  std::size_t batch = 1;  // interleaved executions: transactions in flight per worker
  std::size_t transactions = 0;
  unsigned passes_run = 0;  // the first (measure_interleaved's warm-up) is not tallied
  unsigned passes_tallied = 0;
  worker_tally total;
  txn::log_stats logged{0, 0, 0};
  std::int64_t worker_wall_ns = 0;  // wall time of the timed passes times the workers

  [[nodiscard]] std::string technique() const { return level == isolation::snapshot ? "snapshot" : "serializable"; }
  [[nodiscard]] std::string pass_name() const {
    std::string name = technique() + "@" + std::to_string(group);
    if (execution != execution_choice::plain) name += "/" + std::string(to_string(execution)) + "@" + std::to_string(batch);
    return name;
  }
  [[nodiscard]] bool same_execution(const configuration& other) const {
    return execution == other.execution && batch == other.batch && group == other.group;
  }
};

// One pass of `measured` on every worker of `runner`; returns its checksum. The passes after the
// first (measure_interleaved's warm-up) add their tallies and log counters to `measured`.
std::uint64_t run_pass(thread_runner& runner, const loaded_database& loaded, const transaction_stream& stream,
                       configuration& measured) {
  std::vector<worker_tally> tallies(runner.size());
  std::vector<std::uint64_t> checksums(runner.size(), 0);
  const txn::log_stats before = loaded.db().log_statistics();
  const std::int64_t start = now_ns();
  runner.run([&](unsigned worker) {
    const chunk mine = chunk_of(measured.transactions, runner.size(), worker);
    const std::int64_t cpu_start = thread_cpu_ns();
    if (!batches_transactions(measured.execution)) {
      transaction_worker::how choice{.level = measured.level, .group = measured.group, .multi_get = {},
                                     .multi_get_group = measured.batch};
      if (measured.execution == execution_choice::multi_get_coroutines) choice.multi_get = txn::multi_get_technique::coroutines;
      if (measured.execution == execution_choice::multi_get_nested) choice.multi_get = txn::multi_get_technique::nested;
      if (measured.execution == execution_choice::multi_get_amac) choice.multi_get = txn::multi_get_technique::amac;
      transaction_worker one(loaded.db(), loaded.table(), stream, choice, tallies[worker]);
      checksums[worker] = one.run(mine.begin, mine.end);
    } else {
      const txn::batch_options batch{.size = measured.batch,
                                     .policy = measured.execution == execution_choice::interleaved_refill
                                                   ? txn::batch_policy::refill
                                                   : txn::batch_policy::strict};
      checksums[worker] = measured.execution == execution_choice::interleaved_nested
                              ? run_batches<true>(loaded.db(), loaded.table(), stream, measured.level, batch,
                                                  mine.begin, mine.end, tallies[worker])
                              : run_batches<false>(loaded.db(), loaded.table(), stream, measured.level, batch,
                                                   mine.begin, mine.end, tallies[worker]);
    }
    tallies[worker].cpu_ns = thread_cpu_ns() - cpu_start;
  });
  const std::int64_t wall = now_ns() - start;
  const txn::log_stats after = loaded.db().log_statistics();
  if (measured.passes_run++ > 0) {
    ++measured.passes_tallied;
    measured.worker_wall_ns += wall * static_cast<std::int64_t>(runner.size());
    worker_tally& total = measured.total;
    for (const worker_tally& tally : tallies) {
      total.commits += tally.commits;
      total.cpu_ns += tally.cpu_ns;
      for (std::size_t r = 0; r < abort_reasons.size(); ++r) total.aborts[r] += tally.aborts[r];
      total.latencies_ns.insert(total.latencies_ns.end(), tally.latencies_ns.begin(), tally.latencies_ns.end());
    }
    measured.logged.commits += after.commits - before.commits;
    measured.logged.bytes += after.bytes - before.bytes;
    measured.logged.fsyncs += after.fsyncs - before.fsyncs;
  }
  std::uint64_t checksum = 0;
  for (std::uint64_t each : checksums) checksum += each;
  return checksum;
}

std::int64_t percentile(std::vector<std::int64_t>& values, double fraction) {
  if (values.empty()) return 0;
  const auto rank = static_cast<std::size_t>(fraction * static_cast<double>(values.size() - 1) + 0.5);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank), values.end());
  return values[rank];
}

// ---- rows -----------------------------------------------------------------------------------------

// What every row of one measurement shares.
struct measurement_facts {
  log_choice log = log_choice::none;
  unsigned threads = 1;
  std::size_t records = 0;
  std::size_t bytes = 0;
  double load_seconds = 0;
  const txn_settings* settings = nullptr;
  std::string distribution;
  std::string mix;
};

void emit_rows(run_context& context, const measurement_facts& facts, std::vector<configuration>& configurations,
               const std::vector<measurement>& measured, const std::vector<std::uint64_t>& expected) {
  for (std::size_t i = 0; i < configurations.size(); ++i) {
    if (measured[i].checksum != expected[configurations[i].transactions]) {
      throw std::logic_error("txn-ycsb: " + measured[i].name + " with log " + to_string(facts.log) +
                             " read wrong values (checksum " + std::to_string(measured[i].checksum) + ", expected " +
                             std::to_string(expected[configurations[i].transactions]) + ")");
    }
  }
  auto ns_per_transaction = [&](std::size_t i) {
    return measured[i].median_ns / static_cast<double>(configurations[i].transactions);
  };
  // The naive loop: snapshot isolation, the plain engine, commit() one transaction at a time.
  double naive_ns = 0;
  for (std::size_t i = 0; i < configurations.size(); ++i) {
    if (configurations[i].level == isolation::snapshot && configurations[i].group == 1 &&
        configurations[i].execution == execution_choice::plain) {
      naive_ns = ns_per_transaction(i);
    }
  }
  for (std::size_t i = 0; i < configurations.size(); ++i) {
    configuration& one = configurations[i];
    const double ns = ns_per_transaction(i);
    const double passes = std::max(1u, one.passes_tallied);
    const double commits = static_cast<double>(std::max<std::uint64_t>(1, one.total.commits));
    const double worker_wall_ns = static_cast<double>(std::max<std::int64_t>(1, one.worker_wall_ns));
    std::uint64_t aborts = 0;
    for (std::uint64_t count : one.total.aborts) aborts += count;
    result_row row;
    row.set("structure", "braid-txn")
        .set("technique", one.technique())
        .set("pass", measured[i].name)
        .set("group", static_cast<std::int64_t>(one.group))
        .set("execution", to_string(one.execution))
        .set("suspend", facts.settings->suspend_text)
        .set("batch", static_cast<std::int64_t>(one.batch))
        .set("threads", static_cast<std::int64_t>(facts.threads))
        .set("size_bytes", static_cast<std::int64_t>(facts.bytes))
        .set("records", static_cast<std::int64_t>(facts.records))
        .set("ops", static_cast<std::int64_t>(one.transactions))
        .set("ns_per_op", ns)
        .set("mops", 1e3 / ns)
        .set("cycles_per_op", measured[i].median_cycles / static_cast<double>(one.transactions))
        .set("commits_per_s", 1e9 / ns)
        .set("log", to_string(facts.log))
        .set("mix", facts.mix)
        .set("ops_per_txn", static_cast<std::int64_t>(facts.settings->operations_per_transaction))
        .set("distribution", facts.distribution);
    for (std::size_t r = 0; r < abort_reasons.size(); ++r) {
      row.set(abort_fields[r], static_cast<double>(one.total.aborts[r]) / passes);
    }
    row.set("abort_rate", static_cast<double>(aborts) / (static_cast<double>(aborts) + commits))
        .set("latency_p50_us", static_cast<double>(percentile(one.total.latencies_ns, 0.50)) * 1e-3)
        .set("latency_p99_us", static_cast<double>(percentile(one.total.latencies_ns, 0.99)) * 1e-3)
        .set("log_bytes_per_commit", static_cast<double>(one.logged.bytes) / commits)
        .set("commits", static_cast<std::int64_t>(one.total.commits / std::max(1u, one.passes_tallied)))
        .set("logged_commits", static_cast<std::int64_t>(one.logged.commits / std::max(1u, one.passes_tallied)))
        .set("fsyncs_per_commit", static_cast<double>(one.logged.fsyncs) / commits)
        .set("cpu_share", static_cast<double>(one.total.cpu_ns) / worker_wall_ns)
        .set("timed_passes", static_cast<std::int64_t>(one.passes_tallied))
        .set("load_s", facts.load_seconds)
        .set("checksum", std::to_string(measured[i].checksum));
    if (naive_ns > 0) row.set("speedup_vs_naive", naive_ns / ns);
    for (std::size_t j = 0; j < configurations.size(); ++j) {
      const configuration& other = configurations[j];
      if (other.level == isolation::snapshot && other.same_execution(one)) {
        row.set("speedup_vs_snapshot", ns_per_transaction(j) / ns);
      }
      if (other.level == one.level && other.group == 1 && other.execution == execution_choice::plain) {
        row.set("speedup_vs_plain", ns_per_transaction(j) / ns);
      }
    }
    context.emit(std::move(row));
  }
}

// ---- the experiment -------------------------------------------------------------------------------

// /proc/loadavg's 1, 5 and 15 minute averages: how busy a shared machine was.
std::string load_average() {
  std::ifstream file("/proc/loadavg");
  std::string one, five, fifteen;
  if (!(file >> one >> five >> fifteen)) return "unknown";
  return one + " " + five + " " + fifteen;
}

// Transactions per pass unless --set transactions=N: enough for a second or more of work; in
// sync mode a number the group commits finish in seconds on a slow disk too (an fdatasync
// takes from a few hundred microseconds to several milliseconds and covers at most
// `group x threads` commits).
std::size_t default_transactions(bool quick, log_choice log, std::size_t group, unsigned threads) {
  const std::size_t most = quick ? 2'000 : 100'000;
  if (log != log_choice::sync) return most;
  return std::min(most, (quick ? 100 : 1'000) * group * threads);
}

// Records from --keys or --size (default: the DRAM-resident count, 16x the last-level cache).
std::size_t records_asked(const run_context& context, const txn_settings& settings) {
  const std::size_t dram_records = std::max<std::size_t>(1, dram_resident_bytes() / footprint(footprint_typical, settings));
  std::size_t records = context.keys_or(context.quick() ? 20'000 : dram_records);
  if (const std::vector<std::size_t>& sizes = context.given().sizes_bytes; !sizes.empty()) {
    if (context.given().keys) throw usage_error("--size and --keys both set the record count: give one");
    if (sizes.size() > 1) throw usage_error("--size: txn-ycsb takes one size");
    records = std::max<std::size_t>(1, sizes.front() / footprint(footprint_typical, settings));
  }
  return records;
}

// What the workload files decide cannot be asked for as well.
void refuse_what_files_decide(const run_context& context) {
  if (!context.given().workload_files) return;
  if (context.given().keys || !context.given().sizes_bytes.empty()) {
    throw usage_error("--workload: the fill file's records are the table; drop --keys / --size");
  }
  if (context.given().distribution) throw usage_error("--workload: the run file's keys are the requests; drop --dist");
  if (context.setting("mix") || context.setting("scan-length")) {
    throw usage_error("--workload: the run file's lines are the operations; drop --set mix / scan-length");
  }
}

// multi_get reads the point reads of a transaction: refused for a stream with anything else.
void check_executions_fit(const txn_settings& settings, const transaction_stream& stream) {
  const bool point_reads_only = std::all_of(stream.operations.begin(), stream.operations.end(),
                                            [](const operation& op) { return op.kind == operation_kind::read; });
  for (execution_choice execution : settings.executions) {
    if (uses_multi_get(execution) && !point_reads_only) {
      throw usage_error("--set execution=" + std::string(to_string(execution)) +
                        ": multi_get reads the keys of a read-only transaction of point reads; use --set "
                        "mix=read-only");
    }
  }
}

// expected[t]: the checksum of the stream's first t transactions.
std::vector<std::uint64_t> expected_checksums(const transaction_stream& stream, std::size_t longest) {
  const std::vector<std::uint64_t> keys_in_order = sorted_keys(stream);
  std::vector<std::uint64_t> expected(longest + 1, 0);
  for (std::size_t t = 0; t < longest; ++t) {
    std::uint64_t sum = 0;
    for (std::size_t i = t * stream.per_transaction(); i < (t + 1) * stream.per_transaction(); ++i) {
      sum += expected_share(stream.operations[i], keys_in_order);
    }
    expected[t + 1] = expected[t] + sum;
  }
  return expected;
}

std::string describe_workload(const transaction_stream& stream, const txn_settings& settings, std::size_t longest,
                              const key_distribution& distribution, const std::optional<workload_file_pair>& files) {
  std::string text = files ? "workload files " + files->fill_path + " (" + std::to_string(stream.shape.records) +
                                 " records) and " + files->run_path + " (" + std::to_string(stream.transactions()) +
                                 " transactions" +
                                 (stream.lines_left_over > 0
                                      ? "; its last " + std::to_string(stream.lines_left_over) +
                                            " lines make no whole transaction and are not run"
                                      : std::string()) +
                                 ")"
                           : std::string(to_string(settings.mix)) + ", " + distribution.describe();
  text += ", " + std::to_string(settings.operations_per_transaction) + " operations per transaction, " +
          std::to_string(stream.updates) + " writes in " + std::to_string(stream.transactions()) + " transactions (" +
          std::to_string(longest) + " a pass at most), " + std::to_string(stream.shape.records) + " records of " +
          std::to_string(settings.key_bytes) + "-byte keys and " + std::to_string(settings.value_bytes) +
          "-byte values";
  if (!files && settings.mix == transaction_mix::scan) {
    text += ", scans of 1.." + std::to_string(settings.longest_scan) + " records";
  }
  return text;
}

void run_txn_ycsb(run_context& context) {
  const bool quick = context.quick();
  const txn_settings settings = settings_of(context);
  refuse_what_files_decide(context);
  const std::optional<workload_file_pair> files =
      context.given().workload_files ? std::optional(read_workload_files(*context.given().workload_files)) : std::nullopt;
  std::size_t records = files ? files->fill.size() : records_asked(context, settings);
  if (records > txn::detail::indirection_array::max_oid) {
    throw usage_error("--keys: " + std::to_string(records) + " records, but a table holds at most " +
                      std::to_string(txn::detail::indirection_array::max_oid));
  }
  const std::vector<unsigned> thread_list = thread_counts(context, {1});
  const std::vector<std::size_t> groups = context.groups_or({1, 32});
  unsigned most_threads = 1;
  for (unsigned threads : thread_list) most_threads = std::max(most_threads, threads);
  const bool runs_plain = std::find(settings.executions.begin(), settings.executions.end(), execution_choice::plain) !=
                          settings.executions.end();
  if (!runs_plain && !context.given().groups.empty()) {
    throw usage_error("--group: pipelined commit is the plain execution's; add plain to --set execution, or size the "
                      "batches with --set batch");
  }
  for (std::size_t batch : settings.batches) {
    if (batch * most_threads > txn::max_transactions) {
      throw usage_error("--set batch=" + std::to_string(batch) + " with " + std::to_string(most_threads) +
                        " threads keeps more transactions open than the engine's " +
                        std::to_string(txn::max_transactions));
    }
  }
  for (std::size_t group : groups) {
    if (group * most_threads > txn::max_transactions) {
      throw usage_error("--group " + std::to_string(group) + " with " + std::to_string(most_threads) +
                        " threads keeps more transactions open than the engine's " +
                        std::to_string(txn::max_transactions) + " (group x threads must be at most that)");
    }
  }
  std::vector<isolation> levels;
  if (context.selected("snapshot")) levels.push_back(isolation::snapshot);
  if (context.selected("serializable")) levels.push_back(isolation::serializable);
  const unsigned repetitions = context.repetitions_or(quick ? 1 : 3);
  const key_distribution distribution = context.distribution_or({});

  // The longest pass any configuration runs; shorter ones run a prefix of the stream.
  std::size_t longest = 0;  // lowered to what the run file holds
  for (log_choice log : settings.logs) {
    for (std::size_t group : groups) {
      for (unsigned threads : thread_list) {
        longest = std::max(longest, settings.transactions.value_or(default_transactions(quick, log, group, threads)));
        for (std::size_t batch : settings.batches) {
          longest = std::max(longest, settings.transactions.value_or(default_transactions(quick, log, batch, threads)));
        }
      }
    }
  }
  context.require_memory(records * footprint(footprint_most, settings) + longest * settings.operations_per_transaction * 16,
                         "the database and its transactions");
  const workload_shape shape{.records = records,
                             .transactions = longest,
                             .operations_per_transaction = settings.operations_per_transaction,
                             .mix = settings.mix,
                             .distribution = distribution,
                             .seed = context.seed(),
                             .key_bytes = settings.key_bytes,
                             .value_bytes = settings.value_bytes,
                             .longest_scan = settings.longest_scan};
  context.progress("generating " + std::to_string(longest) + " transactions");
  const transaction_stream stream = files ? stream_from_files(shape, files->fill, files->run) : make_stream(shape);
  if (stream.transactions() < longest) {
    if (settings.transactions) {
      throw usage_error("--set transactions=" + std::to_string(*settings.transactions) + ": the run file holds " +
                        std::to_string(stream.transactions()) + " transactions of " +
                        std::to_string(stream.per_transaction()) + " operations");
    }
    longest = stream.transactions();
  }
  check_executions_fit(settings, stream);
  const std::vector<std::uint64_t> expected = expected_checksums(stream, longest);
  context.note("workload", describe_workload(stream, settings, longest, distribution, files));

  for (log_choice log : settings.logs) {
    const loaded_database loaded(context, log, settings.log_parent, stream, settings,
                                 std::max<unsigned>(1, static_cast<unsigned>(available_cpus().size())));
    context.note("load " + std::string(to_string(log)),
                 std::to_string(records) + " records in " + std::to_string(loaded.load_seconds()) + " s (" +
                     std::to_string(static_cast<double>(records) / loaded.load_seconds() / 1e6) + " M records/s), " +
                     format_bytes(loaded.bytes()) + " (" + std::to_string(loaded.bytes() / records) + " bytes per record)");
    for (unsigned threads : thread_list) {
      context.note("load average " + std::string(to_string(log)) + ", " + std::to_string(threads) + " threads",
                   load_average() + " (before the passes; this machine has " + std::to_string(available_cpus().size()) +
                       " CPUs for the run)");
      thread_runner runner(threads);
      std::vector<configuration> configurations;
      for (execution_choice execution : settings.executions) {
        const bool plain = execution == execution_choice::plain;
        // --group is the plain engine's pipelined commit; a batch pipelines its own commits.
        for (std::size_t group : plain ? groups : std::vector<std::size_t>{1}) {
          for (std::size_t batch : plain ? std::vector<std::size_t>{1} : settings.batches) {
            for (isolation level : levels) {
              const std::size_t in_flight = plain ? group : batch;
              const std::size_t transactions = std::min(
                  longest, settings.transactions.value_or(default_transactions(quick, log, in_flight, threads)));
              configurations.push_back(
                  {.level = level, .group = group, .execution = execution, .batch = batch, .transactions = transactions});
            }
          }
        }
      }
      if (configurations.empty()) return;
      std::vector<technique_run> runs;
      for (configuration& measured : configurations) {
        runs.push_back({measured.pass_name(),
                        [&runner, &loaded, &stream, &measured] { return run_pass(runner, loaded, stream, measured); }});
      }
      context.progress("log " + std::string(to_string(log)) + ", " + std::to_string(threads) + " threads: " +
                       std::to_string(runs.size()) + " passes");
      const std::vector<measurement> measurements = measure_interleaved(runs, repetitions, &context);
      emit_rows(context,
                {.log = log,
                 .threads = threads,
                 .records = records,
                 .bytes = loaded.bytes(),
                 .load_seconds = loaded.load_seconds(),
                 .settings = &settings,
                 .distribution = stream.from_files() ? "workload-file" : distribution.describe(),
                 .mix = stream.mix_name()},
                configurations, measurements, expected);
    }
  }
}

const registration txn_ycsb_registration{experiment{
    .name = "txn-ycsb",
    .reproduces = "CoroBase §5.1 (YCSB on the engine, SSN's cost over SI); log modes none/async/sync",
    .summary = "braid's transaction engine, YCSB-style transactions: commits/s, aborts, latency, log bytes and "
               "fdatasyncs per commit, per log mode and isolation, pipelined commit (--group)",
    .techniques = {"snapshot", "serializable"},
    .accepted = accepts_size | accepts_keys | accepts_group | accepts_threads | accepts_technique | accepts_dist |
                accepts_workload,
    .settings = {{.name = "log",
                  .values = "memory|none|async|sync[,...]",
                  .meaning = "the log modes, a database each (default none,async,sync; memory: no directory)"},
                 {.name = "execution",
                  .values = "plain|interleaved|interleaved-refill|interleaved-nested|multi-get-coroutines|"
                            "multi-get-nested|multi-get-amac[,...]",
                  .meaning = "the plain engine (default; --group pipelines its commits), transactions as coroutines "
                             "in strict or refilled batches of --set batch (CoroBase; at group 1; nested: reads by "
                             "the fully nested get), or the plain engine reading a read-only transaction's keys by "
                             "multi_get, --set batch at a time"},
                 {.name = "batch",
                  .values = "1..16[,...]",
                  .meaning = "interleaved executions: transactions in flight per worker; multi-get: keys in flight "
                             "(default 8)"},
                 {.name = "suspend",
                  .values = "all|none|index-nodes,entry,versions,write-chain",
                  .meaning = "where interleaved operations prefetch and suspend (default all; the engine's "
                             "database_options::suspend_at)"},
                 {.name = "mix",
                  .values = "read-only|single-update|ycsb-a|ycsb-b|update-only|rmw|2rmw-8r|scan",
                  .meaning = "what a transaction's operations do (default ycsb-a, 50:50 reads and updates; "
                             "single-update: the last operation updates; rmw: each reads and writes its record; "
                             "2rmw-8r: two read-modify-writes, then reads; scan: each scans 1..scan-length records)"},
                 {.name = "key-bytes",
                  .values = "8..256",
                  .meaning = "key length: a common prefix before the key's 8 bytes (default 8)"},
                 {.name = "value-bytes", .values = "8..4096", .meaning = "value length (default 8)"},
                 {.name = "scan-length",
                  .values = "1..10000",
                  .meaning = "mix scan: the longest scan, in records (default 100)"},
                 {.name = "ops", .values = "1..10000", .meaning = "operations per transaction (default 10)"},
                 {.name = "transactions",
                  .values = "N",
                  .meaning = "transactions per pass (default 100000, --quick 2000; sync: at most 1000 x group x threads, "
                             "--quick 100 x)"},
                 {.name = "log-dir",
                  .values = "DIR",
                  .meaning = "where the durable databases' directories go (default: the system's temporary directory)"}},
    .run = run_txn_ycsb,
}};

}  // namespace
}  // namespace braid::bench
