// transaction: one transaction of a braid::txn::database — snapshot isolation with
// first-updater-wins, or serializable (snapshot isolation certified by the Serial Safety Net).
//
//   braid::txn::transaction tx = db->begin();
//   std::string value;
//   if (tx.get(users, "alice", value) == braid::txn::status::ok) { ... }
//   tx.upsert(users, "bob", "42");
//   braid::txn::status s = tx.commit();            // ok, or the reason it was rolled back
//
// Every operation is one coroutine written once for both execution modes: `get<M>(...)` with
// M = braid::sequential is the plain engine (the non-template `get(...)` runs it to its end);
// with M = braid::interleaved it prefetches and suspends at the likely misses — the
// index nodes of the probe, the indirection entry and every version header it reads — so a
// scheduler can run other transactions' operations meanwhile. The index probe is inlined into
// the operation's frame (Masstree's point_probe driven node by node, CoroBase's flattening);
// a scan's index walk runs without suspending, its records' entries and versions suspend.
// database_options::suspend_at turns each of these places off (get_nested and multi_get
// suspend or prefetch at all of them: they are the baselines). A transaction runs one
// operation at a time.
//
// Reads see the newest version committed at or before the transaction's begin timestamp, and
// the transaction's own writes. A write to a record whose newest version is another open
// transaction's, or was committed after our begin, aborts with abort_write_conflict. After
// any abort_* status the transaction has been rolled back (its versions unlinked, its reader
// registrations and write set dropped); later operations and commit() return the same
// status. A transaction destroyed while open aborts. After commit() operations return
// invalid_argument.
//
// Scans: scan(table, start, limit, visit) calls visit(key, value) for up to `limit` visible
// records with key >= start in key order; reverse_scan for key <= start in descending order
// (an empty start: from the largest key). The views are valid during the call; visit must
// not use the transaction. Secondary indexes: index_get / index_scan look a secondary key up
// and return the record's value only if its visible version still has that secondary key.
//
// Batched reads: multi_get(table, keys, values, statuses, technique, group) reads every key of
// a batch within the transaction — statuses[i] and values[i] exactly as get(table, keys[i],
// values[i]) would give them, duplicates and all — interleaving up to `group` reads at once
// (CoroBase's intra-transaction baselines, a multi-key call that returns when every key is
// done). `sequential`: a loop of get. `coroutines`: the flattened get<interleaved>
// coroutines, `group` in flight under braid's interleaved_scheduler. `nested`: the same with
// the fully nested get_nested<interleaved> (CoroBase's CORO-FN-MK). `amac`: a hand-written
// ring of `group` state machines, each advanced one stage per visit — the Masstree probe node
// by node, the indirection entry, each version header of the chain — prefetching before it
// moves on to the next key's machine. It returns ok, or (statuses then unspecified)
// invalid_argument for spans of different sizes or a group of 0, or the status that stops
// every operation: a transaction that is over, an unknown table.
//
// Cost: a get is an index probe (O(log n)) plus one indirection entry and the chain down to
// the visible version (one header when no older snapshot is open). Reads allocate nothing
// (values are copied into the caller's string, whose capacity is reused); serializable
// transactions append each read version to a reused read set. A write allocates its version.
// A multi_get takes its ring (states or coroutine frames) from the thread's frame pool.
//
// Known limits: secondary-index reads extract the key from the value (the extractor returns
// a std::string: an allocation for keys beyond the small-string buffer). Phantoms are not
// detected by the certifier (SSN covers item reads only, as in ERMIA without its node-set
// check), so `serializable` is serializable for point reads and writes; scans read a snapshot.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/core/task.hpp"
#include "braid/txn/detail/engine.hpp"
#include "braid/txn/detail/reverse_key.hpp"
#include "braid/txn/options.hpp"
#include "braid/txn/status.hpp"

namespace braid::txn {

// Names a table of a database (from create_table / find_table). Null: no table.
struct table_handle {
  detail::table* table = nullptr;
  explicit operator bool() const noexcept { return table != nullptr; }
};
// Names a secondary index of a table (from create_index / find_index).
struct index_handle {
  detail::table* table = nullptr;
  detail::secondary_index* index = nullptr;
  explicit operator bool() const noexcept { return index != nullptr; }
};

class database;

// How multi_get interleaves the reads of a batch (see above).
enum class multi_get_technique : std::uint8_t { sequential, coroutines, nested, amac };

class transaction {
 public:
  transaction() noexcept = default;
  transaction(transaction&& other) noexcept { take(other); }
  transaction& operator=(transaction&& other) noexcept {
    if (this != &other) {
      close();
      take(other);
    }
    return *this;
  }
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  ~transaction() { close(); }

  // True from begin until commit, abort or a rollback.
  [[nodiscard]] bool is_open() const noexcept { return phase_ == phase::open; }
  [[nodiscard]] std::uint64_t begin_timestamp() const noexcept { return begin_; }
  [[nodiscard]] isolation isolation_level() const noexcept { return isolation_; }

  // ---- point operations (plain: the sequential instantiation run to its end) ----
  status get(table_handle t, std::string_view key, std::string& value) { return run(get<sequential>(t, key, value)); }
  status insert(table_handle t, std::string_view key, std::string_view value) { return run(insert<sequential>(t, key, value)); }
  status update(table_handle t, std::string_view key, std::string_view value) { return run(update<sequential>(t, key, value)); }
  status upsert(table_handle t, std::string_view key, std::string_view value) { return run(upsert<sequential>(t, key, value)); }
  status remove(table_handle t, std::string_view key) { return run(remove<sequential>(t, key)); }
  status index_get(index_handle i, std::string_view secondary_key, std::string& value) {
    return run(index_get<sequential>(i, secondary_key, value));
  }
  template <class Visit>
  status scan(table_handle t, std::string_view start, std::size_t limit, Visit visit) {
    return run(scan<sequential>(t, start, limit, std::move(visit)));
  }
  template <class Visit>
  status reverse_scan(table_handle t, std::string_view start, std::size_t limit, Visit visit) {
    return run(reverse_scan<sequential>(t, start, limit, std::move(visit)));
  }
  template <class Visit>
  status index_scan(index_handle i, std::string_view start, std::size_t limit, Visit visit) {
    return run(index_scan<sequential>(i, start, limit, std::move(visit)));
  }

  // Reads keys[i] into values[i] and sets statuses[i] (ok, not_found, or invalid_argument for
  // a bad key), as keys.size() calls of get() would, interleaving up to `group` of them.
  // Returns ok, invalid_argument (spans of different sizes, group 0), or the transaction-level
  // status that stops every read (over, rolled back, unknown_table); then statuses are
  // unspecified. A group larger than the batch is fine.
  status multi_get(table_handle t, std::span<const std::string_view> keys, std::span<std::string> values,
                   std::span<status> statuses, multi_get_technique technique, std::size_t group = 8);

  // commit() = precommit() then finish_commit(): ok, or the abort_* reason it was rolled back.
  status commit();
  status abort();
  // Pipelined commit (ERMIA's commit queue), for a thread that keeps several transactions in
  // flight while the log syncs. precommit takes the commit timestamp, certifies, and appends
  // the log record; after ok the outcome is decided unless the log fails, and the transaction
  // is precommitted: no more operations, its writes not yet visible to anyone (a reader that
  // needs them waits for the disk, never for this thread). finish_commit waits until the
  // record is durable and makes the writes visible: ok or abort_log_failure. A precommitted
  // transaction that is destroyed or moved over finishes its commit. A read-only precommit
  // has nothing to wait for: finish_commit returns ok at once.
  status precommit();
  status finish_commit();
  [[nodiscard]] bool is_precommitted() const noexcept { return phase_ == phase::precommitted; }
  // Whether finish_commit would return without waiting (the record is on disk, or no log).
  [[nodiscard]] bool is_durable() const noexcept;

  // ---- the same operations as coroutines, for either execution mode ----
  template <execution_mode M>
  coro<status> get(table_handle t, std::string_view key, std::string& value) {
    return read_record<M>(t.table, nullptr, false, key, value);
  }
  // get as CoroBase's fully nested variant, for comparison with the flattened one above: a
  // task for the read, a child task for the index probe with one grandchild per node it
  // visits, and a child for the version chain with one per version. Same probe, same
  // visibility step, same result; only the coroutine structure differs.
  template <execution_mode M>
  task<status> get_nested(table_handle t, std::string_view key, std::string& value) {
    return read_record_nested<M>(t.table, key, value);
  }
  template <execution_mode M>
  coro<status> insert(table_handle t, std::string_view key, std::string_view value) {
    return write<M>(t, key, value, write_kind::insert);
  }
  template <execution_mode M>
  coro<status> update(table_handle t, std::string_view key, std::string_view value) {
    return write<M>(t, key, value, write_kind::update);
  }
  template <execution_mode M>
  coro<status> upsert(table_handle t, std::string_view key, std::string_view value) {
    return write<M>(t, key, value, write_kind::upsert);
  }
  template <execution_mode M>
  coro<status> remove(table_handle t, std::string_view key) {
    return write<M>(t, key, {}, write_kind::remove);
  }
  template <execution_mode M>
  coro<status> index_get(index_handle i, std::string_view secondary_key, std::string& value) {
    return read_record<M>(i.table, i.index, true, secondary_key, value);
  }
  template <execution_mode M, class Visit>
  coro<status> scan(table_handle t, std::string_view start, std::size_t limit, Visit visit) {
    return scan_index<M>(t.table, nullptr, start, limit, false, std::move(visit));
  }
  template <execution_mode M, class Visit>
  coro<status> reverse_scan(table_handle t, std::string_view start, std::size_t limit, Visit visit) {
    return scan_index<M>(t.table, nullptr, start, limit, true, std::move(visit));
  }
  template <execution_mode M, class Visit>
  coro<status> index_scan(index_handle i, std::string_view start, std::size_t limit, Visit visit) {
    return scan_index<M>(i.table, i.index, start, limit, false, std::move(visit));
  }

 private:
  friend class database;
  using primary_index = masstree<std::uint64_t>;
  enum class phase : std::uint8_t { none, open, precommitted, rolled_back, committed };
  enum class write_kind : std::uint8_t { insert, update, upsert, remove };
  enum class sight : std::uint8_t { visible, invisible, own };
  // What an open transaction's view of a version's owner is.
  enum class owner_view : std::uint8_t { gone, invisible, visible };

  transaction(detail::engine& engine, isolation level, access mode);

  template <class Operation>
  static status run(Operation operation) {
    while (!operation.done()) operation.resume();
    return operation.take_result();
  }

  template <execution_mode M>
  coro<status> read_record(detail::table* t, detail::secondary_index* secondary, bool by_secondary,
                           std::string_view key, std::string& value);
  template <execution_mode M>
  coro<status> write(table_handle t, std::string_view key, std::string_view value, write_kind kind);
  template <execution_mode M>
  task<status> read_record_nested(detail::table* t, std::string_view key, std::string& value);
  template <execution_mode M>
  static task<std::optional<std::uint64_t>> probe_nested(const primary_index& index, std::string_view key);
  template <execution_mode M>
  static task<void> visit_node(const void* node, std::size_t bytes);
  template <execution_mode M>
  task<detail::version*> chain_nested(std::atomic<detail::version*>& entry);
  template <execution_mode M>
  static task<void> visit_version(detail::version* v);
  // Whether an operation in mode M suspends at a place that database_options::suspend_at
  // turns on or off.
  template <execution_mode M>
  static bool suspends(bool place) noexcept {
    if constexpr (M::suspends) {
      return place;
    } else {
      return false;
    }
  }
  // The checks before a read: ok, or the status the read returns at once.
  [[nodiscard]] status readable(const detail::table* t, const detail::secondary_index* secondary, bool by_secondary,
                                std::string_view key) const noexcept {
    if (const status s = usable(t); s != status::ok) return s;
    if (by_secondary && secondary == nullptr) return status::unknown_table;
    return valid_key(key) ? status::ok : status::invalid_argument;
  }
  // The end of a read at the version it settled on (null: none).
  static status deliver(const detail::version* v, const detail::secondary_index* secondary, bool by_secondary,
                        std::string_view key, std::string& value) {
    if (v == nullptr || v->tombstone) return status::not_found;
    // A stale secondary entry (the record's secondary key changed, or the write that added it
    // aborted) is filtered out.
    if (by_secondary && secondary->extract(v->value()) != key) return status::not_found;
    value.assign(v->value());
    return status::ok;
  }
  // multi_get's AMAC technique, on arguments already checked.
  class amac_multi_get;
  void multi_get_amac(detail::table& t, std::span<const std::string_view> keys, std::span<std::string> values,
                      std::span<status> statuses, std::size_t group);
  template <execution_mode M, class Visit>
  coro<status> scan_index(detail::table* t, detail::secondary_index* secondary, std::string_view start,
                          std::size_t limit, bool reverse, Visit visit);

  // Checks before an operation: the transaction is open and the table is this database's.
  [[nodiscard]] status usable(const detail::table* t) const noexcept {
    if (phase_ != phase::open) return phase_ == phase::rolled_back ? reason_ : status::invalid_argument;
    if (t == nullptr || t->owner != engine_) return status::unknown_table;
    return status::ok;
  }
  static bool valid_key(std::string_view key) noexcept { return !key.empty() && key.size() <= max_key_bytes; }

  // Whether this transaction sees version `v` (registers the read under SSN). Never suspends;
  // may wait for a transaction that is inside its commit.
  sight see(detail::version& v);
  // One step down a record's chain at `v` (fetched, not null): true if `v` is the version this
  // transaction reads (committed in its snapshot, or its own); else `v` moves to the next older
  // version (null: none) and false. The one visibility step of every read.
  bool settles_on(detail::version*& v) {
    if (see(*v) != sight::invisible) return true;
    v = v->next.load(std::memory_order_acquire);
    return false;
  }
  owner_view view_of(std::uint64_t owner_id, std::uint64_t& commit_ts) const;
  // Installs a version of `kind` on the record (non-suspending part of write). `retry`: the
  // entry changed under us, fetch it again.
  status install(detail::table& t, std::uint64_t oid, std::atomic<detail::version*>& entry, detail::version* head,
                 std::string_view key, std::string_view value, write_kind kind, bool& retry);
  status prepare_secondary_keys(detail::table& t, std::string_view value, bool tombstone);
  void add_secondary_entries(detail::table& t, std::uint64_t oid);
  void cut_chain_below(detail::version* newest);
  status roll_back(status reason);
  bool certify(std::uint64_t commit_ts);
  // Stamps the writes with commit_ts_ and ends the transaction as committed.
  void make_visible();
  void finish_ssn(std::uint64_t commit_ts);
  void release_reads() noexcept;
  void end(phase final_phase) noexcept;
  void close() noexcept;
  void take(transaction& other) noexcept;
  [[nodiscard]] detail::transaction_context& context() const noexcept { return engine_->contexts[slot_]; }

  detail::engine* engine_ = nullptr;
  std::size_t slot_ = 0;
  std::uint64_t id_ = 0;
  std::uint64_t begin_ = 0;
  isolation isolation_ = isolation::snapshot;
  access access_ = access::read_write;
  phase phase_ = phase::none;
  status reason_ = status::ok;
  std::uint64_t commit_ts_ = 0;     // precommitted: its commit timestamp
  std::uint64_t log_ticket_ = 0;    // precommitted: its place in the log (0: nothing to wait for)
};

// ---- operations ----------------------------------------------------------------------------------

// get and index_get: one probe of `tree` (the primary index, or a secondary one), then the
// record's indirection entry and its chain down to the visible version.
template <execution_mode M>
coro<status> transaction::read_record(detail::table* t, detail::secondary_index* secondary, bool by_secondary,
                                      std::string_view key, std::string& value) {
  if (const status s = readable(t, secondary, by_secondary, key); s != status::ok) co_return s;
  const auto guard = engine_->versions.pin();
  const suspension_points& at = engine_->options.suspend_at;
  primary_index::point_probe probe(by_secondary ? secondary->entries : t->primary, key);
  while (const void* node = probe.next()) {
    if (suspends<M>(at.index_nodes)) co_await primary_index::fetch_node<M>(node, probe.next_bytes());
    probe.step();
  }
  const std::optional<std::uint64_t> oid = probe.result();
  if (!oid) co_return status::not_found;
  std::atomic<detail::version*>& entry = t->oids.entry(*oid);
  if (suspends<M>(at.indirection_entry)) co_await fetch<M>(&entry);
  detail::version* v = entry.load(std::memory_order_acquire);
  while (v != nullptr) {
    if (suspends<M>(at.version_headers)) co_await fetch<M>(v);
    if (settles_on(v)) break;
  }
  co_return deliver(v, secondary, by_secondary, key, value);
}

// get_nested: the same steps as read_record, each level its own task.
template <execution_mode M>
task<status> transaction::read_record_nested(detail::table* t, std::string_view key, std::string& value) {
  if (const status s = readable(t, nullptr, false, key); s != status::ok) co_return s;
  const auto guard = engine_->versions.pin();
  const std::optional<std::uint64_t> oid = co_await probe_nested<M>(t->primary, key);
  if (!oid) co_return status::not_found;
  const detail::version* v = co_await chain_nested<M>(t->oids.entry(*oid));
  co_return deliver(v, nullptr, false, key, value);
}

template <execution_mode M>
task<std::optional<std::uint64_t>> transaction::probe_nested(const primary_index& index, std::string_view key) {
  primary_index::point_probe probe(index, key);
  while (const void* node = probe.next()) {
    co_await visit_node<M>(node, probe.next_bytes());
    probe.step();
  }
  co_return probe.result();
}

template <execution_mode M>
task<void> transaction::visit_node(const void* node, std::size_t bytes) {
  co_await primary_index::fetch_node<M>(node, bytes);
}

template <execution_mode M>
task<detail::version*> transaction::chain_nested(std::atomic<detail::version*>& entry) {
  std::atomic<detail::version*>& fetched = co_await fetch<M>(&entry);
  detail::version* v = fetched.load(std::memory_order_acquire);
  while (v != nullptr) {
    co_await visit_version<M>(v);
    if (settles_on(v)) break;
  }
  co_return v;
}

template <execution_mode M>
task<void> transaction::visit_version(detail::version* v) {
  co_await fetch<M>(v);
}

// Inline, so that read_record<interleaved> is instantiated only in the units that call it (GCC
// 12 can fail to link a coroutine instantiated in two translation units of one program).
inline status transaction::multi_get(table_handle t, std::span<const std::string_view> keys,
                                     std::span<std::string> values, std::span<status> statuses,
                                     multi_get_technique technique, std::size_t group) {
  if (values.size() != keys.size() || statuses.size() != keys.size() || group == 0) return status::invalid_argument;
  if (const status s = usable(t.table); s != status::ok) return s;
  switch (technique) {
    case multi_get_technique::sequential:
      for (std::size_t i = 0; i < keys.size(); ++i) statuses[i] = get(t, keys[i], values[i]);
      return status::ok;
    case multi_get_technique::coroutines:
      interleaved_scheduler{group}.run(
          keys.size(), [&](std::size_t i) { return get<interleaved>(t, keys[i], values[i]); },
          [&](std::size_t i, status s) { statuses[i] = s; });
      return status::ok;
    case multi_get_technique::nested:
      interleaved_scheduler{group}.run(
          keys.size(), [&](std::size_t i) { return get_nested<interleaved>(t, keys[i], values[i]); },
          [&](std::size_t i, status s) { statuses[i] = s; });
      return status::ok;
    case multi_get_technique::amac:
      multi_get_amac(*t.table, keys, values, statuses, group);
      return status::ok;
  }
  return status::invalid_argument;  // not a technique
}

template <execution_mode M>
coro<status> transaction::write(table_handle t, std::string_view key, std::string_view value, write_kind kind) {
  if (const status s = usable(t.table); s != status::ok) co_return s;
  if (!valid_key(key) || value.size() > max_value_bytes) co_return status::invalid_argument;
  if (access_ == access::read_only) co_return status::read_only_violation;
  detail::table& table = *t.table;
  if (const status s = prepare_secondary_keys(table, value, kind == write_kind::remove); s != status::ok) co_return s;
  const auto guard = engine_->versions.pin();
  const suspension_points& at = engine_->options.suspend_at;
  std::optional<std::uint64_t> oid;
  {
    primary_index::point_probe probe(table.primary, key);
    while (const void* node = probe.next()) {
      if (suspends<M>(at.index_nodes)) co_await primary_index::fetch_node<M>(node, probe.next_bytes());
      probe.step();
    }
    oid = probe.result();
  }
  if (!oid) {
    if (kind == write_kind::update || kind == write_kind::remove) co_return status::not_found;
    const std::uint64_t fresh = table.oids.allocate();
    if (fresh == detail::indirection_array::no_oid) co_return status::invalid_argument;  // table full
    if (table.primary.insert(key, fresh)) {
      detail::encode_reverse_key(key, context().encoded_key);
      table.reversed.insert(context().encoded_key, fresh);
      oid = fresh;
    } else {
      oid = table.primary.find(key);  // another transaction added the key first; its OID is the record's
    }
  }
  std::atomic<detail::version*>& entry = table.oids.entry(*oid);
  for (;;) {
    if (suspends<M>(at.write_chain)) co_await fetch<M>(&entry);
    detail::version* head = entry.load(std::memory_order_acquire);
    if (head != nullptr && suspends<M>(at.write_chain)) co_await fetch<M>(head);
    bool retry = false;
    const status s = install(table, *oid, entry, head, key, value, kind, retry);
    if (!retry) co_return s;
  }
}

template <execution_mode M, class Visit>
coro<status> transaction::scan_index(detail::table* t, detail::secondary_index* secondary, std::string_view start,
                                     std::size_t limit, bool reverse, Visit visit) {
  if (const status s = usable(t); s != status::ok) co_return s;
  if (start.size() > max_key_bytes) co_return status::invalid_argument;
  detail::transaction_context& ctx = context();
  if (reverse && !start.empty()) {
    detail::encode_reverse_key(start, ctx.scan_cursor);
  } else {
    ctx.scan_cursor.assign(start);
  }
  const masstree<std::uint64_t>& index = secondary != nullptr ? secondary->entries : reverse ? t->reversed : t->primary;
  constexpr std::size_t batch = 64;
  const auto guard = engine_->versions.pin();
  std::size_t delivered = 0;
  while (delivered < limit) {
    ctx.scan_keys.clear();
    ctx.scan_key_ends.clear();
    ctx.scan_oids.clear();
    const std::size_t wanted = std::min(limit - delivered, batch);
    index.scan(ctx.scan_cursor, wanted, [&ctx](std::string_view key, std::uint64_t oid) {
      ctx.scan_keys.append(key);
      ctx.scan_key_ends.push_back(static_cast<std::uint32_t>(ctx.scan_keys.size()));
      ctx.scan_oids.push_back(oid);
    });
    const std::size_t found = ctx.scan_oids.size();
    for (std::size_t index_position = 0; index_position < found && delivered < limit; ++index_position) {
      std::atomic<detail::version*>& entry = t->oids.entry(ctx.scan_oids[index_position]);
      if (suspends<M>(engine_->options.suspend_at.indirection_entry)) co_await fetch<M>(&entry);
      detail::version* v = entry.load(std::memory_order_acquire);
      while (v != nullptr) {
        if (suspends<M>(engine_->options.suspend_at.version_headers)) co_await fetch<M>(v);
        if (settles_on(v)) break;
      }
      if (v == nullptr || v->tombstone) continue;
      const std::uint32_t key_begin = index_position == 0 ? 0 : ctx.scan_key_ends[index_position - 1];
      std::string_view key(ctx.scan_keys.data() + key_begin, ctx.scan_key_ends[index_position] - key_begin);
      if (secondary != nullptr) {
        ctx.scan_extracted = secondary->extract(v->value());
        if (ctx.scan_extracted != key) continue;  // stale entry
      } else if (reverse) {
        detail::decode_reverse_key(key, ctx.scan_key);
        key = ctx.scan_key;
      }
      visit(key, v->value());
      ++delivered;
    }
    if (found < wanted) break;  // the index has no more keys
    // Continue after the last key of the batch: the smallest key greater than it.
    const std::uint32_t last_begin = found == 1 ? 0 : ctx.scan_key_ends[found - 2];
    ctx.scan_cursor.assign(ctx.scan_keys, last_begin, ctx.scan_key_ends[found - 1] - last_begin);
    ctx.scan_cursor.push_back('\0');
  }
  co_return status::ok;
}

}  // namespace braid::txn
