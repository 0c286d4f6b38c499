#include "braid/txn/database.hpp"

#include <algorithm>
#include <mutex>
#include <utility>

#include "braid/txn/checkpoint.hpp"
#include "braid/txn/manifest.hpp"

namespace braid::txn {

namespace {
bool valid_name(std::string_view name) noexcept { return !name.empty() && name.size() <= max_key_bytes; }
}  // namespace

status database::open(const database_options& options, std::unique_ptr<database>& out, std::string& message) {
  out.reset();
  message.clear();
  if (options.default_isolation != isolation::snapshot && options.default_isolation != isolation::serializable) {
    message = "unknown default isolation";
    return status::invalid_argument;
  }
  std::unique_ptr<database> opened(new database(options));
  if (!options.directory.empty()) {
    if (options.log_mode != commit_mode::sync && options.log_mode != commit_mode::async &&
        options.log_mode != commit_mode::none) {
      message = "unknown log mode";
      return status::invalid_argument;
    }
    if (options.log_segment_bytes == 0 || options.async_interval.count() <= 0 || options.checkpoint_interval.count() < 0) {
      message = "log_segment_bytes and async_interval must be positive, checkpoint_interval not negative";
      return status::invalid_argument;
    }
    if (const status s = open_database_directory(options.directory, message); s != status::ok) return s;
    if (const status s = opened->recover(message); s != status::ok) return s;
  }
  out = std::move(opened);
  return status::ok;
}

// Checkpoint rows first (committed at timestamp 1: older than any snapshot), then the log
// records after the checkpoint, each installed as its record's only version; then the clock
// past everything seen, and the log opened for appends after the last good record.
status database::recover(std::string& message) {
  const std::filesystem::path& directory = engine_->options.directory;
  status failure = status::ok;
  auto keep_first = [&failure](status s) {
    if (failure == status::ok) failure = s;
  };
  checkpoint_visitor from_checkpoint;
  from_checkpoint.table = [&](std::uint32_t id, std::string_view name) {
    table_handle created;
    keep_first(create_table_with_id(id, name, created));
  };
  from_checkpoint.row = [&](std::uint32_t id, std::uint64_t oid, std::string_view key, std::string_view value) {
    keep_first(install_committed(id, oid, key, value, false, 1));
  };
  std::uint64_t checkpoint_ts = 0;
  if (const status s = load_checkpoint(directory, from_checkpoint, checkpoint_ts, message); s != status::ok) return s;
  if (failure != status::ok) {
    message = "checkpoint in " + directory.string() + " does not fit together (" + describe(failure) + ")";
    return status::corrupt;
  }
  replay_report report;
  const status replayed = replay_log(directory, checkpoint_ts, [&](const log_record_view& record) {
    if (failure != status::ok) return;
    if (record.op == log_op::create_table) {
      table_handle existing;
      if (find_table(record.key, existing) == status::ok && existing.table->id == record.table_id) return;
      keep_first(create_table_with_id(record.table_id, record.key, existing));
      return;
    }
    const bool tombstone = record.op == log_op::remove;
    keep_first(install_committed(record.table_id, record.oid, record.key, record.value, tombstone, record.commit_ts));
  }, report);
  if (replayed != status::ok) {
    message = report.message;
    return replayed;
  }
  if (failure != status::ok) {
    message = "log in " + directory.string() + " does not fit its checkpoint (" + describe(failure) + ")";
    return status::corrupt;
  }
  set_clock(std::max({clock(), checkpoint_ts, report.max_commit_ts}));
  log_options log;
  log.directory = directory;
  log.mode = engine_->options.log_mode;
  log.async_interval = engine_->options.async_interval;
  log.segment_bytes = engine_->options.log_segment_bytes;
  std::string log_message;
  if (const status s = log_manager::open(log, log_, log_message); s != status::ok) {
    message = log_message;
    return s;
  }
  engine_->log = log_.get();
  message = report.torn_tail ? report.message : std::string();
  if (engine_->options.checkpoint_interval.count() > 0) checkpointer_ = std::thread([this] { checkpointer_loop(); });
  return status::ok;
}

database::~database() {
  {
    std::lock_guard lock(checkpointer_mutex_);
    stopping_ = true;
  }
  checkpointer_wakeup_.notify_all();
  if (checkpointer_.joinable()) checkpointer_.join();
  engine_->log = nullptr;
  log_.reset();  // flushes
}

void database::checkpointer_loop() {
  std::unique_lock lock(checkpointer_mutex_);
  while (!checkpointer_wakeup_.wait_for(lock, engine_->options.checkpoint_interval, [this] { return stopping_; })) {
    lock.unlock();
    std::string message;
    const status s = checkpoint(message);
    lock.lock();
    if (s != status::ok) checkpoint_failure_ = message;
  }
}

std::string database::checkpoint_failure() const {
  std::lock_guard lock(checkpointer_mutex_);
  return checkpoint_failure_;
}

log_stats database::log_statistics() const noexcept { return log_ != nullptr ? log_->stats() : log_stats{0, 0, 0}; }

status database::checkpoint(std::string& message) {
  message.clear();
  if (log_ == nullptr) {
    message = "an in-memory database has no checkpoints";
    return status::invalid_argument;
  }
  std::lock_guard lock(checkpoint_mutex_);
  const std::filesystem::path& directory = engine_->options.directory;
  std::unique_ptr<checkpoint_writer> writer;
  std::uint64_t snapshot_ts = 0;
  status failure = status::ok;
  // The writer is named after the snapshot's timestamp, known once the snapshot has begun.
  auto writer_for_snapshot = [&]() -> checkpoint_writer* {
    if (writer == nullptr && failure == status::ok) {
      failure = checkpoint_writer::begin(directory, snapshot_ts, writer);
      if (failure != status::ok) message = "checkpoint in " + directory.string() + ": cannot begin (" + describe(failure) + ")";
    }
    return failure == status::ok ? writer.get() : nullptr;
  };
  auto record_failure = [&](status s) {
    if (s != status::ok && failure == status::ok) {
      failure = s;
      message = writer->message();
    }
  };
  const status visited = visit_snapshot(
      [&](std::uint32_t id, std::string_view name) {
        if (checkpoint_writer* w = writer_for_snapshot()) record_failure(w->add_table(id, name));
      },
      [&](std::uint32_t id, std::uint64_t oid, std::string_view key, std::string_view value) {
        if (checkpoint_writer* w = writer_for_snapshot()) record_failure(w->add_row(id, oid, key, value));
      },
      snapshot_ts);
  if (failure != status::ok) return failure;
  if (visited != status::ok) {
    message = std::string("checkpoint snapshot: ") + describe(visited);
    return visited;
  }
  checkpoint_writer* w = writer_for_snapshot();
  if (w == nullptr) return failure;
  if (const status s = w->commit(); s != status::ok) {
    message = w->message();
    return s;
  }
  // Everything at or before the snapshot is in the checkpoint: the log before it can go.
  if (const status s = log_->truncate_through(snapshot_ts); s != status::ok) {
    message = "truncate the log in " + directory.string() + " after the checkpoint: " + describe(s);
    return s;
  }
  return status::ok;
}

status database::log_table_creation(const detail::table& created) {
  if (log_ == nullptr) return status::ok;
  log_buffer record;
  record.append(log_op::create_table, created.id, 0, created.name, {});
  const std::uint64_t commit_ts = engine_->clock.fetch_add(1, std::memory_order_seq_cst) + 1;
  log_->append_commit(commit_ts, record);
  // flush, not wait_durable: in async mode wait_durable returns at once, and a created table
  // is durable when create_table returns in both modes.
  return log_->flush() == status::ok ? status::ok : status::io_error;
}

status database::add_table(std::uint32_t id, std::string_view name, table_handle& out) {
  std::unique_lock lock(engine_->catalog_mutex);
  for (const auto& existing : engine_->tables) {
    if (existing != nullptr && existing->name == name) return status::table_exists;
  }
  if (id < engine_->tables.size() && engine_->tables[id] != nullptr) return status::table_exists;
  if (id >= engine_->tables.size()) engine_->tables.resize(id + 1);
  engine_->tables[id] = std::make_unique<detail::table>(engine_.get(), id, std::string(name));
  out.table = engine_->tables[id].get();
  return status::ok;
}

status database::create_table(std::string_view name, table_handle& out) {
  if (!valid_name(name)) return status::invalid_argument;
  std::uint32_t id = 0;
  {
    std::shared_lock lock(engine_->catalog_mutex);
    id = static_cast<std::uint32_t>(std::max<std::size_t>(engine_->tables.size(), 1));
  }
  // Table ids start at 1; a racing create of another table may take `id`: try the next.
  for (;; ++id) {
    const status s = add_table(id, name, out);
    if (s == status::ok) return log_table_creation(*out.table);
    if (s != status::table_exists) return s;
    table_handle named;
    if (find_table(name, named) == status::ok) return status::table_exists;
  }
}

status database::create_table_with_id(std::uint32_t id, std::string_view name, table_handle& out) {
  if (!valid_name(name) || id == 0) return status::invalid_argument;
  return add_table(id, name, out);
}

status database::find_table(std::string_view name, table_handle& out) const {
  std::shared_lock lock(engine_->catalog_mutex);
  for (const auto& table : engine_->tables) {
    if (table != nullptr && table->name == name) {
      out.table = table.get();
      return status::ok;
    }
  }
  return status::unknown_table;
}

status database::create_index(table_handle table, std::string_view name, key_extractor extract, index_handle& out) {
  if (!table || table.table->owner != engine_.get()) return status::unknown_table;
  if (!valid_name(name) || !extract) return status::invalid_argument;
  detail::table& t = *table.table;
  detail::secondary_index* index = nullptr;
  {
    std::unique_lock lock(engine_->catalog_mutex);
    const std::size_t count = t.index_count.load(std::memory_order_relaxed);
    for (std::size_t position = 0; position < count; ++position) {
      if (t.indexes[position]->name == name) return status::table_exists;
    }
    if (count == max_indexes_per_table) return status::invalid_argument;
    t.indexes[count] = std::make_unique<detail::secondary_index>(std::string(name), std::move(extract));
    index = t.indexes[count].get();
    t.index_count.store(count + 1, std::memory_order_release);  // writers maintain it from here on
  }
  // Build from the newest version of every record and, below an in-flight one, the newest
  // committed version; writes from now on add their own entries.
  const auto guard = engine_->versions.pin();
  t.primary.scan("", [&](std::string_view, std::uint64_t oid) {
    bool newest = true;
    for (detail::version* v = t.oids.entry(oid).load(std::memory_order_acquire); v != nullptr;
         v = v->next.load(std::memory_order_acquire)) {
      const std::uint64_t stamp = v->stamp.load(std::memory_order_acquire);
      if (stamp == detail::aborted_stamp) continue;
      if (!v->tombstone) {
        const std::string key = index->extract(v->value());
        if (!key.empty() && key.size() <= max_key_bytes) {
          if (newest) index->entries.insert_or_assign(key, oid);
          else index->entries.insert(key, oid);
        }
      }
      newest = false;
      if (!detail::is_in_flight(stamp)) break;
    }
  });
  out = {table.table, index};
  return status::ok;
}

status database::find_index(table_handle table, std::string_view name, index_handle& out) const {
  if (!table || table.table->owner != engine_.get()) return status::unknown_table;
  const std::size_t count = table.table->index_count.load(std::memory_order_acquire);
  for (std::size_t position = 0; position < count; ++position) {
    if (table.table->indexes[position]->name == name) {
      out = {table.table, table.table->indexes[position].get()};
      return status::ok;
    }
  }
  return status::unknown_table;
}

status database::install_committed(std::uint32_t table_id, std::uint64_t oid, std::string_view key,
                                   std::string_view value, bool tombstone, std::uint64_t commit_ts) {
  if (key.empty() || key.size() > max_key_bytes || value.size() > max_value_bytes ||
      commit_ts >= detail::in_flight_tag) {
    return status::invalid_argument;
  }
  detail::table* t = nullptr;
  {
    std::shared_lock lock(engine_->catalog_mutex);
    if (table_id < engine_->tables.size()) t = engine_->tables[table_id].get();
  }
  if (t == nullptr) return status::unknown_table;
  if (!t->oids.reserve(oid)) return status::invalid_argument;
  const std::optional<std::uint64_t> existing = t->primary.find(key);
  if (existing && *existing != oid) return status::invalid_argument;
  if (!existing) {
    t->primary.insert(key, oid);
    std::string encoded;
    detail::encode_reverse_key(key, encoded);
    t->reversed.insert(encoded, oid);
  }
  std::atomic<detail::version*>& entry = t->oids.entry(oid);
  detail::version* created = engine_->new_version(tombstone ? std::string_view{} : value, tombstone, commit_ts);
  detail::version* older = entry.exchange(created, std::memory_order_acq_rel);
  while (older != nullptr) {
    detail::version* next = older->next.load(std::memory_order_relaxed);
    engine_->retire(older);
    older = next;
  }
  if (!tombstone) {
    const std::size_t count = t->index_count.load(std::memory_order_acquire);
    for (std::size_t position = 0; position < count; ++position) {
      const std::string secondary = t->indexes[position]->extract(value);
      if (!secondary.empty() && secondary.size() <= max_key_bytes) t->indexes[position]->entries.insert_or_assign(secondary, oid);
    }
  }
  std::uint64_t clock = engine_->clock.load(std::memory_order_relaxed);
  while (clock < commit_ts && !engine_->clock.compare_exchange_weak(clock, commit_ts)) {
  }
  return status::ok;
}

void database::set_clock(std::uint64_t timestamp) noexcept { engine_->clock.store(timestamp, std::memory_order_seq_cst); }

status database::visit_snapshot(const std::function<void(std::uint32_t, std::string_view)>& table,
                                const std::function<void(std::uint32_t, std::uint64_t, std::string_view, std::string_view)>& row,
                                std::uint64_t& snapshot_ts) {
  transaction snapshot = begin(isolation::snapshot, access::read_only);
  snapshot_ts = snapshot.begin_timestamp();
  std::vector<detail::table*> tables;
  {
    std::shared_lock lock(engine_->catalog_mutex);
    for (const auto& t : engine_->tables) {
      if (t != nullptr) tables.push_back(t.get());
    }
  }
  for (detail::table* t : tables) {
    if (table) table(t->id, t->name);
  }
  if (!row) return snapshot.commit();
  std::string key;
  for (detail::table* t : tables) {
    // A snapshot of the index's keys with their OIDs, then each record at the snapshot.
    std::string after;
    for (;;) {
      std::vector<std::pair<std::string, std::uint64_t>> batch = t->primary.scan(after, 256);
      if (batch.empty()) break;
      for (const auto& [record_key, oid] : batch) {
        const status s = snapshot.get(table_handle{t}, record_key, key);
        if (s == status::ok) row(t->id, oid, record_key, key);
        else if (s != status::not_found) return s;
      }
      if (batch.size() < 256) break;
      after = batch.back().first;
      after.push_back('\0');
    }
  }
  return snapshot.commit();
}

void database::collect_garbage() {
  engine_->refresh_horizon();
  engine_->versions.collect();
}

}  // namespace braid::txn
