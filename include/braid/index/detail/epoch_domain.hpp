// epoch_domain: epoch-based memory reclamation for structures whose readers take no latches,
// and the node memory of those structures (the Masstree-style index, the Bw-tree).
//
// A latch-free reader may hold a pointer to a node at the moment a writer unlinks it. An
// unlinked node is therefore not freed but *retired*, and reclaimed only once no thread can
// still reach it. The domain decides when, by Fraser's epoch-based reclamation (the scheme of
// Masstree, Silo and ERMIA):
//
//   - a global epoch G only grows;
//   - a thread *pins* before it reads shared nodes and unpins afterwards; while pinned it
//     announces an epoch, and the full fence of the pin (store_load_fence) orders that
//     announcement before its reads;
//   - G advances from e to e + 1 only when every pinned thread announces e;
//   - an object retired while G = r (read after it was unlinked) is reclaimed once G >= r + 2:
//     a thread that reached it before the unlink pinned at an epoch <= r, and G cannot pass
//     r + 1 until that thread unpinned.
//
//   braid::detail::epoch_domain domain;
//   {
//     auto guard = domain.pin();                 // reads of shared nodes are safe from here...
//     const node* n = root.load(std::memory_order_acquire);
//   }                                            // ...to here
//   domain.retire(old_node, sizeof(node));       // after unlinking it; freed when safe
//
// Interleaving. An operation coroutine pins in its own frame, so a suspended lookup keeps its
// epoch pinned until it finishes (or its frame is destroyed), and it never holds a latch
// across a suspension. A thread running a ring of G interleaved lookups therefore holds up to
// G overlapping guards. Pinning once per batch (CoroBase's choice, with strict batches) would
// keep the announcement at the run's first epoch for as long as the ring has work — the whole
// input with braid's refilling `interleaved_scheduler` — and no memory retired meanwhile could
// be reclaimed. The domain instead counts a thread's guards in two buckets, its announced
// epoch A and A + 1 (G never exceeds A + 1 while the thread is pinned): a new guard joins
// bucket A + 1 once G has moved there, and when the last guard of bucket A is released the
// thread's announcement moves up to A + 1. Reclamation keeps pace with a ring that never
// drains, and a pin costs a fence only when the thread goes from unpinned to pinned or first
// joins the newer bucket; otherwise two counter updates. A guard must be released on the
// thread that took it (braid's schedulers resume an operation on the thread that started it).
//
// Node memory. allocate() hands out 64-byte-aligned blocks from the domain's own arena:
// 2 MiB-page chunks (transparent huge pages, as the experiments' other data), carved in
// per-thread slabs, with per-thread free lists per 64-byte size class up to 4 KiB; larger
// blocks come from the global heap. Reclaimed blocks return to the reclaiming thread's free
// lists. Destroying the domain releases every chunk and every large block still live, so a
// structure built on it frees all its nodes at once. Under AddressSanitizer free blocks are
// poisoned.
//
// Threads register with a domain on first use (at most max_participants at a time; a thread
// that exits releases its slot). Each thread reclaims what it retired itself, every
// `collect_interval` retirements. Cost: pin and unpin are a few loads and stores of the
// thread's own cache line; advancing the epoch reads one cache line per registered thread.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <utility>
#include <vector>

#include "braid/core/detail/asan.hpp"
#include "braid/core/detail/store_load_fence.hpp"
#include "braid/core/huge_buffer.hpp"

namespace braid::detail {

struct epoch_statistics {
  std::uint64_t global_epoch = 0;
  std::uint64_t retired = 0;             // objects retired so far
  std::uint64_t reclaimed = 0;           // of which reclaimed
  std::uint64_t allocated_bytes = 0;     // node bytes handed out and not yet freed or reclaimed
  std::uint64_t arena_reserved_bytes = 0;  // bytes of the chunks the arena mapped
  std::uint64_t registered_threads = 0;
};

class epoch_domain {
 public:
  static constexpr std::size_t max_participants = 128;
  static constexpr std::size_t block_alignment = 64;
  static constexpr std::size_t largest_pooled_block = 4096;
  static constexpr std::size_t collect_interval = 64;

  class guard;

  explicit epoch_domain(page_size pages = page_size::huge_2m);
  epoch_domain(const epoch_domain&) = delete;
  epoch_domain& operator=(const epoch_domain&) = delete;
  // Precondition: no thread holds a guard or uses the domain. Reclaims everything retired and
  // releases the arena.
  ~epoch_domain();

  // Pins the calling thread until the guard is released or destroyed.
  [[nodiscard]] guard pin();

  // A block of at least `bytes`, 64-byte aligned, uninitialized.
  [[nodiscard]] void* allocate(std::size_t bytes);
  // Frees a block that was never reachable by another thread (a node built but not published).
  void deallocate(void* block, std::size_t bytes) noexcept;
  // Frees a block once no pinned thread can still reach it. Call after unlinking it.
  void retire(void* block, std::size_t bytes);
  // Calls reclaim(object) once no pinned thread can still reach `object` (for objects that do
  // not live in the arena).
  void retire(void* object, void (*reclaim)(void*));

  // Tries to advance the global epoch and reclaims what the calling thread retired and is now
  // safe. Returns the number of objects reclaimed. Writers call it every collect_interval
  // retirements; tests call it directly.
  std::size_t collect();

  [[nodiscard]] std::uint64_t global_epoch() const noexcept { return global_epoch_.load(std::memory_order_acquire); }
  // Sums over the registered threads; exact only when no thread is working.
  [[nodiscard]] epoch_statistics statistics() const;

 private:
  struct free_block {
    free_block* next;
  };
  struct retired_object {
    void* object;
    std::size_t bytes;          // arena block size, when reclaim is null
    void (*reclaim)(void*);     // null: an arena block
    std::uint64_t epoch;        // global epoch read after the object was unlinked
  };
  static constexpr std::size_t pooled_class_count = largest_pooled_block / block_alignment;
  static constexpr std::size_t slab_bytes = std::size_t{256} << 10;

  // One per registered thread, on its own cache lines. Only `announcement` and `claimed` are
  // read by other threads; everything else belongs to the owning thread.
  struct alignas(64) participant {
    std::atomic<std::uint64_t> announcement{quiescent};
    std::atomic<bool> claimed{false};
    alignas(64) std::uint64_t oldest_epoch = 0;  // A: the announced epoch while pinned
    std::uint32_t oldest_pins = 0;               // guards taken in epoch A
    std::uint32_t newer_pins = 0;                // guards taken in epoch A + 1
    std::size_t retires_since_collect = 0;
    std::vector<retired_object> retired;         // in retirement order, so epochs ascend
    std::array<free_block*, pooled_class_count> free_lists{};
    std::byte* slab_cursor = nullptr;
    std::byte* slab_end = nullptr;
    // Written by the owner only, read by statistics().
    std::atomic<std::uint64_t> retired_count{0};
    std::atomic<std::uint64_t> reclaimed_count{0};
    std::atomic<std::int64_t> allocated_bytes{0};
  };

  static constexpr std::uint64_t quiescent = 0;
  static constexpr std::uint64_t announced(std::uint64_t epoch) noexcept { return epoch << 1 | 1; }
  static constexpr std::size_t class_index(std::size_t bytes) noexcept {
    return bytes == 0 ? 0 : (bytes - 1) / block_alignment;
  }
  static constexpr std::size_t class_bytes(std::size_t bytes) noexcept { return (class_index(bytes) + 1) * block_alignment; }

  participant& local();
  participant& register_thread();
  void release_participant(participant& self) noexcept;
  friend struct epoch_thread_registrations;

  void unpin(participant& self, std::uint64_t epoch) noexcept;
  bool try_advance() noexcept;
  std::size_t reclaim_safe(participant& self);
  void reclaim(participant& self, const retired_object& object) noexcept;
  void* refill_and_allocate(participant& self, std::size_t reserved);
  void* allocate_large(participant& self, std::size_t bytes);
  void free_large(participant& self, void* block, std::size_t bytes) noexcept;
  static void bump(participant& self, std::int64_t bytes) noexcept {
    self.allocated_bytes.store(self.allocated_bytes.load(std::memory_order_relaxed) + bytes, std::memory_order_relaxed);
  }
  static void count(std::atomic<std::uint64_t>& counter, std::uint64_t by = 1) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  }

  alignas(64) std::atomic<std::uint64_t> global_epoch_{2};
  alignas(64) std::atomic<std::size_t> participant_high_water_{0};
  const std::uint64_t uid_;
  const page_size pages_;
  std::unique_ptr<participant[]> participants_;

  mutable std::mutex arena_mutex_;
  std::vector<huge_buffer> chunks_;
  std::byte* chunk_cursor_ = nullptr;
  std::byte* chunk_end_ = nullptr;
  std::size_t next_chunk_bytes_ = std::size_t{2} << 20;
  std::unordered_set<void*> large_blocks_;  // live blocks above largest_pooled_block
};

// The thread's membership in a domain while it reads shared nodes. Movable, not copyable;
// release() (or the destructor) unpins.
class epoch_domain::guard {
 public:
  guard() noexcept = default;
  guard(guard&& other) noexcept
      : domain_(std::exchange(other.domain_, nullptr)), participant_(other.participant_), epoch_(other.epoch_) {}
  guard& operator=(guard&& other) noexcept {
    if (this != &other) {
      release();
      domain_ = std::exchange(other.domain_, nullptr);
      participant_ = other.participant_;
      epoch_ = other.epoch_;
    }
    return *this;
  }
  guard(const guard&) = delete;
  guard& operator=(const guard&) = delete;
  ~guard() { release(); }

  [[nodiscard]] bool active() const noexcept { return domain_ != nullptr; }
  // The epoch this guard pinned.
  [[nodiscard]] std::uint64_t epoch() const noexcept { return epoch_; }

  void release() noexcept {
    if (domain_ != nullptr) std::exchange(domain_, nullptr)->unpin(*participant_, epoch_);
  }

 private:
  friend class epoch_domain;
  guard(epoch_domain* domain, participant* self, std::uint64_t epoch) noexcept
      : domain_(domain), participant_(self), epoch_(epoch) {}

  epoch_domain* domain_ = nullptr;
  participant* participant_ = nullptr;
  std::uint64_t epoch_ = 0;
};

// ---- the per-thread fast path ----------------------------------------------------------------

// The domains the calling thread used last and its slots there: a pin on one of them finds its
// participant with a few thread-local loads and compares. Several ways, because a transaction
// pins its versions' domain and then an index's for every operation (with one way each pin
// evicted the other and took the slow path). Uids are never reused, so a dead domain's entry
// never matches again.
struct epoch_thread_cache {
  static constexpr std::size_t ways = 4;
  struct way {
    std::uint64_t domain_uid;
    void* participant;
  };
  way entries[ways];
  std::size_t next_victim;

  void remember(std::uint64_t domain_uid, void* participant) noexcept {
    entries[next_victim] = {domain_uid, participant};
    next_victim = (next_victim + 1) % ways;
  }
  void forget(std::uint64_t domain_uid) noexcept {
    for (way& entry : entries) {
      if (entry.domain_uid == domain_uid) entry = {0, nullptr};
    }
  }
};
extern constinit thread_local epoch_thread_cache epoch_cache;

inline epoch_domain::participant& epoch_domain::local() {
  epoch_thread_cache& cache = epoch_cache;
  for (const epoch_thread_cache::way& entry : cache.entries) {
    if (entry.domain_uid == uid_) [[likely]] return *static_cast<participant*>(entry.participant);
  }
  return register_thread();
}

inline epoch_domain::guard epoch_domain::pin() {
  participant& self = local();
  if (self.oldest_pins == 0) {
    // Unpinned until now: announce the current epoch, then make sure it is still current
    // after the fence, so that G <= A + 1 holds for as long as the thread stays pinned.
    std::uint64_t epoch = global_epoch_.load(std::memory_order_relaxed);
    for (;;) {
      self.announcement.store(announced(epoch), std::memory_order_relaxed);
      store_load_fence();
      const std::uint64_t now = global_epoch_.load(std::memory_order_relaxed);
      if (now == epoch) break;
      epoch = now;
    }
    self.oldest_epoch = epoch;
    self.oldest_pins = 1;
    return guard(this, &self, epoch);
  }
  // Already pinned at A: G is A or A + 1.
  if (global_epoch_.load(std::memory_order_relaxed) == self.oldest_epoch) {
    ++self.oldest_pins;
    return guard(this, &self, self.oldest_epoch);
  }
  // The first guard of the newer bucket orders its reads after the advance it observed.
  if (self.newer_pins++ == 0) store_load_fence();
  return guard(this, &self, self.oldest_epoch + 1);
}

inline void epoch_domain::unpin(participant& self, std::uint64_t epoch) noexcept {
  if (epoch != self.oldest_epoch) {
    --self.newer_pins;
    return;
  }
  if (--self.oldest_pins != 0) return;
  if (self.newer_pins != 0) {
    // The oldest guards are gone: the thread now only protects what epoch A + 1 can reach.
    self.oldest_epoch += 1;
    self.oldest_pins = std::exchange(self.newer_pins, 0);
    self.announcement.store(announced(self.oldest_epoch), std::memory_order_release);
  } else {
    self.announcement.store(quiescent, std::memory_order_release);
  }
}

inline void* epoch_domain::allocate(std::size_t bytes) {
  participant& self = local();
  if (bytes <= largest_pooled_block) [[likely]] {
    const std::size_t reserved = class_bytes(bytes);
    bump(self, static_cast<std::int64_t>(reserved));
    free_block*& head = self.free_lists[class_index(bytes)];
    if (free_block* block = head) {
      BRAID_UNPOISON(block, reserved);
      head = block->next;
      return block;
    }
    if (self.slab_cursor != nullptr && self.slab_cursor + reserved <= self.slab_end) {
      std::byte* block = self.slab_cursor;
      self.slab_cursor += reserved;
      return block;
    }
    return refill_and_allocate(self, reserved);
  }
  return allocate_large(self, bytes);
}

inline void epoch_domain::deallocate(void* block, std::size_t bytes) noexcept {
  participant& self = local();
  if (bytes <= largest_pooled_block) [[likely]] {
    bump(self, -static_cast<std::int64_t>(class_bytes(bytes)));
    auto* node = static_cast<free_block*>(block);
    free_block*& head = self.free_lists[class_index(bytes)];
    node->next = head;
    head = node;
    BRAID_POISON(block, class_bytes(bytes));
    return;
  }
  free_large(self, block, bytes);
}

}  // namespace braid::detail
