// The records of braid's Bw-tree (Levandoski, Lomet, Sengupta, ICDE 2013; the open Bw-tree of
// Wang et al., SIGMOD 2018): base nodes and the delta records stacked on them, and the mapping
// table from logical page ids to the newest record of each page. The algorithms are in
// bw_tree.hpp.
//
// A record never changes once it is published (by a compare-and-swap on its page's mapping
// slot, release-acquire): readers read records with plain loads. Every record starts with a
// header that repeats the page's current state (level, right sibling, high key, number of
// deltas above the base), so the head of a chain alone tells a reader whether the key is in
// this page's range.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>

#include "braid/index/detail/epoch_domain.hpp"

namespace braid::detail::bw_tree {

using page_id = std::uint32_t;
inline constexpr page_id no_page = std::numeric_limits<page_id>::max();
inline constexpr page_id root_page = 0;  // the root keeps its page id; a root split pushes down

enum class record_kind : std::uint8_t {
  leaf_base,     // sorted keys and values
  inner_base,    // sorted separators and child page ids
  leaf_upsert,   // key -> value (insert or overwrite)
  leaf_remove,   // key is absent
  split,         // keys >= the header's high key moved to the right sibling (both levels)
  inner_entry,   // index entry: keys in [separator, entry_high) go to `child`
};

template <class Key>
struct record_header {
  record_kind kind;
  std::uint8_t level;          // 0 for leaves
  std::uint8_t has_high;       // 0: the page extends to the right end of the key space
  std::uint8_t unused = 0;
  std::uint32_t chain_length;  // deltas between this record and the base (0 for a base)
  page_id right;               // right sibling, no_page at the right end
  Key high;                    // the page holds keys < high (when has_high)
  const record_header* next;   // the older record this delta stacks on; null for a base

  [[nodiscard]] bool beyond(Key key) const noexcept { return has_high != 0 && key >= high; }
  [[nodiscard]] bool is_base() const noexcept {
    return kind == record_kind::leaf_base || kind == record_kind::inner_base;
  }
};

template <class Key, class Value>
struct upsert_delta : record_header<Key> {
  Key key;
  Value value;
};

template <class Key>
struct remove_delta : record_header<Key> {
  Key key;
};

template <class Key>
struct entry_delta : record_header<Key> {
  Key separator;
  Key entry_high;
  std::uint8_t entry_has_high;
  page_id child;

  [[nodiscard]] bool covers(Key key) const noexcept {
    return separator <= key && (entry_has_high == 0 || key < entry_high);
  }
};

// A base node: `count` keys, then `count` payloads (values for a leaf, child page ids for an
// inner node, where child i holds keys in [keys[i], keys[i + 1]) and keys[0] is the page's
// low bound). Allocated to size.
template <class Key, class Payload>
struct base_node : record_header<Key> {
  std::uint32_t count;

  static constexpr std::size_t payload_offset(std::uint32_t count) noexcept {
    const std::size_t end_of_keys = sizeof(base_node) + count * sizeof(Key);
    return (end_of_keys + alignof(Payload) - 1) / alignof(Payload) * alignof(Payload);
  }
  static constexpr std::size_t bytes_for(std::uint32_t count) noexcept {
    return payload_offset(count) + count * sizeof(Payload);
  }

  [[nodiscard]] const Key* keys() const noexcept {
    return reinterpret_cast<const Key*>(reinterpret_cast<const std::byte*>(this) + sizeof(base_node));
  }
  [[nodiscard]] Key* keys() noexcept {
    return reinterpret_cast<Key*>(reinterpret_cast<std::byte*>(this) + sizeof(base_node));
  }
  [[nodiscard]] const Payload* payloads() const noexcept {
    return reinterpret_cast<const Payload*>(reinterpret_cast<const std::byte*>(this) + payload_offset(count));
  }
  [[nodiscard]] Payload* payloads() noexcept {
    return reinterpret_cast<Payload*>(reinterpret_cast<std::byte*>(this) + payload_offset(count));
  }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_for(count); }
};

// One step of the search for the last entry whose key is <= `key` in a base node's sorted
// keys: [first, first + width) is the range still possible, keys[first] <= key holds (for an
// inner node keys[0] is the page's low bound; a leaf checks its first key before starting).
// A step probes the middle; the techniques fetch the probed key's line before each step.
template <class Key>
struct base_search {
  const Key* keys;
  std::uint32_t first;
  std::uint32_t width;

  [[nodiscard]] bool done() const noexcept { return width <= 1; }
  [[nodiscard]] const Key* probe() const noexcept { return keys + first + width / 2; }
  void step(Key key) noexcept {
    const std::uint32_t half = width / 2;
    if (keys[first + half] <= key) first += half;
    width -= half;
  }
};

// Logical page id -> newest record, in chunks of 64 Ki slots allocated as the tree grows
// (a slot never moves, so readers need no lock), up to 64 Mi pages (some 3 billion keys at
// the experiments' fill). Page ids of splits that lost their race
// return to a free list (a Treiber stack with a version tag against ABA).
template <class Key>
class mapping_table {
 public:
  static constexpr std::size_t chunk_bits = 16;
  static constexpr std::size_t chunk_slots = std::size_t{1} << chunk_bits;
  static constexpr std::size_t max_chunks = std::size_t{1} << 10;  // 64 Mi pages
  using slot = std::atomic<std::uintptr_t>;

  explicit mapping_table(epoch_domain& domain) : domain_(domain), chunks_(new std::atomic<slot*>[max_chunks]) {
    for (std::size_t index = 0; index < max_chunks; ++index) chunks_[index].store(nullptr, std::memory_order_relaxed);
  }
  mapping_table(const mapping_table&) = delete;
  mapping_table& operator=(const mapping_table&) = delete;
  ~mapping_table() { delete[] chunks_; }  // the chunks themselves live in the domain

  [[nodiscard]] slot& at(page_id page) const noexcept {
    return chunks_[page >> chunk_bits].load(std::memory_order_acquire)[page & (chunk_slots - 1)];
  }
  [[nodiscard]] const record_header<Key>* read(page_id page) const noexcept {
    return reinterpret_cast<const record_header<Key>*>(at(page).load(std::memory_order_acquire));
  }
  // Replaces `expected` by `desired` as the page's newest record; false if another thread
  // changed the page first.
  bool install(page_id page, const record_header<Key>* expected, const record_header<Key>* desired) noexcept {
    auto value = reinterpret_cast<std::uintptr_t>(expected);
    return at(page).compare_exchange_strong(value, reinterpret_cast<std::uintptr_t>(desired),
                                            std::memory_order_acq_rel, std::memory_order_acquire);
  }
  void publish(page_id page, const record_header<Key>* record) noexcept {
    at(page).store(reinterpret_cast<std::uintptr_t>(record), std::memory_order_release);
  }

  // A fresh page id whose slot exists (its content is unspecified until published).
  page_id allocate() {
    std::uint64_t head = free_head_.load(std::memory_order_acquire);
    while ((head & 0xffffffffu) != 0) {
      const auto page = static_cast<page_id>((head & 0xffffffffu) - 1);
      const std::uint64_t following = at(page).load(std::memory_order_relaxed) >> 1;
      const std::uint64_t desired = (((head >> 32) + 1) << 32) | following;
      if (free_head_.compare_exchange_weak(head, desired, std::memory_order_acq_rel, std::memory_order_acquire)) {
        return page;
      }
    }
    const page_id page = next_page_.fetch_add(1, std::memory_order_relaxed);
    if (page == no_page || (page >> chunk_bits) >= max_chunks) throw std::length_error("bw_tree: out of page ids");
    ensure_chunk(page >> chunk_bits);
    return page;
  }
  // Returns a page id that was never published.
  void release(page_id page) noexcept {
    std::uint64_t head = free_head_.load(std::memory_order_relaxed);
    for (;;) {
      at(page).store(((head & 0xffffffffu) << 1) | 1, std::memory_order_relaxed);
      const std::uint64_t desired = (((head >> 32) + 1) << 32) | (std::uint64_t{page} + 1);
      if (free_head_.compare_exchange_weak(head, desired, std::memory_order_acq_rel, std::memory_order_relaxed)) return;
    }
  }

  [[nodiscard]] std::size_t pages_allocated() const noexcept { return next_page_.load(std::memory_order_relaxed); }

 private:
  void ensure_chunk(std::size_t chunk) {
    if (chunks_[chunk].load(std::memory_order_acquire) != nullptr) return;
    constexpr std::size_t bytes = chunk_slots * sizeof(slot);
    void* memory = domain_.allocate(bytes);
    auto* slots = static_cast<slot*>(memory);
    for (std::size_t index = 0; index < chunk_slots; ++index) new (&slots[index]) slot(0);
    slot* expected = nullptr;
    if (!chunks_[chunk].compare_exchange_strong(expected, slots, std::memory_order_acq_rel)) {
      domain_.deallocate(memory, bytes);  // another thread installed it first
    }
  }

  epoch_domain& domain_;
  std::atomic<slot*>* chunks_;
  std::atomic<page_id> next_page_{0};
  std::atomic<std::uint64_t> free_head_{0};  // tag << 32 | (page + 1); 0: empty
};

}  // namespace braid::detail::bw_tree
