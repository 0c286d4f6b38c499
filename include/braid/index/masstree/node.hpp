// The nodes of braid's Masstree-style index (Mao, Kohler, Morris, EuroSys 2012): the version
// word, the permutation, key slices, border (leaf) and interior nodes. The algorithms that
// use them are in masstree.hpp.
//
// Every field that a latch-free reader may read while a writer changes it is a std::atomic
// accessed with relaxed loads and stores; the version word orders them (a seqlock): a reader
// reads the version, then the fields, then fences and compares the version again; a writer
// locks the version, sets a dirty bit, fences, writes, and unlocks with a release store that
// bumps a counter. Fields a node never changes after it is published (low_slice) are plain.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace braid::detail::masstree {

inline void spin_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// ---- keys -------------------------------------------------------------------------------------

// Keys are byte strings cut into 8-byte slices, one per trie layer. A slice is loaded
// big-endian, so comparing slices as integers compares bytes; bytes past the end of the key
// read as zero. Within one slice, keys are told apart by how many of their bytes it holds
// (0..8), and a key that goes on beyond the slice ("long") sorts after all of those.
inline constexpr std::size_t slice_bytes = 8;

// How a border-node slot holds its key (Masstree's keylenx):
inline constexpr std::uint8_t long_key_with_suffix = 9;  // key continues; the rest is in a suffix
inline constexpr std::uint8_t long_key_in_layer = 10;    // key continues in the next layer's tree
// 0..8: the key ends in this slice, with that many bytes.

// The rank of a slot's key among keys with the same slice: 0..8, or 9 for any long key.
constexpr std::uint8_t length_rank(std::uint8_t key_length) noexcept {
  return key_length < long_key_with_suffix ? key_length : long_key_with_suffix;
}

// A key as seen from one layer: the part of it that the upper layers have not consumed.
struct key_cursor {
  std::string_view key;
  std::size_t offset = 0;  // bytes consumed by upper layers (a multiple of 8)
  std::uint64_t slice = 0;
  std::uint8_t rank = 0;   // 0..8: the key ends in this slice; 9: it goes on

  key_cursor(std::string_view whole, std::size_t consumed) noexcept : key(whole), offset(consumed) { load(); }

  // Moves to the next layer.
  void descend() noexcept {
    offset += slice_bytes;
    load();
  }
  // The bytes after this layer's slice (for a long key).
  [[nodiscard]] std::string_view suffix() const noexcept { return key.substr(offset + slice_bytes); }

 private:
  void load() noexcept {
    const std::size_t remaining = key.size() - offset;
    const std::size_t take = remaining < slice_bytes ? remaining : slice_bytes;
    std::uint64_t raw = 0;
    if (take != 0) std::memcpy(&raw, key.data() + offset, take);
    slice = __builtin_bswap64(raw);
    rank = remaining > slice_bytes ? long_key_with_suffix : static_cast<std::uint8_t>(remaining);
  }
};

// The bytes of a slice, first `count` of them (for rebuilding keys in a scan).
inline void append_slice(std::string& out, std::uint64_t slice, std::size_t count) {
  const std::uint64_t raw = __builtin_bswap64(slice);
  char bytes[slice_bytes];
  std::memcpy(bytes, &raw, slice_bytes);
  out.append(bytes, count);
}

// ---- the version word -------------------------------------------------------------------------

// Masstree's node version (32 bits, as Masstree's): a lock bit, two dirty bits (inserting,
// splitting), a deleted bit, the root and border flags, and two counters bumped at unlock by
// inserts and by splits. A reader waits for a *stable* version (no dirty bit), reads, then
// checks the version is unchanged. A counter that wraps around carries into the next field:
// an insert may then look like a split, which only makes a reader take the slower path.
class node_version {
 public:
  using word = std::uint32_t;
  static constexpr word locked_bit = word{1} << 0;
  static constexpr word inserting_bit = word{1} << 1;
  static constexpr word splitting_bit = word{1} << 2;
  static constexpr word deleted_bit = word{1} << 3;
  static constexpr word root_bit = word{1} << 4;
  static constexpr word border_bit = word{1} << 5;
  static constexpr word insert_counter_unit = word{1} << 6;   // bits 6..15
  static constexpr word split_counter_unit = word{1} << 16;   // bits 16..31
  static constexpr word dirty_bits = inserting_bit | splitting_bit;

  constexpr explicit node_version(word initial) noexcept : word_(initial) {}

  // A version with no dirty bit (spins while a writer is inside its critical section, which
  // never suspends). Acquire: the reads that follow see what the last writer wrote.
  [[nodiscard]] word stable() const noexcept {
    word value = word_.load(std::memory_order_acquire);
    while (value & dirty_bits) {
      spin_pause();
      value = word_.load(std::memory_order_acquire);
    }
    return value;
  }
  // True if the node changed since `seen` was read (a lock alone is not a change).
  [[nodiscard]] bool has_changed(word seen) const noexcept {
    std::atomic_thread_fence(std::memory_order_acquire);
    return ((word_.load(std::memory_order_relaxed) ^ seen) & ~locked_bit) != 0;
  }
  [[nodiscard]] word current() const noexcept { return word_.load(std::memory_order_acquire); }

  static constexpr bool is_root(word value) noexcept { return (value & root_bit) != 0; }
  static constexpr bool is_border(word value) noexcept { return (value & border_bit) != 0; }
  static constexpr bool is_deleted(word value) noexcept { return (value & deleted_bit) != 0; }
  // Split (or deleted) between `before` and `after`.
  static constexpr bool split_between(word before, word after) noexcept {
    return (before ^ after) >= split_counter_unit || ((before ^ after) & deleted_bit) != 0;
  }

  // ---- writers: only the lock holder calls the methods below lock() ----
  void lock() noexcept {
    word expected = word_.load(std::memory_order_relaxed);
    for (;;) {
      if (!(expected & locked_bit) &&
          word_.compare_exchange_weak(expected, expected | locked_bit, std::memory_order_acquire,
                                      std::memory_order_relaxed)) {
        return;
      }
      spin_pause();
      expected = word_.load(std::memory_order_relaxed);
    }
  }
  // Readers that overlap the changes that follow will fail validation (or wait).
  void mark_inserting() noexcept { set(inserting_bit); }
  void mark_splitting() noexcept { set(splitting_bit); }
  void set_root(bool root) noexcept {
    const word value = word_.load(std::memory_order_relaxed);
    word_.store(root ? value | root_bit : value & ~root_bit, std::memory_order_relaxed);
  }
  [[nodiscard]] bool deleted() const noexcept { return (word_.load(std::memory_order_relaxed) & deleted_bit) != 0; }
  // Publishes the changes: bumps the counters the dirty bits ask for, clears lock and dirty bits.
  void unlock() noexcept {
    word value = word_.load(std::memory_order_relaxed);
    if (value & splitting_bit) value += split_counter_unit;
    if (value & inserting_bit) value += insert_counter_unit;
    word_.store(value & ~(locked_bit | dirty_bits), std::memory_order_release);
  }

 private:
  void set(word bits) noexcept {
    word_.store(word_.load(std::memory_order_relaxed) | bits, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
  }

  std::atomic<word> word_;
};

// ---- the permutation --------------------------------------------------------------------------

// Masstree's permuter: a border node's key order in one word, so that an insert becomes
// visible with one store. Bits 0..3 hold the key count n; nibble i + 1 holds the slot of the
// i-th smallest key for i < n, and the free slots for n <= i < Width.
template <int Width>
class basic_permutation {
  static_assert(Width >= 2 && Width <= 15);

 public:
  static constexpr int width = Width;
  using word = std::uint64_t;

  constexpr basic_permutation() noexcept : word_(identity()) {}
  explicit constexpr basic_permutation(word value) noexcept : word_(value) {}

  [[nodiscard]] constexpr word value() const noexcept { return word_; }
  [[nodiscard]] constexpr int size() const noexcept { return static_cast<int>(word_ & 15); }
  // Slot of the position-th key (position < size()), or the (position - size())-th free slot.
  [[nodiscard]] constexpr int operator[](int position) const noexcept {
    return static_cast<int>((word_ >> (4 * (position + 1))) & 15);
  }

  // Puts the first free slot at `position` (shifting the later keys up) and returns it.
  constexpr int insert(int position) noexcept {
    const int count = size();
    const int slot = (*this)[count];
    for (int i = count; i > position; --i) set(i, (*this)[i - 1]);
    set(position, slot);
    word_ = (word_ & ~word{15}) | static_cast<word>(count + 1);
    return slot;
  }
  // Removes the key at `position`; its slot becomes the first free one.
  constexpr void remove(int position) noexcept {
    const int count = size();
    const int slot = (*this)[position];
    for (int i = position; i < count - 1; ++i) set(i, (*this)[i + 1]);
    set(count - 1, slot);
    word_ = (word_ & ~word{15}) | static_cast<word>(count - 1);
  }

  // Every slot free, in order.
  static constexpr word identity() noexcept {
    word value = 0;
    for (int slot = width - 1; slot >= 0; --slot) value = (value << 4) | static_cast<word>(slot);
    return value << 4;
  }
  // The first `count` slots in use, in order.
  static constexpr basic_permutation sorted(int count) noexcept {
    return basic_permutation(identity() | static_cast<word>(count));
  }
  // `slots[0..count)` in use in this order, the other slots free.
  static constexpr basic_permutation of(const int* slots, int count) noexcept {
    bool used[width] = {};
    for (int index = 0; index < count; ++index) used[slots[index]] = true;
    basic_permutation result(static_cast<word>(count));
    int position = 0;
    for (; position < count; ++position) result.set(position, slots[position]);
    for (int slot = 0; slot < width; ++slot) {
      if (!used[slot]) result.set(position++, slot);
    }
    return result;
  }

 private:
  constexpr void set(int position, int slot) noexcept {
    const int shift = 4 * (position + 1);
    word_ = (word_ & ~(word{15} << shift)) | (static_cast<word>(slot) << shift);
  }

  word word_;
};

// ---- nodes ------------------------------------------------------------------------------------

// A border node is a 64-byte header (version, key lengths, permutation, links, low bound)
// followed by its slots, a slot being a key's slice and value (16 bytes): 12 slots fill a node
// of exactly four cache lines, all of which a reader may touch (Masstree's prefetch size).
// A new layer's root, which usually holds two or three keys for good, gets 4 slots (two
// lines); when one of those fills up it grows into a full node instead of splitting (see
// masstree.hpp). An interior node holds 15 separators and 16 children in its first four
// lines and its parent link in the fifth.
inline constexpr int border_width = 12;
inline constexpr int small_border_width = 4;
inline constexpr int interior_width = 15;
inline constexpr std::size_t prefetched_bytes = 256;  // what a reader prefetches of any node
inline constexpr std::size_t interior_bytes = 320;    // what an interior node occupies
using permutation = basic_permutation<border_width>;

// What both node kinds start with.
struct node_base {
  node_version version;

  constexpr explicit node_base(node_version::word initial) noexcept : version(initial) {}
};

// The out-of-line suffixes of a border node's long keys, packed in one block per node (as
// Masstree's stringbag): an entry per slot locates its suffix's bytes in the block's area.
// Bytes are only ever appended after `used`, so bytes an entry published never change while
// the bag lives; a writer that finds the area full copies the live suffixes into a larger bag,
// publishes it and retires the old one (readers that loaded the old one still read it whole).
// Entries are written before the permutation that lists their slot is stored (release).
struct suffix_bag {
  std::uint32_t capacity;  // bytes of the area
  std::uint32_t used = 0;  // bytes of the area taken (the lock holder reads and writes it)
  std::atomic<std::uint64_t> entries[border_width] = {};  // offset << 32 | length; 0: no suffix

  explicit suffix_bag(std::uint32_t area_bytes) noexcept : capacity(area_bytes) {}

  // What a reader prefetches of a bag of its own block: its entries and the first 152 bytes of
  // its area (where a node's first dozen suffixes of up to 12 bytes lie).
  static constexpr std::size_t prefetched_bytes = 256;

  // The block a bag of `area_bytes` (at least) occupies, rounded up to whole cache lines.
  static constexpr std::size_t block_bytes(std::size_t area_bytes) noexcept {
    return (sizeof(suffix_bag) + area_bytes + 63) / 64 * 64;
  }
  [[nodiscard]] std::string_view at(int slot) const noexcept {
    const std::uint64_t entry = entries[slot].load(std::memory_order_acquire);
    return {reinterpret_cast<const char*>(this + 1) + (entry >> 32), static_cast<std::size_t>(entry & 0xFFFFFFFFu)};
  }
  [[nodiscard]] bool fits(std::size_t bytes) const noexcept { return capacity - used >= bytes; }
  // Appends `bytes` (non-empty, fits()) as the suffix of `slot`.
  void append(int slot, std::string_view bytes) noexcept {
    std::memcpy(reinterpret_cast<char*>(this + 1) + used, bytes.data(), bytes.size());
    entries[slot].store(static_cast<std::uint64_t>(used) << 32 | bytes.size(), std::memory_order_release);
    used += static_cast<std::uint32_t>(bytes.size());
  }
  void clear(int slot) noexcept { entries[slot].store(0, std::memory_order_relaxed); }
};

// A border node's slot: a key's slice and its value (or the root of the next layer).
struct border_slot {
  std::atomic<std::uint64_t> slice{0};
  std::atomic<std::uint64_t> value{0};
};

// A leaf of one layer's B+-tree: the header, then `capacity` slots. Slots are unordered; the
// permutation lists the live ones in key order. A slot's value is the key's value, or
// (key_length == long_key_in_layer) the root of the next layer. Leaves of a layer are linked
// left to right; `low_slice` is the smallest slice this node may hold (fixed at creation:
// splits move keys right, never left). `parent` is the interior node above, null for the root
// of a layer, or, for a small root that grew, the full node that replaced it.
struct alignas(64) border_node : node_base {
  const std::uint8_t capacity;
  std::atomic<std::uint8_t> key_length[border_width] = {};
  const bool has_inline_bag;  // the node's block goes on with its first suffix bag (see below)
  std::atomic<permutation::word> order{permutation::identity()};
  std::atomic<border_node*> next{nullptr};
  std::atomic<node_base*> parent{nullptr};
  std::atomic<suffix_bag*> suffixes{nullptr};
  std::uint64_t low_slice;

  // Constructs the node with `slots` slots in a block of bytes_for(slots) bytes, or, with an
  // inline bag of `inline_bag_area` bytes (> 0), of bytes_for(slots) +
  // suffix_bag::block_bytes(inline_bag_area): the bag then starts right after the slots, so a
  // reader that knows it is there prefetches it with the node instead of after reading the
  // node's header (Masstree's border nodes keep their first suffixes inline the same way).
  // The inline bag lives and dies with the node; a bag that replaces it is a block of its own.
  border_node(node_version::word flags, std::uint64_t low, int slots, std::size_t inline_bag_area = 0) noexcept
      : node_base(flags | node_version::border_bit),
        capacity(static_cast<std::uint8_t>(slots)),
        has_inline_bag(inline_bag_area != 0),
        low_slice(low) {
    for (int slot = 0; slot < slots; ++slot) new (slot_memory() + slot) border_slot();
    if (has_inline_bag) {
      suffixes.store(new (reinterpret_cast<char*>(this) + bytes_for(slots))
                         suffix_bag(static_cast<std::uint32_t>(suffix_bag::block_bytes(inline_bag_area) - sizeof(suffix_bag))),
                     std::memory_order_relaxed);
    }
  }
  static constexpr std::size_t bytes_for(int slots) noexcept;

  // The bag in the node's own block, or null.
  [[nodiscard]] const suffix_bag* inline_bag() const noexcept {
    return has_inline_bag ? std::launder(reinterpret_cast<const suffix_bag*>(reinterpret_cast<const char*>(this) +
                                                                                bytes_for(capacity)))
                          : nullptr;
  }

  [[nodiscard]] std::atomic<std::uint64_t>& slice_at(int slot) noexcept { return slots()[slot].slice; }
  [[nodiscard]] const std::atomic<std::uint64_t>& slice_at(int slot) const noexcept { return slots()[slot].slice; }
  [[nodiscard]] std::atomic<std::uint64_t>& value_at(int slot) noexcept { return slots()[slot].value; }
  [[nodiscard]] const std::atomic<std::uint64_t>& value_at(int slot) const noexcept { return slots()[slot].value; }

  [[nodiscard]] permutation keys() const noexcept { return permutation(order.load(std::memory_order_acquire)); }
  // The suffix of a long key's slot (empty: none).
  [[nodiscard]] std::string_view suffix(int slot) const noexcept {
    const suffix_bag* bag = suffixes.load(std::memory_order_acquire);
    return bag == nullptr ? std::string_view{} : bag->at(slot);
  }

 private:
  border_slot* slot_memory() noexcept { return reinterpret_cast<border_slot*>(this + 1); }
  border_slot* slots() noexcept { return std::launder(slot_memory()); }
  const border_slot* slots() const noexcept { return std::launder(reinterpret_cast<const border_slot*>(this + 1)); }
};

constexpr std::size_t border_node::bytes_for(int slots) noexcept {
  return sizeof(border_node) + static_cast<std::size_t>(slots) * sizeof(border_slot);
}

// An interior node: `count` separator slices and count + 1 children; child i holds the slices
// in [slice[i - 1], slice[i]). All keys with one slice live in one leaf, so separators need no
// length rank.
struct alignas(64) interior_node : node_base {
  std::atomic<std::uint8_t> count{0};
  // A hint, never a fact a reader relies on: how many children had an inline suffix bag when
  // they joined (or when this node last split; a bag that later moved out of its node is not
  // uncounted), and whether that is most of them, in which case readers prefetch a child's
  // bag with the child. The lock holder sets both with set_bag_hint().
  std::atomic<std::uint8_t> inline_bag_children{0};
  std::atomic<std::uint8_t> prefetch_child_bags{0};
  std::atomic<std::uint64_t> slice[interior_width] = {};
  std::atomic<node_base*> child[interior_width + 1] = {};
  // ---- fifth line ----
  std::atomic<node_base*> parent{nullptr};  // null for the root of a layer

  explicit interior_node(node_version::word flags) noexcept : node_base(flags) {}

  // The child whose range holds `key_slice`: the number of separators <= key_slice, counted
  // without branches in two rounds of independent loads: separators 3, 7 and 11 pick a block
  // of four, then its first three are counted (reader: validate the version afterwards; a
  // count read mid-change still gives an index <= interior_width). A branch-free binary
  // search chains four dependent loads and made interleaved gets 1.4x slower when a node's
  // lines were still arriving; counting all 15 costs 38 % more instructions per get.
  [[nodiscard]] node_base* child_for(std::uint64_t key_slice) const noexcept {
    const int keys = count.load(std::memory_order_relaxed);
    const auto at_most = [&](int position) {
      return static_cast<int>((position < keys) & (key_slice >= slice[position].load(std::memory_order_relaxed)));
    };
    const int block = at_most(3) + at_most(7) + at_most(11);
    const int first = 4 * block;
    const int index = first + at_most(first) + at_most(first + 1) + at_most(first + 2);
    return child[index].load(std::memory_order_acquire);
  }
  // What a reader prefetches of the child child_for() returns.
  [[nodiscard]] std::size_t child_prefetch_bytes() const noexcept;
  // The lock holder, once `children` (count() + 1) includes `with_inline_bag` such children.
  void set_bag_hint(int with_inline_bag, int children) noexcept {
    inline_bag_children.store(static_cast<std::uint8_t>(with_inline_bag), std::memory_order_relaxed);
    prefetch_child_bags.store(2 * with_inline_bag > children ? 1 : 0, std::memory_order_relaxed);
  }
};

// (offsetof on these non-standard-layout types is supported by both compilers braid uses.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
static_assert(offsetof(interior_node, parent) == prefetched_bytes, "a reader's fields fill exactly four lines");
#pragma GCC diagnostic pop
static_assert(sizeof(border_node) == 64 && sizeof(border_slot) == 16, "a border node's header is one line");
// The smallest bag a node keeps inline: three lines, which hold the entries and 88 bytes of
// suffixes (a node of 10-digit decimal keys appends 2 bytes per key it ever holds).
inline constexpr std::size_t inline_bag_prefetched_bytes = 192;
inline constexpr std::size_t smallest_inline_bag_area = inline_bag_prefetched_bytes - sizeof(suffix_bag);
static_assert(suffix_bag::block_bytes(smallest_inline_bag_area) == inline_bag_prefetched_bytes);
static_assert(border_node::bytes_for(border_width) == prefetched_bytes, "a full border node is four lines");

// What a reader prefetches of a full border node whose first suffix bag is inline: the node's
// four lines and the bag's three (an inline bag starts right after a full node's slots).
inline constexpr std::size_t prefetched_bytes_with_bag = prefetched_bytes + inline_bag_prefetched_bytes;
static_assert(suffix_bag::prefetched_bytes == prefetched_bytes, "a reader fetches 256 or 448 bytes");

inline std::size_t interior_node::child_prefetch_bytes() const noexcept {
  return prefetch_child_bags.load(std::memory_order_relaxed) != 0 ? prefetched_bytes_with_bag : prefetched_bytes;
}
// What a reader prefetches of the right neighbour of `leaf` (which split off from it or from a
// node to its left, so it likely keeps its suffixes as the leaf does).
inline std::size_t right_prefetch_bytes(const border_node& leaf) noexcept {
  return leaf.has_inline_bag ? prefetched_bytes_with_bag : prefetched_bytes;
}
// Whether `node` is a border node with an inline bag (writers: to set their parents' hint).
inline bool carries_inline_bag(const node_base* node) noexcept {
  return node_version::is_border(node->version.current()) && static_cast<const border_node*>(node)->has_inline_bag;
}
static_assert(sizeof(interior_node) <= interior_bytes);

inline border_node* as_border(node_base* node) noexcept { return static_cast<border_node*>(node); }
inline const border_node* as_border(const node_base* node) noexcept { return static_cast<const border_node*>(node); }
inline interior_node* as_interior(node_base* node) noexcept { return static_cast<interior_node*>(node); }
inline const interior_node* as_interior(const node_base* node) noexcept {
  return static_cast<const interior_node*>(node);
}

// The parent pointer of either kind (the border flag never changes).
inline std::atomic<node_base*>& parent_of(node_base* node) noexcept {
  return node_version::is_border(node->version.current()) ? as_border(node)->parent : as_interior(node)->parent;
}
inline const std::atomic<node_base*>& parent_of(const node_base* node) noexcept {
  return node_version::is_border(node->version.current()) ? as_border(node)->parent : as_interior(node)->parent;
}

}  // namespace braid::detail::masstree
