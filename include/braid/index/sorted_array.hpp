// sorted_array: a read-only sorted set of keys searched by binary search — the dictionary
// of a column store, and the binary-search microbenchmark of "Killer Nanoseconds" (§3.2),
// Cimple (§7.1) and the interleaving thesis (§2.4, §4.2).
//
//   braid::sorted_array<std::int32_t> keys(values);          // sorted and deduplicated
//   std::optional<std::size_t> at = keys.find(42);            // position of 42, or nullopt
//   keys.multi_find(probes, positions, braid::technique::gp, 12);
//
// Layout: the keys, ascending and distinct, in one huge_array (2 MiB pages by default). Key
// types: any trivially copyable, totally ordered type — int32_t, int64_t, and the fixed-width
// string key fixed_string<15> (16 bytes inline, ordered like the strings).
//
// A lookup returns the key's position in the array, or std::nullopt when it is absent. Two
// plain searches, because which one is faster depends on the machine, the compiler and the
// size (the papers disagree; the benchmark reports both and compares against the faster):
//   find(key)           branch-free lower bound (the thesis's Listing 2.1): the range halves
//                       by a `?:` meant as a conditional move, log2(n) + 1 probes whatever the
//                       key; then one equality test. The oracle, and the algorithm every
//                       technique runs. Known limit: the compiler decides; Clang's x86 back end
//                       compiles the `?:` of this loop into a jump (its cmov converter), so in
//                       DRAM this "branch-free" search speculates like a branchy one (made truly
//                       branch-free with detail::mask_if, it ran 2x slower over 1 GiB on an AMD
//                       EPYC: the speculated loads are early fetches);
//   find_branchy(key)   classic binary search with an early exit on equality: a data-dependent
//                       branch per level, which the core speculates through (a wrong guess
//                       costs a flush, a right one has already started the next load).
// Interleaved forms of the branch-free search, all equal to find(). Every one of them walks
// the top 8 levels (255 keys, read by every lookup, so resident in L1 / L2) with plain loads,
// interleaves one probe per level below them, where the misses are, and once the range fits
// in a cache line fetches its line(s) once and finishes there:
//   lookup<M>(key)             every such probe `co_await fetch<M>`ed;
//   lookup_nested<M>(key)      the same search as nested calls: every such probe a child task
//                              (a frame per probe; technique::coro_nested);
//   find_on_fiber<H>(context, key)   the plain search on a stackful fiber, yielding at each probe;
//   find_group_prefetching<H>     groups advance level by level in lock step: every search of
//                                 a group takes the same number of steps, GP's best case;
//   find_amac<H>                  a ring of state machines, one probe per stage;
//   find_imlp<H, L, D>            the same search generated from kernels/sorted_array_find.imlp.cpp
//   multi_find(keys, out, technique, group)   any of the above over a batch, in input order.
//
// Complexity: O(n log n) to build from unsorted keys, O(n) from sorted ones; O(log n) per
// lookup. Invariant: keys strictly ascending. Immutable once built, so lookups may run
// concurrently from any number of threads.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/task.hpp"
#include "braid/core/fiber.hpp"
#include "braid/core/input_stream.hpp"
#include "braid/core/huge_buffer.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/radix_sort.hpp"
#include "braid/index/detail/lookup_techniques.hpp"
#include "braid/index/detail/sorted_array_fixed_string.hpp"
#include "braid/index/generated/sorted_array_find.hpp"
#include "braid/index/technique.hpp"

namespace braid {

template <std::totally_ordered Key>
  requires std::is_trivially_copyable_v<Key> && std::is_trivially_default_constructible_v<Key>
class sorted_array : public detail::multi_find_member<sorted_array<Key>, Key, std::optional<std::size_t>> {
 public:
  using key_type = Key;
  using result_type = std::optional<std::size_t>;

  // Hint of the interleaved lookups unless multi_find is told otherwise (chosen by measuring
  // T0 against NTA with `braid-bench run binary-search`).
  static constexpr prefetch_hint default_prefetch_hint = prefetch_hint::nta;
  static constexpr const char* structure_name = "sorted_array";

  sorted_array() = default;

  // Sorts and deduplicates a copy of `keys`.
  explicit sorted_array(std::span<const Key> keys, page_size pages = page_size::huge_2m)
      : keys_(keys.size(), pages), size_(keys.size()) {
    std::copy(keys.begin(), keys.end(), keys_.begin());
    sort_keys(std::span<Key>(keys_.data(), size_));
    size_ = static_cast<std::size_t>(std::unique(keys_.begin(), keys_.begin() + size_) - keys_.begin());
  }

  // Builds from `count` keys produced in ascending order by key_at(0), key_at(1), ...
  // Throws std::invalid_argument if they are not strictly ascending.
  template <class KeyAt>
    requires std::is_invocable_r_v<Key, KeyAt&, std::size_t>
  static sorted_array from_sorted(std::size_t count, KeyAt key_at, page_size pages = page_size::huge_2m) {
    sorted_array built;
    built.keys_ = huge_array<Key>(count, pages);
    built.size_ = count;
    for (std::size_t i = 0; i < count; ++i) {
      built.keys_[i] = key_at(i);
      if (i > 0 && !(built.keys_[i - 1] < built.keys_[i])) {
        throw std::invalid_argument("sorted_array::from_sorted: key " + std::to_string(i) +
                                    " is not greater than its predecessor");
      }
    }
    return built;
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] const Key& operator[](std::size_t position) const noexcept { return keys_[position]; }
  [[nodiscard]] std::span<const Key> keys() const noexcept { return {keys_.data(), size_}; }
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return size_ * sizeof(Key); }
  [[nodiscard]] std::string describe_pages() const { return keys_.buffer().describe_pages(); }

  // ---- lookups ------------------------------------------------------------------------------

  [[nodiscard]] result_type find(const Key& key) const noexcept {
    if (size_ == 0) return std::nullopt;
    std::size_t low = 0;
    std::size_t remaining = size_;
    descend(key, low, remaining);  // one loop, every level
    return present_at(low, key);
  }

  [[nodiscard]] result_type find_branchy(const Key& key) const {
    std::size_t low = 0;
    std::size_t high = size_;
    while (low < high) {
      const std::size_t middle = low + (high - low) / 2;
      const Key& probed = keys_[middle];
      if (probed == key) return middle;
      if (probed < key) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return std::nullopt;
  }

  template <execution_mode M, class Inputs>
  stream_coro<Inputs> lookups(Inputs inputs) const {
    while (const auto input = inputs.next()) {
      if (size_ == 0) {
        inputs.deliver(input, std::nullopt);
        continue;
      }
      const Key& key = input.key;
      std::size_t low = 0;
      std::size_t remaining = size_;
      descend_hot_levels_inline(key, low, remaining);
      while (remaining > keys_per_line) {
        const std::size_t half = remaining / 2;
        const Key& probed = co_await fetch<M>(&keys_[low + half]);
        low = probed < key ? low + half : low;
        remaining -= half;
      }
      if (remaining > 1) {  // the range's two lines at most: one suspension for both
        if constexpr (M::suspends) prefetch<M::hint>(keys_.data() + low + remaining);
        co_await fetch<M>(&keys_[low]);
        descend(key, low, remaining);
      }
      inputs.deliver(input, present_at(low, key));
    }
    co_return inputs.finish();
  }

  template <execution_mode M>
  coro<result_type> lookup(Key key) const {
    return lookups<M>(single_input<Key, result_type>(key));
  }

  // lookup<M> written as the mechanical conversion of nested calls: each probe below the hot
  // levels is a child task (probe_task). Not inlined: GCC 12 at -O3 otherwise places the
  // coroutine's actor in the comdat group of the scheduler loop it was inlined into, and links
  // fail when another object's copy wins.
  template <execution_mode M>
  [[gnu::noinline]] task<result_type> lookup_nested(Key key) const {
    if (size_ == 0) co_return std::nullopt;
    std::size_t low = 0;
    std::size_t remaining = size_;
    descend_hot_levels(key, low, remaining);
    while (remaining > keys_per_line) {
      const std::size_t half = remaining / 2;
      const Key probed = co_await probe_task<M>(low + half);
      low = probed < key ? low + half : low;
      remaining -= half;
    }
    if (remaining > 1) {
      if constexpr (M::suspends) prefetch<M::hint>(keys_.data() + low + remaining);
      co_await probe_task<M>(low);
      descend(key, low, remaining);
    }
    co_return present_at(low, key);
  }
  template <execution_mode M>
  task<Key> probe_task(std::size_t position) const {
    co_return co_await fetch<M>(&keys_[position]);
  }

  template <prefetch_hint Hint>
  result_type find_on_fiber(fiber_context& context, const Key& key) const {
    if (size_ == 0) return std::nullopt;
    std::size_t low = 0;
    std::size_t remaining = size_;
    descend_hot_levels(key, low, remaining);
    while (remaining > keys_per_line) {
      const std::size_t half = remaining / 2;
      const Key& probed = fiber_fetch<Hint>(context, &keys_[low + half]);
      low = probed < key ? low + half : low;
      remaining -= half;
    }
    if (remaining > 1) {
      prefetch_range<Hint>(low, remaining);
      context.suspend();
      descend(key, low, remaining);
    }
    return present_at(low, key);
  }

  template <prefetch_hint Hint>
  void find_group_prefetching(std::span<const Key> keys, std::span<result_type> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "sorted_array::find_group_prefetching");
    if (size_ == 0) {
      std::fill_n(out.begin(), keys.size(), std::nullopt);
      return;
    }
    detail::scratch_array<std::size_t> low(std::min(group, keys.size()));
    for (std::size_t first = 0; first < keys.size(); first += group) {
      const std::size_t members = std::min(group, keys.size() - first);
      const Key* key = keys.data() + first;
      std::size_t remaining = size_;  // the same for every search: it depends on size_ only
      for (std::size_t i = 0; i < members; ++i) {
        low[i] = 0;
        remaining = size_;
        descend_hot_levels(key[i], low[i], remaining);
      }
      for (; remaining > keys_per_line;) {  // one level per round
        const std::size_t half = remaining / 2;
        for (std::size_t i = 0; i < members; ++i) prefetch<Hint>(&keys_[low[i] + half]);
        for (std::size_t i = 0; i < members; ++i) low[i] = keys_[low[i] + half] < key[i] ? low[i] + half : low[i];
        remaining -= half;
      }
      if (remaining > 1) {  // the last round: each search's remaining line(s), then the rest
        for (std::size_t i = 0; i < members; ++i) prefetch_range<Hint>(low[i], remaining);
        for (std::size_t i = 0; i < members; ++i) {
          std::size_t left = remaining;
          descend(key[i], low[i], left);
        }
      }
      for (std::size_t i = 0; i < members; ++i) out[first + i] = present_at(low[i], key[i]);
    }
  }

  // AMAC's stages: `probing` compares the prefetched probe and prefetches the next (or, once
  // the range fits in a line, the range's lines); `in_last_line` finishes the search there.
  template <prefetch_hint Hint>
  void find_amac(std::span<const Key> keys, std::span<result_type> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "sorted_array::find_amac");
    struct state {
      Key key;
      std::size_t low;
      std::size_t remaining;
      std::size_t index;
      bool in_last_line;
    };
    // Prefetches what the next stage reads; false when the search can finish now.
    auto prefetch_next = [this](state& s) {
      if (s.remaining > keys_per_line) {
        prefetch<Hint>(&keys_[s.low + s.remaining / 2]);
      } else if (s.remaining > 1) {
        prefetch_range<Hint>(s.low, s.remaining);
        s.in_last_line = true;
      } else {
        return false;
      }
      return true;
    };
    detail::run_state_machines<state>(
        keys.size(), group,
        [&](state& s, std::size_t index) {
          s = state{keys[index], 0, size_, index, false};
          if (size_ == 0) {
            out[index] = std::nullopt;
            return false;
          }
          descend_hot_levels(s.key, s.low, s.remaining);
          if (prefetch_next(s)) return true;
          out[index] = present_at(s.low, s.key);  // the hot levels were all there was
          return false;
        },
        [&](state& s) {
          if (s.in_last_line) {
            descend(s.key, s.low, s.remaining);
          } else {
            const std::size_t half = s.remaining / 2;
            s.low = keys_[s.low + half] < s.key ? s.low + half : s.low;
            s.remaining -= half;
            if (prefetch_next(s)) return true;
          }
          out[s.index] = present_at(s.low, s.key);
          return false;
        });
  }

  // The generated IMLP search (find_imlp, from detail/multi_find.hpp): its kernel, shared arguments.
  template <prefetch_hint Hint> using imlp_kernel = imlp_kernels::sorted_array_find<Hint, Key>;
  template <class Kernel> typename Kernel::shared_args imlp_shared() const noexcept {
    return {keys_.data(), size_, keys_per_line};
  }

 private:
  // The first levels of every search, walked with plain loads by every technique: their
  // 2^hot_levels - 1 keys are read by every lookup and stay in the L1 / L2, so prefetching
  // them and switching to another search would only add work.
  static constexpr std::size_t hot_levels = 8;
  // Below this range the rest of a search lies in one or two lines: the interleaved searches
  // fetch them once and finish without switching again.
  static constexpr std::size_t keys_per_line = std::max<std::size_t>(cache_line_bytes / sizeof(Key), 1);

  // Halves [low, low + remaining] hot_levels times (fewer when the range is exhausted).
  void descend_hot_levels(const Key& key, std::size_t& low, std::size_t& remaining) const noexcept {
    descend_hot_levels_inline(key, low, remaining);
  }
  // The same, always inlined: the stream coroutine's loop calls it, and a call there made
  // every resume of the coroutine save and restore four callee-saved registers (callgrind,
  // int32 keys at 64 MiB: 710 -> 491 instructions per lookup).
  [[gnu::always_inline]] void descend_hot_levels_inline(const Key& key, std::size_t& low,
                                                        std::size_t& remaining) const noexcept {
    for (std::size_t level = 0; level < hot_levels && remaining > 1; ++level) {
      const std::size_t half = remaining / 2;
      low = keys_[low + half] < key ? low + half : low;
      remaining -= half;
    }
  }

  // Halves [low, low + remaining] down to one candidate, with plain loads.
  void descend(const Key& key, std::size_t& low, std::size_t& remaining) const noexcept {
    while (remaining > 1) {
      const std::size_t half = remaining / 2;
      low = keys_[low + half] < key ? low + half : low;
      remaining -= half;
    }
  }

  // Prefetches what the rest of a search reads, keys [low, low + remaining] (present_at reads
  // the last): at most keys_per_line + 1 keys, so their first and last lines cover them. The
  // last may be one past the array's end; a prefetch never faults.
  template <prefetch_hint Hint>
  void prefetch_range(std::size_t low, std::size_t remaining) const noexcept {
    prefetch<Hint>(&keys_[low]);
    prefetch<Hint>(keys_.data() + low + remaining);
  }

  // The end of every branch-free search: `low` is the last position known to hold a key
  // smaller than `key` (or 0); the lower bound is low or low + 1, and the key is present iff
  // it sits there. Both lines were touched by the search's last probes.
  [[nodiscard]] result_type present_at(std::size_t low, const Key& key) const noexcept {
    const std::size_t bound = low + (keys_[low] < key ? 1 : 0);
    if (bound < size_ && keys_[bound] == key) return bound;
    return std::nullopt;
  }

  huge_array<Key> keys_;
  std::size_t size_ = 0;
};

}  // namespace braid
