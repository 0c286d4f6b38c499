// index_nested_loop_join: R ⋈ S through an index on R's key — every tuple of S looked up in
// a braid index that maps R's keys to R's payloads, by the index's interleaved multi_find (the
// index join of the interleaving thesis, Psaropoulos et al., over the CSB+-tree; here over any
// braid index with integer or byte-string keys).
//
//   auto index = braid::join::make_join_index<braid::join::csb_join_index>(r);
//   braid::join::join_output out;
//   braid::join::index_join_probe(*index, s, out, braid::technique::amac, 8);
//   // or both steps at once:
//   out = braid::join::index_nested_loop_join<braid::join::bplus_join_index>(r, s, braid::technique::coro, 16);
//
// The index: any structure with the protocol of braid/index (multi_find(keys, results,
// technique, group) answering std::optional<payload>), built from (key, payload) pairs:
//  - integer keys (bplus_tree, csb_plus_tree): bulk-loaded from R sorted by key;
//  - std::string_view keys (masstree): each key as its 8 bytes, most significant first (so
//    the byte order is the integer order), inserted one by one.
// An index holds each key once, so R must have unique keys: make_join_index refuses a build
// relation with a repeated key (std::invalid_argument naming it). A foreign-key join (R the
// primary-key side) is the case this join is for; a hash join takes duplicates on both sides.
//
// The probe looks S up in batches of probe_batch keys (each batch one multi_find, so the
// technique's interleaving runs across the batch) and emits one match per found key, in S's
// order. Techniques are those of the index (naive, coro and adaptive everywhere; gp and amac
// for the CSB+-tree; coro_nested for the B+-tree and Masstree; fiber for the B+-tree and the
// CSB+-tree); multi_find refuses the others with std::invalid_argument naming what it has, and
// so a group of 0.
//
// Complexity: building O(|R| log |R|) (the sort; Masstree's inserts O(|R| log |R|) node
// visits), probing O(|S|) index lookups. Memory: the index, a sorted copy of R while building,
// and one batch of keys and results while probing. The index is read-only while probing, so
// several threads may probe it at once, each with its own join_output.
#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "braid/core/huge_buffer.hpp"
#include "braid/index/bplus_tree.hpp"
#include "braid/index/csb_plus_tree.hpp"
#include "braid/index/masstree.hpp"
#include "braid/index/technique.hpp"
#include "braid/join/relation.hpp"

namespace braid::join {

// The indexes braid-bench's index join measures.
// (512-byte B+-tree nodes: braid-bench's bplus-tree experiment instantiates the 256-byte tree's
// coroutines in another translation unit, which GCC 12 cannot link twice in one program.)
using bplus_join_index = bplus_tree<std::uint64_t, std::uint64_t, 512>;
using csb_join_index = csb_plus_tree<std::uint64_t, std::uint64_t, 64>;
using masstree_join_index = masstree<std::uint64_t>;

// Keys of S looked up per multi_find.
inline constexpr std::size_t probe_batch = 8192;

namespace detail {

template <class Index>
concept integer_keyed_index = std::unsigned_integral<typename Index::key_type>;
template <class Index>
concept string_keyed_index = std::same_as<typename Index::key_type, std::string_view>;

// The 8 bytes of `key`, most significant first, as the integer whose memory holds them.
constexpr std::uint64_t big_endian_bytes(std::uint64_t key) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    std::uint64_t swapped = 0;
    for (int byte = 0; byte < 8; ++byte) swapped |= ((key >> (8 * byte)) & 0xff) << (8 * (7 - byte));
    return swapped;
  } else {
    return key;
  }
}

inline std::string_view bytes_of(const std::uint64_t& stored) noexcept {
  return {reinterpret_cast<const char*>(&stored), sizeof stored};
}

// R sorted by key; throws std::invalid_argument at the first repeated key.
inline std::vector<tuple> sorted_unique_keys(std::span<const tuple> build) {
  std::vector<tuple> sorted(build.begin(), build.end());
  std::sort(sorted.begin(), sorted.end(), [](const tuple& a, const tuple& b) { return a.key < b.key; });
  const auto repeated = std::adjacent_find(sorted.begin(), sorted.end(),
                                           [](const tuple& a, const tuple& b) { return a.key == b.key; });
  if (repeated != sorted.end()) {
    throw std::invalid_argument("index join: the build relation repeats key " + std::to_string(repeated->key) +
                                " (an index holds unique keys; use the hash join for duplicates)");
  }
  return sorted;
}

}  // namespace detail

// An index of R's key -> payload. Throws std::invalid_argument when R repeats a key.
template <class Index>
std::unique_ptr<Index> make_join_index(std::span<const tuple> build, page_size pages = page_size::huge_2m) {
  const std::vector<tuple> sorted = detail::sorted_unique_keys(build);
  if constexpr (detail::string_keyed_index<Index>) {
    auto index = std::make_unique<Index>(pages);
    for (const tuple& r : sorted) {
      const std::uint64_t stored = detail::big_endian_bytes(r.key);
      index->insert(detail::bytes_of(stored), r.payload);
    }
    return index;
  } else {
    static_assert(detail::integer_keyed_index<Index>, "an index join's index has integer or byte-string keys");
    std::vector<typename Index::key_type> keys(sorted.size());
    std::vector<typename Index::mapped_type> payloads(sorted.size());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      keys[i] = sorted[i].key;
      payloads[i] = sorted[i].payload;
    }
    return std::make_unique<Index>(std::span<const typename Index::key_type>(keys),
                                   std::span<const typename Index::mapped_type>(payloads), pages);
  }
}

// Emits (s.key, payload, s.payload) for every tuple s of `probe` whose key the index holds,
// looking the keys up by index.multi_find(keys, results, how, group), probe_batch at a time.
template <class Index>
void index_join_probe(const Index& index, std::span<const tuple> probe, join_output& out, technique how,
                      std::size_t group) {
  using key_type = typename Index::key_type;
  std::vector<std::optional<typename Index::mapped_type>> found(std::min(probe.size(), probe_batch));
  std::vector<std::uint64_t> stored;  // string-keyed indexes: the keys' bytes the views point into
  std::vector<key_type> keys(found.size());
  if constexpr (detail::string_keyed_index<Index>) stored.resize(found.size());
  // multi_find checks the technique and the group, for an empty S too.
  index.multi_find(std::span<const key_type>{}, std::span<std::optional<typename Index::mapped_type>>{}, how, group);
  for (std::size_t first = 0; first < probe.size(); first += probe_batch) {
    const std::size_t count = std::min(probe_batch, probe.size() - first);
    for (std::size_t i = 0; i < count; ++i) {
      if constexpr (detail::string_keyed_index<Index>) {
        stored[i] = detail::big_endian_bytes(probe[first + i].key);
        keys[i] = detail::bytes_of(stored[i]);
      } else {
        keys[i] = probe[first + i].key;
      }
    }
    index.multi_find(std::span<const key_type>(keys.data(), count),
                     std::span<std::optional<typename Index::mapped_type>>(found.data(), count), how, group);
    for (std::size_t i = 0; i < count; ++i) {
      if (found[i]) out.emit(probe[first + i].key, *found[i], probe[first + i].payload);
    }
  }
}

// R ⋈ S through an Index built from R (make_join_index, then index_join_probe).
template <class Index>
join_output index_nested_loop_join(std::span<const tuple> build, std::span<const tuple> probe, technique how,
                                   std::size_t group, bool materialize = false,
                                   page_size pages = page_size::huge_2m) {
  const std::unique_ptr<Index> index = make_join_index<Index>(build, pages);
  join_output out(materialize);
  index_join_probe(*index, probe, out, how, group);
  return out;
}

}  // namespace braid::join
