#include "braid/index/detail/epoch_domain.hpp"

#include <algorithm>
#include <new>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace braid::detail {

constinit thread_local epoch_thread_cache epoch_cache{};

namespace {

std::atomic<std::uint64_t> next_domain_uid{1};

// The live domains by uid: a thread that exits releases its slots only in domains that still
// exist (uids are never reused, so a new domain at a dead one's address is not confused).
struct domain_registry {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, epoch_domain*> live;
};

domain_registry& registry() {
  static domain_registry instance;
  return instance;
}

}  // namespace

// The slots the calling thread holds, released when it exits.
struct epoch_thread_registrations {
  struct entry {
    std::uint64_t uid;
    epoch_domain* domain;
    epoch_domain::participant* participant;
  };
  std::vector<entry> entries;

  ~epoch_thread_registrations() {
    domain_registry& shared = registry();
    std::lock_guard lock(shared.mutex);
    for (const entry& registration : entries) {
      if (shared.live.contains(registration.uid)) registration.domain->release_participant(*registration.participant);
    }
    epoch_cache = {};
  }
};

namespace {
thread_local epoch_thread_registrations thread_registrations;
}  // namespace

epoch_domain::epoch_domain(page_size pages)
    : uid_(next_domain_uid.fetch_add(1, std::memory_order_relaxed)),
      pages_(pages),
      participants_(std::make_unique<participant[]>(max_participants)) {
  domain_registry& shared = registry();
  std::lock_guard lock(shared.mutex);
  shared.live.emplace(uid_, this);
}

epoch_domain::~epoch_domain() {
  {
    domain_registry& shared = registry();
    std::lock_guard lock(shared.mutex);
    shared.live.erase(uid_);
  }
  // Nobody can reach anything any more: reclaim every retired object. Arena blocks need no
  // work (the chunks go below); large blocks, retired or live, go back to the heap.
  for (std::size_t index = 0; index < max_participants; ++index) {
    for (const retired_object& object : participants_[index].retired) {
      if (object.reclaim != nullptr) object.reclaim(object.object);
    }
  }
  for (void* block : large_blocks_) ::operator delete(block, std::align_val_t{block_alignment});
  // Poisoned free blocks must not leave stale poison behind when the chunks are unmapped.
  for (const huge_buffer& chunk : chunks_) BRAID_UNPOISON(chunk.data(), chunk.size());
  epoch_cache.forget(uid_);
}

epoch_domain::participant& epoch_domain::register_thread() {
  auto& entries = thread_registrations.entries;
  for (const auto& registration : entries) {
    if (registration.uid == uid_) {
      epoch_cache.remember(uid_, registration.participant);
      return *registration.participant;
    }
  }
  {
    // Forget the slots of domains that no longer exist.
    domain_registry& shared = registry();
    std::lock_guard lock(shared.mutex);
    std::erase_if(entries, [&](const auto& registration) { return !shared.live.contains(registration.uid); });
  }
  for (std::size_t index = 0; index < max_participants; ++index) {
    participant& candidate = participants_[index];
    bool expected = false;
    if (candidate.claimed.load(std::memory_order_relaxed) ||
        !candidate.claimed.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
      continue;
    }
    std::size_t high_water = participant_high_water_.load(std::memory_order_relaxed);
    while (high_water < index + 1 &&
           !participant_high_water_.compare_exchange_weak(high_water, index + 1, std::memory_order_release)) {
    }
    entries.push_back({uid_, this, &candidate});
    epoch_cache.remember(uid_, &candidate);
    return candidate;
  }
  throw std::runtime_error("epoch_domain: more than " + std::to_string(max_participants) +
                           " threads use one domain at the same time");
}

void epoch_domain::release_participant(participant& self) noexcept {
  // Guards do not outlive their thread; what the thread retired stays in the slot for its
  // next owner (or the domain's destructor), its free blocks too.
  reclaim_safe(self);
  self.claimed.store(false, std::memory_order_release);
}

void epoch_domain::retire(void* block, std::size_t bytes) {
  participant& self = local();
  // The fence orders the unlink (before the call) before the read of the epoch.
  store_load_fence();
  self.retired.push_back({block, bytes, nullptr, global_epoch_.load(std::memory_order_relaxed)});
  count(self.retired_count);
  if (++self.retires_since_collect >= collect_interval) collect();
}

void epoch_domain::retire(void* object, void (*reclaim)(void*)) {
  participant& self = local();
  store_load_fence();
  self.retired.push_back({object, 0, reclaim, global_epoch_.load(std::memory_order_relaxed)});
  count(self.retired_count);
  if (++self.retires_since_collect >= collect_interval) collect();
}

std::size_t epoch_domain::collect() {
  participant& self = local();
  self.retires_since_collect = 0;
  try_advance();
  return reclaim_safe(self);
}

bool epoch_domain::try_advance() noexcept {
  std::uint64_t epoch = global_epoch_.load(std::memory_order_relaxed);
  store_load_fence();
  const std::size_t registered = participant_high_water_.load(std::memory_order_acquire);
  for (std::size_t index = 0; index < registered; ++index) {
    const std::uint64_t announcement = participants_[index].announcement.load(std::memory_order_acquire);
    if (announcement != quiescent && announcement != announced(epoch)) return false;
  }
  return global_epoch_.compare_exchange_strong(epoch, epoch + 1, std::memory_order_seq_cst);
}

std::size_t epoch_domain::reclaim_safe(participant& self) {
  const std::uint64_t epoch = global_epoch_.load(std::memory_order_acquire);
  auto& retired = self.retired;
  // Retirement order makes the epochs ascend: the safe objects are a prefix.
  std::size_t safe = 0;
  while (safe < retired.size() && retired[safe].epoch + 2 <= epoch) ++safe;
  for (std::size_t index = 0; index < safe; ++index) reclaim(self, retired[index]);
  retired.erase(retired.begin(), retired.begin() + static_cast<std::ptrdiff_t>(safe));
  count(self.reclaimed_count, safe);
  return safe;
}

void epoch_domain::reclaim(participant& self, const retired_object& object) noexcept {
  if (object.reclaim != nullptr) {
    object.reclaim(object.object);
  } else if (object.bytes <= largest_pooled_block) {
    bump(self, -static_cast<std::int64_t>(class_bytes(object.bytes)));
    auto* block = static_cast<free_block*>(object.object);
    free_block*& head = self.free_lists[class_index(object.bytes)];
    block->next = head;
    head = block;
    BRAID_POISON(block, class_bytes(object.bytes));
  } else {
    free_large(self, object.object, object.bytes);
  }
}

void* epoch_domain::allocate_large(participant& self, std::size_t bytes) {
  void* block = ::operator new(bytes, std::align_val_t{block_alignment});
  try {
    std::lock_guard lock(arena_mutex_);
    large_blocks_.insert(block);
  } catch (...) {
    ::operator delete(block, std::align_val_t{block_alignment});
    throw;
  }
  bump(self, static_cast<std::int64_t>(bytes));
  return block;
}

void epoch_domain::free_large(participant& self, void* block, std::size_t bytes) noexcept {
  {
    std::lock_guard lock(arena_mutex_);
    large_blocks_.erase(block);
  }
  bump(self, -static_cast<std::int64_t>(bytes));
  ::operator delete(block, std::align_val_t{block_alignment});
}

void* epoch_domain::refill_and_allocate(participant& self, std::size_t reserved) {
  // The rest of the old slab is abandoned: less than one 4 KiB block.
  std::lock_guard lock(arena_mutex_);
  if (chunk_cursor_ == nullptr || chunk_cursor_ + slab_bytes > chunk_end_) {
    chunks_.emplace_back(next_chunk_bytes_, pages_, /*prefault=*/false);
    chunk_cursor_ = chunks_.back().data();
    chunk_end_ = chunk_cursor_ + chunks_.back().size();
    next_chunk_bytes_ = std::min(next_chunk_bytes_ * 2, std::size_t{64} << 20);
  }
  self.slab_cursor = chunk_cursor_;
  self.slab_end = chunk_cursor_ + slab_bytes;
  chunk_cursor_ += slab_bytes;
  std::byte* block = self.slab_cursor;
  self.slab_cursor += reserved;
  return block;
}

epoch_statistics epoch_domain::statistics() const {
  epoch_statistics result;
  result.global_epoch = global_epoch();
  std::int64_t allocated = 0;
  const std::size_t registered = participant_high_water_.load(std::memory_order_acquire);
  for (std::size_t index = 0; index < registered; ++index) {
    const participant& p = participants_[index];
    result.retired += p.retired_count.load(std::memory_order_relaxed);
    result.reclaimed += p.reclaimed_count.load(std::memory_order_relaxed);
    allocated += p.allocated_bytes.load(std::memory_order_relaxed);
    if (p.claimed.load(std::memory_order_relaxed)) ++result.registered_threads;
  }
  result.allocated_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(allocated, 0));
  {
    std::lock_guard lock(arena_mutex_);
    for (const huge_buffer& chunk : chunks_) result.arena_reserved_bytes += chunk.size();
  }
  return result;
}

}  // namespace braid::detail
