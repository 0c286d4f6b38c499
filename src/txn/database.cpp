#include "braid/txn/database.hpp"

#include <mutex>
#include <utility>

namespace braid::txn {

namespace {
bool valid_name(std::string_view name) noexcept { return !name.empty() && name.size() <= max_key_bytes; }
}  // namespace

status database::open(const database_options& options, std::unique_ptr<database>& out, std::string& message) {
  if (!options.directory.empty()) {
    message = "durable databases need the log, which this build does not include: " + options.directory.string();
    return status::invalid_argument;
  }
  out.reset(new database(options));
  message.clear();
  return status::ok;
}

database::~database() = default;

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
  created->next.store(entry.load(std::memory_order_acquire), std::memory_order_relaxed);
  entry.store(created, std::memory_order_release);
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
