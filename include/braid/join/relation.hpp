// The join layer's inputs and outputs: relations of 16-byte tuples, and what a join returns.
//
// A relation is a span of `tuple` {8-byte key, 8-byte payload}, the layout of the
// hardware-conscious join literature (Balkesen et al.) and of MxTasks' join experiments. Every
// join of this layer takes a build relation R and a probe relation S and emits one
// `joined_tuple` per pair (r, s) with r.key == s.key, duplicates on both sides included (a
// multiset join: |R ⋈ S| = Σ_k count_R(k) · count_S(k)).
//
// join_result is what every algorithm returns: the match count and a checksum of the joined
// payloads. The checksum is a sum (mod 2^64) of a mixed fingerprint of (key, build payload,
// probe payload), so it does not depend on the order in which matches are found: partitioned,
// interleaved and multi-threaded joins must return exactly the naive join's result, and
// results of threads or partitions combine with `+=`.
//
// join_output is the sink a join writes to: it always counts and checksums, and keeps the
// joined tuples only when asked to materialize (in arrival order, which differs between
// algorithms: compare materialized results after sorting).
#pragma once

#include <compare>
#include <cstdint>
#include <vector>

namespace braid::join {

struct tuple {
  std::uint64_t key;
  std::uint64_t payload;
  friend constexpr bool operator==(const tuple&, const tuple&) = default;
};
static_assert(sizeof(tuple) == 16);

struct joined_tuple {
  std::uint64_t key;
  std::uint64_t build_payload;
  std::uint64_t probe_payload;
  friend constexpr auto operator<=>(const joined_tuple&, const joined_tuple&) = default;
};

// A 64-bit mix (the finalizer of SplitMix64): every input bit affects every output bit.
constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// The fingerprint one match adds to a checksum. Asymmetric in the two payloads, so a join that
// swapped build and probe payloads does not pass for a correct one.
constexpr std::uint64_t match_fingerprint(std::uint64_t key, std::uint64_t build_payload,
                                          std::uint64_t probe_payload) noexcept {
  return mix64(key ^ mix64(build_payload ^ mix64(probe_payload + 0x9e3779b97f4a7c15ULL)));
}

struct join_result {
  std::uint64_t matches = 0;
  std::uint64_t checksum = 0;

  constexpr void add(std::uint64_t key, std::uint64_t build_payload, std::uint64_t probe_payload) noexcept {
    ++matches;
    checksum += match_fingerprint(key, build_payload, probe_payload);
  }
  constexpr join_result& operator+=(const join_result& other) noexcept {
    matches += other.matches;
    checksum += other.checksum;
    return *this;
  }
  friend constexpr bool operator==(const join_result&, const join_result&) = default;
};

// Where a join's matches go. One sink per thread; merge the threads' sinks with `absorb`.
class join_output {
 public:
  explicit join_output(bool materialize = false) : materialize_(materialize) {}

  void emit(std::uint64_t key, std::uint64_t build_payload, std::uint64_t probe_payload) {
    result_.add(key, build_payload, probe_payload);
    if (materialize_) rows_.push_back({key, build_payload, probe_payload});
  }
  // Moves `other`'s matches into this sink (its rows after this one's).
  void absorb(join_output&& other) {
    result_ += other.result_;
    if (materialize_) rows_.insert(rows_.end(), other.rows_.begin(), other.rows_.end());
    other.result_ = {};
    other.rows_.clear();
  }

  [[nodiscard]] bool materializes() const noexcept { return materialize_; }
  [[nodiscard]] const join_result& result() const noexcept { return result_; }
  [[nodiscard]] const std::vector<joined_tuple>& rows() const noexcept { return rows_; }
  [[nodiscard]] std::vector<joined_tuple>& rows() noexcept { return rows_; }

 private:
  bool materialize_;
  join_result result_{};
  std::vector<joined_tuple> rows_;
};

}  // namespace braid::join
