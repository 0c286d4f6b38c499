// The non-suspending parts of a transaction: visibility, multi_get's AMAC state machines,
// installing versions, commit with the SSN certifier, rollback.
#include "braid/txn/transaction.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <thread>

#include "braid/index/detail/lookup_techniques.hpp"
#include "braid/index/masstree/node.hpp"
#include "braid/txn/detail/commit_log.hpp"

namespace braid::txn {

namespace {

using detail::transaction_state;
using detail::version;

void pause() noexcept { braid::detail::masstree::spin_pause(); }

void raise_to(std::atomic<std::uint64_t>& stamp, std::uint64_t value) noexcept {
  std::uint64_t current = stamp.load(std::memory_order_relaxed);
  while (current < value && !stamp.compare_exchange_weak(current, value, std::memory_order_acq_rel)) {
  }
}

// Reads a transaction's slot consistently: false if the slot no longer belongs to `id`.
bool read_slot(detail::transaction_slot& slot, std::uint64_t id, transaction_state& state, std::uint64_t& commit_ts,
               std::uint64_t& sstamp) noexcept {
  if (slot.id.load(std::memory_order_seq_cst) != id) return false;
  state = slot.state.load(std::memory_order_seq_cst);
  commit_ts = slot.commit_ts.load(std::memory_order_seq_cst);
  sstamp = slot.sstamp.load(std::memory_order_seq_cst);
  return slot.id.load(std::memory_order_seq_cst) == id;
}

// A committing transaction whose record is in the log is decided by the disk: waits for it
// (never for the owner's thread, which may be running other transactions: pipelined commit)
// and reports the outcome with the final commit_ts and sstamp. False if the owner has not
// appended its record yet (it is about to, without suspending: spin) or is gone.
bool settle_by_log(const detail::engine& engine, detail::transaction_slot& slot, std::uint64_t id,
                   transaction_state& state, std::uint64_t& commit_ts, std::uint64_t& sstamp) {
  const std::uint64_t ticket = slot.log_ticket.load(std::memory_order_seq_cst);
  if (ticket == 0) return false;
  commit_ts = slot.commit_ts.load(std::memory_order_seq_cst);
  sstamp = slot.sstamp.load(std::memory_order_seq_cst);
  if (slot.id.load(std::memory_order_seq_cst) != id) return false;
  const bool durable = detail::await_commit_record(engine.log, ticket) == status::ok;
  state = durable ? transaction_state::committed : transaction_state::aborted;
  return true;
}

}  // namespace

transaction::transaction(detail::engine& engine, isolation level, access mode)
    : engine_(&engine), isolation_(level), access_(mode), phase_(phase::open) {
  slot_ = engine.slots.claim();
  detail::transaction_slot& slot = engine.slots[slot_];
  id_ = slot.id.load(std::memory_order_relaxed);
  // Publish the snapshot before relying on it, so the garbage collector never passes it.
  for (;;) {
    begin_ = engine.clock.load(std::memory_order_seq_cst);
    slot.begin_ts.store(begin_, std::memory_order_seq_cst);
    if (engine.clock.load(std::memory_order_seq_cst) == begin_) break;
  }
  detail::transaction_context& ctx = context();
  ctx.pstamp = 0;
  ctx.sstamp = detail::no_successor;
}

void transaction::take(transaction& other) noexcept {
  engine_ = other.engine_;
  slot_ = other.slot_;
  id_ = other.id_;
  begin_ = other.begin_;
  isolation_ = other.isolation_;
  access_ = other.access_;
  phase_ = std::exchange(other.phase_, phase::none);
  reason_ = other.reason_;
  commit_ts_ = other.commit_ts_;
  log_ticket_ = other.log_ticket_;
}

void transaction::close() noexcept {
  if (phase_ == phase::open) roll_back(status::abort_user);
  if (phase_ == phase::precommitted) finish_commit();
  phase_ = phase::none;
}

// ---- visibility ------------------------------------------------------------------------------------

transaction::owner_view transaction::view_of(std::uint64_t owner_id, std::uint64_t& commit_ts) const {
  detail::transaction_slot& slot = engine_->slots.of(owner_id);
  for (;;) {
    transaction_state state;
    std::uint64_t sstamp;
    if (!read_slot(slot, owner_id, state, commit_ts, sstamp)) return owner_view::gone;
    switch (state) {
      case transaction_state::committed: return commit_ts <= begin_ ? owner_view::visible : owner_view::invisible;
      case transaction_state::committing:
        // Its timestamp may precede our snapshot: wait for the outcome.
        if (commit_ts != 0 && commit_ts > begin_) return owner_view::invisible;
        if (settle_by_log(*engine_, slot, owner_id, state, commit_ts, sstamp)) {
          return state == transaction_state::committed && commit_ts <= begin_ ? owner_view::visible : owner_view::invisible;
        }
        pause();
        continue;
      default: return owner_view::invisible;  // active (it will commit after our begin) or aborted
    }
  }
}

transaction::sight transaction::see(version& v) {
  for (;;) {
    const std::uint64_t stamp = v.stamp.load(std::memory_order_acquire);
    std::uint64_t commit_ts = stamp;
    if (detail::is_in_flight(stamp)) {
      if (stamp == detail::aborted_stamp) return sight::invisible;
      const std::uint64_t owner = stamp & ~detail::in_flight_tag;
      if (owner == id_) return sight::own;
      const owner_view view = view_of(owner, commit_ts);
      if (view == owner_view::gone) continue;  // it finished: its stamp is final now
      if (view == owner_view::invisible) return sight::invisible;
    } else if (stamp > begin_) {
      return sight::invisible;
    }
    if (isolation_ == isolation::serializable) {
      // SSN: register as a reader of the version, and the writer precedes us.
      v.readers[slot_ / 64].fetch_or(std::uint64_t{1} << (slot_ % 64), std::memory_order_seq_cst);
      detail::transaction_context& ctx = context();
      ctx.reads.push_back(&v);
      ctx.pstamp = std::max(ctx.pstamp, commit_ts);
    }
    return sight::visible;
  }
}

// ---- multi_get by AMAC --------------------------------------------------------------------------

// A ring of per-key read states (braid's AMAC driver: a finished state takes the next key at
// once). Each visit runs one stage of a read and prefetches what the next stage loads, as
// get<interleaved> does before each suspension: the probe's next Masstree node (the index's own
// node prefetch), then the indirection entry, then each version header down the chain.
class transaction::amac_multi_get {
 public:
  amac_multi_get(transaction& tx, detail::table& t, std::span<const std::string_view> keys,
                 std::span<std::string> values, std::span<status> statuses) noexcept
      : tx_(tx), table_(t), keys_(keys), values_(values), statuses_(statuses) {}

  void run(std::size_t group) {
    braid::detail::run_state_machines<read>(
        keys_.size(), group, [this](read& r, std::size_t index) { return begin(r, index); },
        [this](read& r) { return advance(r); });
  }

 private:
  struct read {
    std::optional<primary_index::point_probe> probe;  // while probing: pins the index's epoch
    std::atomic<version*>* entry = nullptr;
    version* current = nullptr;  // the version header prefetched last
    std::size_t index = 0;
    enum class stage : std::uint8_t { probing, at_entry, at_version } at = stage::probing;
  };

  // The stages return whether the read goes on (false: statuses_[index] is set).
  bool begin(read& r, std::size_t index) {
    r.index = index;
    if (!valid_key(keys_[index])) return finish(r, status::invalid_argument);
    r.probe.emplace(table_.primary, keys_[index]);
    r.at = read::stage::probing;
    return probe_onward(r);
  }

  bool advance(read& r) {
    switch (r.at) {
      case read::stage::probing:
        r.probe->step();
        return probe_onward(r);
      case read::stage::at_entry:
        r.current = r.entry->load(std::memory_order_acquire);
        return to_version(r);
      case read::stage::at_version:
        if (!tx_.settles_on(r.current)) return to_version(r);
        return finish(r, deliver(r.current, nullptr, false, keys_[r.index], values_[r.index]));
    }
    return finish(r, status::invalid_argument);  // unreachable: every stage is handled
  }

  // Prefetches the probe's next node, or, once the probe has its result, the record's entry.
  bool probe_onward(read& r) {
    if (const void* node = r.probe->next()) {
      (void)primary_index::fetch_node<interleaved>(node, r.probe->next_bytes());  // its prefetch; nothing suspends here
      return true;
    }
    const std::optional<std::uint64_t> oid = r.probe->result();
    r.probe.reset();
    if (!oid) return finish(r, status::not_found);
    r.entry = &table_.oids.entry(*oid);
    prefetch<interleaved::hint>(r.entry);
    r.at = read::stage::at_entry;
    return true;
  }

  // Prefetches r.current's header, or ends the read at the bottom of the chain.
  bool to_version(read& r) {
    if (r.current == nullptr) return finish(r, status::not_found);
    prefetch<interleaved::hint>(r.current);
    r.at = read::stage::at_version;
    return true;
  }

  bool finish(read& r, status s) {
    r.probe.reset();
    statuses_[r.index] = s;
    return false;
  }

  transaction& tx_;
  detail::table& table_;
  std::span<const std::string_view> keys_;
  std::span<std::string> values_;
  std::span<status> statuses_;
};

void transaction::multi_get_amac(detail::table& t, std::span<const std::string_view> keys,
                                 std::span<std::string> values, std::span<status> statuses, std::size_t group) {
  const auto guard = engine_->versions.pin();  // one operation: the versions it reads stay put
  amac_multi_get(*this, t, keys, values, statuses).run(group);
}

// ---- writes ----------------------------------------------------------------------------------------

status transaction::prepare_secondary_keys(detail::table& t, std::string_view value, bool tombstone) {
  detail::transaction_context& ctx = context();
  const std::size_t count = tombstone ? 0 : t.index_count.load(std::memory_order_acquire);
  ctx.secondary_keys.resize(count);
  for (std::size_t index = 0; index < count; ++index) {
    ctx.secondary_keys[index] = t.indexes[index]->extract(value);
    if (!valid_key(ctx.secondary_keys[index])) return status::invalid_argument;
  }
  return status::ok;
}

void transaction::add_secondary_entries(detail::table& t, std::uint64_t oid) {
  detail::transaction_context& ctx = context();
  for (std::size_t index = 0; index < ctx.secondary_keys.size(); ++index) {
    t.indexes[index]->entries.insert_or_assign(ctx.secondary_keys[index], oid);
  }
}

status transaction::install(detail::table& t, std::uint64_t oid, std::atomic<version*>& entry, version* head,
                            std::string_view key, std::string_view value, write_kind kind, bool& retry) {
  bool present = false;
  bool own = false;
  if (head != nullptr) {
    const std::uint64_t stamp = head->stamp.load(std::memory_order_acquire);
    if (stamp == detail::aborted_stamp) {  // its writer is unlinking it
      pause();
      retry = true;
      return status::ok;
    }
    if (detail::is_in_flight(stamp) && (stamp & ~detail::in_flight_tag) == id_) {
      own = true;
    } else if (detail::is_in_flight(stamp)) {
      std::uint64_t commit_ts = 0;
      const owner_view view = view_of(stamp & ~detail::in_flight_tag, commit_ts);
      if (view == owner_view::gone) {
        retry = true;
        return status::ok;
      }
      if (view == owner_view::invisible) return roll_back(status::abort_write_conflict);
    } else if (stamp > begin_) {
      return roll_back(status::abort_write_conflict);  // first updater wins
    }
    present = !head->tombstone;
  }
  if (kind == write_kind::insert && present) return status::already_exists;
  if ((kind == write_kind::update || kind == write_kind::remove) && !present) return status::not_found;

  detail::transaction_context& ctx = context();
  version* created = engine_->new_version(value, kind == write_kind::remove, detail::in_flight_tag | id_);
  if (own) {
    created->next.store(head->next.load(std::memory_order_relaxed), std::memory_order_relaxed);
    created->write_index = head->write_index;
  } else {
    created->next.store(head, std::memory_order_relaxed);
    created->write_index = static_cast<std::uint32_t>(ctx.writes.size());
  }
  version* expected = head;
  if (!entry.compare_exchange_strong(expected, created, std::memory_order_acq_rel)) {
    engine_->discard(created);
    retry = true;
    return status::ok;
  }
  if (own) {
    ctx.writes[head->write_index].created = created;
    // Superseded by our own newer write: invisible to everyone from now on. A reader that loaded
    // it before the swap must not wait for its stamp to become final: nothing else will change it.
    head->stamp.store(detail::aborted_stamp, std::memory_order_release);
    engine_->retire(head);
  } else {
    ctx.writes.push_back({&t, oid, created, head, static_cast<std::uint32_t>(ctx.write_keys.size()),
                          static_cast<std::uint32_t>(key.size())});
    ctx.write_keys.append(key);
    if (head != nullptr && isolation_ == isolation::serializable) {
      head->sstamp.store(detail::in_flight_tag | id_, std::memory_order_seq_cst);
    }
    cut_chain_below(created);
  }
  add_secondary_entries(t, oid);
  return status::ok;
}

// Garbage collection: below the newest version committed at or before the horizon, no
// snapshot sees anything. Only the record's single in-flight writer (us) changes the chain.
void transaction::cut_chain_below(version* newest) {
  const std::uint64_t horizon = engine_->horizon.load(std::memory_order_acquire);
  version* keep = newest->next.load(std::memory_order_acquire);
  while (keep != nullptr) {
    const std::uint64_t stamp = keep->stamp.load(std::memory_order_acquire);
    if (!detail::is_in_flight(stamp) && stamp <= horizon) break;
    keep = keep->next.load(std::memory_order_acquire);
  }
  if (keep == nullptr) return;
  version* garbage = keep->next.exchange(nullptr, std::memory_order_acq_rel);
  while (garbage != nullptr) {
    version* next = garbage->next.load(std::memory_order_relaxed);
    engine_->retire(garbage);
    garbage = next;
  }
}

// ---- commit ----------------------------------------------------------------------------------------

status transaction::commit() {
  if (const status s = precommit(); s != status::ok) return s;
  return finish_commit();
}

status transaction::precommit() {
  if (phase_ != phase::open) return phase_ == phase::rolled_back ? reason_ : status::invalid_argument;
  detail::transaction_context& ctx = context();
  log_ticket_ = 0;
  if (ctx.writes.empty() && isolation_ == isolation::snapshot) {  // the read-only fast path
    end(phase::committed);
    phase_ = phase::precommitted;
    return status::ok;
  }
  detail::transaction_slot& slot = engine_->slots[slot_];
  const auto guard = engine_->versions.pin();
  // Committing before the timestamp: a reader that sees us active knows our timestamp will
  // be above its snapshot.
  slot.state.store(transaction_state::committing, std::memory_order_seq_cst);
  commit_ts_ = engine_->clock.fetch_add(1, std::memory_order_seq_cst) + 1;
  slot.commit_ts.store(commit_ts_, std::memory_order_seq_cst);
  if (isolation_ == isolation::serializable && !certify(commit_ts_)) return roll_back(status::abort_serialization);
  if (!ctx.writes.empty()) log_ticket_ = detail::append_commit_record(engine_->log, commit_ts_, ctx.writes, ctx.write_keys);
  if (log_ticket_ == 0) {  // nothing to wait for (in memory, or no writes): commit now
    make_visible();
  } else {
    slot.log_ticket.store(log_ticket_, std::memory_order_seq_cst);
  }
  phase_ = phase::precommitted;
  return status::ok;
}

status transaction::finish_commit() {
  if (phase_ != phase::precommitted) return phase_ == phase::rolled_back ? reason_ : status::invalid_argument;
  if (log_ticket_ == 0) {
    phase_ = phase::committed;
    return status::ok;
  }
  if (detail::await_commit_record(engine_->log, log_ticket_) != status::ok) return roll_back(status::abort_log_failure);
  const auto guard = engine_->versions.pin();
  make_visible();
  return status::ok;
}

bool transaction::is_durable() const noexcept {
  return phase_ != phase::precommitted || detail::commit_record_durable(engine_->log, log_ticket_);
}

void transaction::make_visible() {
  detail::transaction_context& ctx = context();
  for (const detail::write_entry& write : ctx.writes) write.created->stamp.store(commit_ts_, std::memory_order_release);
  if (isolation_ == isolation::serializable) finish_ssn(commit_ts_);
  engine_->slots[slot_].state.store(transaction_state::committed, std::memory_order_seq_cst);
  thread_local std::uint64_t commits_since_refresh = 0;
  if (++commits_since_refresh >= detail::engine::horizon_refresh_interval) {
    commits_since_refresh = 0;
    engine_->refresh_horizon();
  }
  end(phase::committed);
  log_ticket_ = 0;
}

status transaction::abort() {
  if (phase_ != phase::open) return phase_ == phase::rolled_back ? reason_ : status::invalid_argument;
  return roll_back(status::abort_user);
}

// The SSN exclusion-window test (Wang et al., VLDB J. 2017, as ERMIA implements it): the
// transaction's predecessor high watermark pstamp (latest commit among transactions that must
// precede it) must stay below its successor low watermark sstamp (earliest commit among
// transactions that must follow it, through overwrites of what it read).
bool transaction::certify(std::uint64_t commit_ts) {
  detail::transaction_context& ctx = context();
  std::uint64_t sstamp = std::min(ctx.sstamp, commit_ts);
  std::uint64_t pstamp = ctx.pstamp;
  // Reads: an overwriter that committed before us follows us; its sstamp bounds ours.
  for (version* read : ctx.reads) {
    for (;;) {
      const std::uint64_t successor = read->sstamp.load(std::memory_order_seq_cst);
      if (!detail::is_in_flight(successor)) {
        sstamp = std::min(sstamp, successor);
        break;
      }
      const std::uint64_t owner = successor & ~detail::in_flight_tag;
      if (owner == id_) break;
      transaction_state state;
      std::uint64_t owner_commit = 0;
      std::uint64_t owner_sstamp = 0;
      detail::transaction_slot& owner_slot = engine_->slots.of(owner);
      if (!read_slot(owner_slot, owner, state, owner_commit, owner_sstamp)) continue;
      if (state == transaction_state::committing && (owner_commit == 0 || owner_commit < commit_ts) &&
          !settle_by_log(*engine_, owner_slot, owner, state, owner_commit, owner_sstamp)) {
        pause();  // its outcome decides ours; it does not suspend before its record is logged
        continue;
      }
      if (state == transaction_state::committed && owner_commit < commit_ts) sstamp = std::min(sstamp, owner_sstamp);
      break;
    }
  }
  // Overwrites: readers of the versions we replaced precede us.
  for (const detail::write_entry& write : ctx.writes) {
    version* overwritten = write.overwritten;
    if (overwritten == nullptr) continue;
    for (std::size_t word = 0; word < detail::reader_words; ++word) {
      std::uint64_t bits = overwritten->readers[word].load(std::memory_order_seq_cst);
      while (bits != 0) {
        const std::size_t reader = word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
        bits &= bits - 1;
        if (reader == slot_) continue;
        detail::transaction_slot& slot = engine_->slots[reader];
        for (;;) {
          const std::uint64_t reader_id = slot.id.load(std::memory_order_seq_cst);
          transaction_state state;
          std::uint64_t reader_commit = 0;
          std::uint64_t reader_sstamp = 0;
          if (reader_id == 0 || !read_slot(slot, reader_id, state, reader_commit, reader_sstamp)) break;
          if (state == transaction_state::committing && (reader_commit == 0 || reader_commit < commit_ts) &&
              !settle_by_log(*engine_, slot, reader_id, state, reader_commit, reader_sstamp)) {
            pause();
            continue;
          }
          if (state == transaction_state::committed && reader_commit < commit_ts) pstamp = std::max(pstamp, reader_commit);
          break;
        }
      }
    }
    pstamp = std::max(pstamp, overwritten->pstamp.load(std::memory_order_seq_cst));
  }
  if (pstamp >= sstamp) return false;
  ctx.pstamp = pstamp;
  ctx.sstamp = sstamp;
  engine_->slots[slot_].sstamp.store(sstamp, std::memory_order_seq_cst);
  return true;
}

void transaction::finish_ssn(std::uint64_t commit_ts) {
  detail::transaction_context& ctx = context();
  for (version* read : ctx.reads) raise_to(read->pstamp, commit_ts);
  for (const detail::write_entry& write : ctx.writes) {
    if (write.overwritten != nullptr) write.overwritten->sstamp.store(ctx.sstamp, std::memory_order_seq_cst);
  }
  release_reads();
}

void transaction::release_reads() noexcept {
  detail::transaction_context& ctx = context();
  const std::uint64_t mask = ~(std::uint64_t{1} << (slot_ % 64));
  for (version* read : ctx.reads) read->readers[slot_ / 64].fetch_and(mask, std::memory_order_seq_cst);
  ctx.reads.clear();
}

// ---- abort -----------------------------------------------------------------------------------------

status transaction::roll_back(status reason) {
  detail::transaction_context& ctx = context();
  const auto guard = engine_->versions.pin();
  engine_->slots[slot_].state.store(transaction_state::aborted, std::memory_order_seq_cst);
  for (auto write = ctx.writes.rbegin(); write != ctx.writes.rend(); ++write) {
    version* created = write->created;
    std::atomic<version*>& entry = write->target->oids.entry(write->oid);
    version* expected = created;
    entry.compare_exchange_strong(expected, created->next.load(std::memory_order_acquire), std::memory_order_acq_rel);
    created->stamp.store(detail::aborted_stamp, std::memory_order_release);
    engine_->retire(created);
    if (write->overwritten != nullptr) {
      std::uint64_t mine = detail::in_flight_tag | id_;
      write->overwritten->sstamp.compare_exchange_strong(mine, detail::no_successor, std::memory_order_seq_cst);
    }
  }
  release_reads();
  reason_ = reason;
  end(phase::rolled_back);
  return reason;
}

void transaction::end(phase final_phase) noexcept {
  detail::transaction_context& ctx = context();
  ctx.writes.clear();
  ctx.write_keys.clear();
  ctx.reads.clear();
  engine_->slots.release(slot_);
  phase_ = final_phase;
}

}  // namespace braid::txn
