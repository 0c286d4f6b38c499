// operators: the batch operators query pipelines are made of — predicates over a fragment's
// columns into selection vectors, hash-join tables with bloom filters, grouped aggregation
// with per-worker partials, and ORDER BY (full sort and top-N) over result rows.
//
//   auto cheap = predicate::all_of({predicate::range(lineitem, "l_quantity", 0, 2399),
//                                   predicate::text_in(lineitem, "l_shipmode", {"AIR", "AIR REG"})});
//   std::uint32_t rows[65536];
//   const std::uint32_t n = cheap.select(lineitem, f, nullptr, lineitem.header(f).tuples, rows);
//
// Predicates: ranges (inclusive, on integer, decimal and date columns; every comparison is a
// range), integer IN-sets, column < column, and text predicates evaluated once per dictionary
// code into a code bitmap (equality, IN, prefix, any function of the text), combined by AND and
// OR. select() refines a selection vector branch-free per leaf: O(selected tuples) per leaf.
//
// join_table: the build side of a hash join, 64-bit keys with a 64-bit payload (a packed value
// or a row reference), duplicates kept. Each worker inserts into its own partial; finalize
// (a sink) merges them into one chained table (sequential / reduce) or builds hash partition p
// from every partial (parallel); complete() builds the bloom filter (when enabled: ~16 bits
// per key, two probes in one 64-bit word, so a present key always passes). The build is
// single-pass; a probe walks one chain. (The join layer's no_partition_hash_table builds from
// one relation on one thread and keys 16-byte tuples; a query build is filled by every worker
// at once and finalized by the dataflow's modes, so it has its own chained table.)
//
// group_aggregate: GROUP BY on a 64-bit key with int128 accumulators (sum, count as a sum of
// ones, min, max) and one carried 64-bit value per group (a functionally dependent column);
// per-worker open-addressing tables, merged like join_table.
//
// Limits: keys are 64-bit (composite keys are packed by the plan); a table holds at most 2^32
// entries per partial; partials are indexed by worker id (< workers given at construction).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "braid/core/prefetch.hpp"
#include "braid/join/relation.hpp"
#include "braid/query/dataflow.hpp"
#include "braid/query/result.hpp"
#include "braid/query/table.hpp"

namespace braid::query {

// ---- predicates ------------------------------------------------------------------------------

class predicate {
 public:
  // low <= value <= high on an integer, decimal (scaled) or date column.
  static predicate range(const table& source, std::string_view column, std::int64_t low, std::int64_t high);
  // value in `values` (integer, decimal or date column).
  static predicate one_of(const table& source, std::string_view column, std::vector<std::int64_t> values);
  // left < right, two columns of the same width.
  static predicate column_less(const table& source, std::string_view left, std::string_view right);
  // Text columns: the code bitmap holds `accept(text)` for every distinct value.
  static predicate text_where(const table& source, std::string_view column, const std::function<bool(std::string_view)>& accept);
  static predicate text_equals(const table& source, std::string_view column, std::string_view value);
  static predicate text_in(const table& source, std::string_view column, std::vector<std::string> values);
  static predicate text_prefix(const table& source, std::string_view column, std::string_view prefix);
  static predicate all_of(std::vector<predicate> children);
  static predicate any_of(std::vector<predicate> children);

  // Writes the positions (within fragment f) of the candidates that pass to `out`, in
  // ascending order, and returns their count. Candidates: `in[0..count)` (ascending), or
  // every tuple 0..count-1 when `in` is null. `out` may equal `in`; it needs `count` slots.
  std::uint32_t select(const table& source, std::size_t f, const std::uint32_t* in, std::uint32_t count,
                       std::uint32_t* out) const;
  // The tuples of fragment f that pass.
  [[nodiscard]] std::size_t count(const table& source, std::size_t f) const;

  // The columns read (with repeats removed), and the one column when it reads exactly one.
  [[nodiscard]] std::vector<std::size_t> columns() const;
  [[nodiscard]] std::optional<std::size_t> single_column() const;
  // The code bitmap of a text leaf (tests).
  [[nodiscard]] const std::vector<std::uint8_t>& code_bitmap() const noexcept { return codes_; }

 private:
  enum class kind : std::uint8_t { range64, range32, set64, set32, less64, less32, codes, all, any };
  kind what_ = kind::all;
  std::size_t column_ = 0;
  std::size_t other_ = 0;
  std::int64_t low_ = 0;
  std::int64_t high_ = 0;
  std::vector<std::int64_t> values_;  // sorted (one_of)
  std::vector<std::uint8_t> codes_;   // per dictionary code: passes
  std::vector<predicate> children_;
};

// Per-worker selection buffers (fragment-sized arrays of positions).
class selection_buffers {
 public:
  selection_buffers(unsigned workers, std::size_t tuples, unsigned per_worker = 3);
  [[nodiscard]] std::uint32_t* get(unsigned worker, unsigned which) noexcept { return buffers_[worker * per_worker_ + which].data(); }

 private:
  unsigned per_worker_;
  std::vector<std::vector<std::uint32_t>> buffers_;
};

// ---- hashing and bloom filters ----------------------------------------------------------------

// Join and group keys are hashed by the join layer's 64-bit mix.
[[nodiscard]] constexpr std::uint64_t hash_key(std::uint64_t key) noexcept { return join::mix64(key); }

class bloom_filter {
 public:
  bloom_filter() = default;
  explicit bloom_filter(std::size_t keys);
  void insert(std::uint64_t key) noexcept;
  // False only when the key was never inserted.
  [[nodiscard]] bool may_contain(std::uint64_t key) const noexcept { return may_contain_hash(hash_key(key)); }
  // The same for a key whose hash_key is `hash`.
  [[nodiscard]] bool may_contain_hash(std::uint64_t hash) const noexcept {
    if (bits_.empty()) return false;
    const std::uint64_t mask = mask_of(hash);
    return (*word_of(hash) & mask) == mask;
  }
  // The word a key of this hash tests (for prefetching); null when the filter is empty.
  [[nodiscard]] const std::uint64_t* word_of(std::uint64_t hash) const noexcept {
    return bits_.empty() ? nullptr : &bits_[shift_ == 64 ? 0 : hash >> shift_];
  }
  [[nodiscard]] std::size_t words() const noexcept { return bits_.size(); }

 private:
  [[nodiscard]] static std::uint64_t mask_of(std::uint64_t hash) noexcept {
    return (std::uint64_t{1} << (hash & 63)) | (std::uint64_t{1} << ((hash >> 6) & 63));
  }
  std::vector<std::uint64_t> bits_;
  unsigned shift_ = 64;
};

// ---- hash join build side ---------------------------------------------------------------------

class join_table final : public sink {
 public:
  join_table(unsigned workers, bool with_bloom_filter);

  // During consume, on worker `worker`.
  void insert(unsigned worker, std::uint64_t key, std::int64_t payload) { partials_[worker].push_back({key, payload, 0}); }

  void merge(unsigned into, unsigned from) override;
  void finalize_part(unsigned part, unsigned parts) override;
  void complete(finalize_mode mode) override;

  // After complete: calls visit(payload) for every entry with `key`; returns their count.
  template <class Visit>
  std::size_t for_each_match(std::uint64_t key, Visit&& visit) const {
    const std::uint64_t hash = hash_key(key);
    const part& table = part_of(hash);
    if (table.heads.empty()) return 0;
    std::size_t matches = 0;
    for (std::uint32_t i = table.heads[hash >> table.shift]; i != no_entry; i = table.entries[i].next) {
      if (table.entries[i].key == key) {
        visit(table.entries[i].payload);
        ++matches;
      }
    }
    return matches;
  }
  // Probes key_of(i) for every i in [0, count) and calls visit(i, payload) for each match, in
  // order of i: the bloom filter first (when on), then the key's chain. With group > 1 the
  // probes of `group` keys at a time are interleaved by group prefetching (Chen et al., the GP
  // of braid's index techniques, over a pipeline's selection vector): every key's bloom word is
  // prefetched, then the heads of the keys that pass, then their first entries, then the chains
  // are walked, so a group's misses overlap instead of following one another. group 1 is the
  // plain probe, one key after another. Groups above max_probe_group are max_probe_group.
  static constexpr std::size_t max_probe_group = 64;
  template <class KeyOf, class Visit>
  void probe_batch(std::uint32_t count, std::size_t group, KeyOf&& key_of, Visit&& visit) const {
    if (group <= 1) {
      for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint64_t key = key_of(i);
        if (may_contain(key)) for_each_match(key, [&](std::int64_t payload) { visit(i, payload); });
      }
      return;
    }
    group = std::min(group, max_probe_group);
    std::array<std::uint64_t, max_probe_group> keys;
    std::array<std::uint64_t, max_probe_group> hashes;
    std::array<std::uint32_t, max_probe_group> heads;
    std::array<bool, max_probe_group> passed;
    for (std::uint32_t base = 0; base < count; base += static_cast<std::uint32_t>(group)) {
      const std::size_t n = std::min<std::size_t>(group, count - base);
      for (std::size_t j = 0; j < n; ++j) {
        keys[j] = key_of(static_cast<std::uint32_t>(base + j));
        hashes[j] = hash_key(keys[j]);
        if (bloom_on_) {
          if (const std::uint64_t* word = bloom_.word_of(hashes[j])) braid::prefetch(word);
        }
      }
      for (std::size_t j = 0; j < n; ++j) {
        const part& table = part_of(hashes[j]);
        passed[j] = !table.heads.empty() && (!bloom_on_ || bloom_.may_contain_hash(hashes[j]));
        if (passed[j]) braid::prefetch(&table.heads[hashes[j] >> table.shift]);
      }
      for (std::size_t j = 0; j < n; ++j) {
        const part& table = part_of(hashes[j]);
        heads[j] = passed[j] ? table.heads[hashes[j] >> table.shift] : no_entry;
        if (heads[j] != no_entry) braid::prefetch(&table.entries[heads[j]]);
      }
      for (std::size_t j = 0; j < n; ++j) {
        const part& table = part_of(hashes[j]);
        for (std::uint32_t e = heads[j]; e != no_entry; e = table.entries[e].next) {
          if (table.entries[e].key == keys[j]) visit(static_cast<std::uint32_t>(base + j), table.entries[e].payload);
        }
      }
    }
  }
  // The first payload stored under `key` (any one, when duplicated), or nullopt.
  [[nodiscard]] std::optional<std::int64_t> find(std::uint64_t key) const {
    std::optional<std::int64_t> found;
    for_each_match(key, [&](std::int64_t payload) {
      if (!found) found = payload;
    });
    return found;
  }
  // True when the bloom filter is off or may hold the key.
  [[nodiscard]] bool may_contain(std::uint64_t key) const noexcept { return !bloom_on_ || bloom_.may_contain(key); }
  [[nodiscard]] bool has_bloom_filter() const noexcept { return bloom_on_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  static constexpr std::uint32_t no_entry = 0xFFFFFFFFU;
  struct entry {
    std::uint64_t key;
    std::int64_t payload;
    std::uint32_t next;
  };
  struct part {
    std::vector<std::uint32_t> heads;
    std::vector<entry> entries;
    unsigned shift = 64;
  };
  static void build(part& table, std::vector<entry> entries);
  [[nodiscard]] const part& part_of(std::uint64_t hash) const noexcept {
    return parts_[parts_.size() == 1 ? 0 : (hash >> 20) % parts_.size()];
  }

  std::vector<std::vector<entry>> partials_;
  std::vector<part> parts_;
  bloom_filter bloom_;
  bool bloom_on_;
  std::size_t size_ = 0;
};

// ---- grouped aggregation ----------------------------------------------------------------------

enum class aggregate_kind : std::uint8_t { sum, min, max };

class group_aggregate final : public sink {
 public:
  struct group {
    std::uint64_t key;
    std::int64_t carried;
    std::vector<int128> values;
  };

  group_aggregate(unsigned workers, std::vector<aggregate_kind> accumulators);

  // During consume, on worker `worker`: the group's accumulators (initialized: 0 for sums,
  // the extreme for min / max); `carried` is stored when the group is new.
  int128* accumulators(unsigned worker, std::uint64_t key, std::int64_t carried = 0);
  [[nodiscard]] std::size_t width() const noexcept { return kinds_.size(); }

  void merge(unsigned into, unsigned from) override;
  void finalize_part(unsigned part, unsigned parts) override;
  void complete(finalize_mode mode) override;

  // After complete: every group once, in no particular order.
  [[nodiscard]] const std::vector<group>& groups() const noexcept { return groups_; }

 private:
  struct partial {
    std::vector<std::uint64_t> keys;
    std::vector<std::int64_t> carried;
    std::vector<int128> values;        // width() per group
    std::vector<std::uint32_t> slots;  // open addressing: group index + 1, 0 empty
    unsigned shift = 64;
  };
  int128* find_or_insert(partial& table, std::uint64_t key, std::int64_t carried);
  void fold(partial& into, const partial& from, std::uint64_t part, std::uint64_t parts);

  std::vector<aggregate_kind> kinds_;
  std::vector<partial> partials_;
  std::vector<partial> parts_;
  std::vector<group> groups_;
};

// ---- ORDER BY ---------------------------------------------------------------------------------

struct sort_key {
  std::size_t column;
  bool descending = false;
};

// Cells of one kind: numbers by value, text bytewise.
int compare_cells(const cell& left, const cell& right);

// Sorts by `keys`, then by every other column left to right, ascending (a total order), and
// keeps the first `limit` rows (top-N by partial sort) when given.
void order_rows(std::vector<std::vector<cell>>& rows, const std::vector<sort_key>& keys,
                std::optional<std::size_t> limit = std::nullopt);

}  // namespace braid::query
