// linear_probing_table: open addressing with linear probing — the hash-join table of Cimple
// (Kiriansky et al., PACT 2018, §7.3) and of Menon et al.'s relaxed operator fusion, with the
// two weaker variants of Cimple §8.2 as policies.
//
//   braid::linear_probing_table<> table(1'000'000);            // sized for 1 M keys at 50% load
//   table.insert(42, 7);
//   std::optional<std::uint64_t> v = table.find(42);
//   table.multi_find(keys, results, braid::technique::amac, 16);
//   braid::linear_probing_table<std::uint64_t, braid::slot_placement::prime_modulo> by_prime;
//   braid::linear_probing_table<std::uint64_t, braid::slot_placement::power_of_two_mask,
//                               braid::lookup_completion::serializing> serialized;
//
// Layout: one array of slots {64-bit key, value} (16 bytes with a 64-bit value, four to a
// cache line) in a huge_array (2 MiB pages by default). The home slot of a key is Murmur3's
// fmix64 of the key placed by the Placement policy:
//   power_of_two_mask (default)  hash & (capacity - 1), capacity a power of two;
//   prime_modulo                 hash % capacity, capacity a prime (a 64-bit integer division
//                                per lookup: the "division by a prime number" of the paper).
// A key lives in the first free slot at or after its home, wrapping at the end. Key 0 marks a
// free slot, so the key 0 itself is kept beside the array.
//
// The Completion policy says what ends a lookup:
//   plain (default)   nothing: the plain loop's consecutive lookups overlap out of order;
//   serializing       serialize_execution() (below: LFENCE on x86) after every lookup, in
//                     every technique, so that the plain loop runs one lookup at a time while
//                     interleaved lookups keep the prefetches they issued in flight.
//
// The table grows (every key rehashed) when an insert would push the load above `max_load`
// (0.5 by default, as in the paper): to twice the capacity (power_of_two_mask) or to the
// smallest prime at least twice the capacity (prime_modulo).
//
// Complexity: insert and find take O(1) expected probes at a bounded load; a lookup reads
// its home line and every following line up to the key or the first free slot (at 50% load
// a miss scans 2.5 slots on average, mostly in one line). Finding the next prime costs
// O(gap · sqrt(capacity)) divisions, once per growth.
// Invariants: keys are unique; between a key's home slot and the key there is no free slot
// (there is no erase, so no tombstones); at least one slot is always free; capacity() is a
// power of two (power_of_two_mask) or a prime (prime_modulo).
// Limits: a prime capacity's last cache line is partial (the array starts on a line, its
// length is no multiple of four): a probe that wraps enters slot 0 as a new line.
//
// Lookups, all returning the value or std::nullopt and all equal to find():
//   find(key)                     the plain probe loop: the naive baseline and the oracle;
//   lookup<M>(key)             the probe as a coroutine: every cache line it enters is
//                                 `co_await fetch<M>`ed (prefetch + suspend when interleaved);
//   find_on_fiber<H>(context, key)   the plain loop on a stackful fiber, yielding at the same lines;
//   find_group_prefetching<H>     lock-step groups: prefetch every home line, then each round
//                                 scans one line per unfinished key and prefetches its next;
//   find_amac<H>                  a ring of state machines doing the same, refilled at once;
//   find_imlp<H, L, D>            the probe generated from kernels/linear_probing_table_find.imlp.cpp
//                                 (the placement and completion reach it as its `probe` argument)
//   multi_find(keys, out, technique, group)   any of the above over a batch, in input order.
// Lookups are const and may run concurrently; insert may not run concurrently with anything.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/fiber.hpp"
#include "braid/core/huge_buffer.hpp"
#include "braid/core/input_stream.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/index/detail/lookup_techniques.hpp"
#include "braid/index/detail/murmur_hash.hpp"
#include "braid/index/generated/linear_probing_table_find.hpp"
#include "braid/index/technique.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace braid {

// Where a key's home slot is (see the header comment).
enum class slot_placement : unsigned char { power_of_two_mask, prime_modulo };
// What ends a lookup (see the header comment).
enum class lookup_completion : unsigned char { plain, serializing };

// Waits until every earlier instruction has completed and starts no later one before.
// x86: LFENCE, which Intel defines (and AMD since the Spectre mitigations, which operating
// systems enable) as dispatch-serializing: later instructions do not begin until earlier ones
// have completed locally, yet software prefetches are not ordered by it, so prefetches issued
// before it stay in flight. (CPUID serializes fully too, but costs a hundred cycles or a
// hypervisor exit; MFENCE orders memory only.) AArch64: DSB LD (earlier loads complete) and
// ISB (later instructions are fetched anew). Elsewhere: a sequentially consistent fence, which
// orders memory but may not stop out-of-order execution.
inline void serialize_execution() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_lfence();
#elif defined(__aarch64__)
  asm volatile("dsb ld\n\tisb" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

namespace detail {

inline bool is_prime(std::size_t n) noexcept {
  if (n < 4) return n >= 2;
  if (n % 2 == 0 || n % 3 == 0) return false;
  for (std::size_t d = 5; d <= n / d; d += 6) {
    if (n % d == 0 || n % (d + 2) == 0) return false;
  }
  return true;
}

inline std::size_t next_prime_at_least(std::size_t n) noexcept {
  while (!is_prime(n)) ++n;
  return n;
}

// The placement of a probe over `capacity` slots: the home slot of a hash and the slot after
// `position`, wrapping at the end; capacity_at_least(n) is the smallest capacity it allows >= n.
template <slot_placement Placement>
struct slot_probe;

template <>
struct slot_probe<slot_placement::power_of_two_mask> {
  std::size_t mask;
  explicit slot_probe(std::size_t capacity) noexcept : mask(capacity - 1) {}
  static std::size_t capacity_at_least(std::size_t n) noexcept { return std::bit_ceil(n); }
  [[nodiscard]] std::size_t home(std::uint64_t hash) const noexcept { return static_cast<std::size_t>(hash) & mask; }
  [[nodiscard]] std::size_t next(std::size_t position) const noexcept { return (position + 1) & mask; }
};

template <>
struct slot_probe<slot_placement::prime_modulo> {
  std::size_t capacity;
  explicit slot_probe(std::size_t slots) noexcept : capacity(slots) {}
  static std::size_t capacity_at_least(std::size_t n) noexcept { return next_prime_at_least(n); }
  [[nodiscard]] std::size_t home(std::uint64_t hash) const noexcept { return static_cast<std::size_t>(hash % capacity); }
  [[nodiscard]] std::size_t next(std::size_t position) const noexcept {
    return position + 1 == capacity ? 0 : position + 1;
  }
};

// The probe of a linear_probing_table: its placement, and complete(), run once after every
// lookup has its result (the Completion policy). The generated kernel takes it as `probe`.
template <slot_placement Placement, lookup_completion Completion>
struct linear_probe : slot_probe<Placement> {
  using slot_probe<Placement>::slot_probe;
  static void complete() noexcept {
    if constexpr (Completion == lookup_completion::serializing) serialize_execution();
  }
};

}  // namespace detail

template <class Value = std::uint64_t, slot_placement Placement = slot_placement::power_of_two_mask,
          lookup_completion Completion = lookup_completion::plain>
class linear_probing_table
    : public detail::multi_find_member<linear_probing_table<Value, Placement, Completion>, std::uint64_t,
                                       std::optional<Value>> {
  static_assert(std::is_trivially_copyable_v<Value> && std::is_trivially_default_constructible_v<Value>,
                "values live in a page-backed slot array");

 public:
  using key_type = std::uint64_t;
  using mapped_type = Value;
  using result_type = std::optional<Value>;

  static constexpr key_type empty_key = 0;
  static constexpr double default_max_load = 0.5;
  // Hint of the interleaved lookups unless multi_find is told otherwise (chosen by measuring
  // T0 against NTA with `braid-bench run linear-probe`).
  static constexpr prefetch_hint default_prefetch_hint = prefetch_hint::nta;
  static constexpr const char* structure_name = "linear_probing_table";
  static constexpr slot_placement placement = Placement;
  static constexpr lookup_completion completion = Completion;
  using probe_type = detail::linear_probe<Placement, Completion>;

  struct slot {
    key_type key;
    Value value;
  };
  static_assert(cache_line_bytes % sizeof(slot) == 0, "slots must tile cache lines");
  static constexpr std::size_t slots_per_line = cache_line_bytes / sizeof(slot);

  // Capacity: the smallest power of two (prime_modulo: prime) that holds `expected_keys` at `max_load`.
  explicit linear_probing_table(std::size_t expected_keys = 0, page_size pages = page_size::huge_2m,
                                double max_load = default_max_load)
      : max_load_(checked_max_load(max_load)), pages_(pages) {
    allocate(capacity_for(expected_keys));
  }

  // Inserts (key, value); returns false, changing nothing, when the key is present.
  bool insert(key_type key, Value value) {
    if (key == empty_key) {
      if (zero_key_value_) return false;
      zero_key_value_ = value;
      ++size_;
      return true;
    }
    std::size_t position = home_of(key);
    for (; slots_[position].key != empty_key; position = probe_.next(position)) {
      if (slots_[position].key == key) return false;
    }
    if (static_cast<double>(stored_in_slots() + 1) > max_load_ * static_cast<double>(slots_.size())) {
      grow();
      position = free_slot_for(key);
    }
    slots_[position] = slot{key, value};
    ++size_;
    return true;
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t capacity() const noexcept { return slots_.size(); }
  [[nodiscard]] double load_factor() const noexcept {
    return static_cast<double>(stored_in_slots()) / static_cast<double>(slots_.size());
  }
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return slots_.size() * sizeof(slot); }
  [[nodiscard]] std::string describe_pages() const { return slots_.buffer().describe_pages(); }

  // Cache lines the plain lookup of `key` reads (0 for the key 0, kept beside the array).
  [[nodiscard]] std::size_t lines_visited(key_type key) const noexcept {
    std::size_t lines = 0;
    find_with(key, [&lines](const slot*) noexcept { ++lines; });
    return lines;
  }

  // ---- lookups ------------------------------------------------------------------------------

  [[nodiscard]] result_type find(key_type key) const { return find_with(key, detail::plain_load{}); }

  template <execution_mode M, class Inputs>
  stream_coro<Inputs> lookups(Inputs inputs) const {
    while (const auto input = inputs.next()) {
      result_type result;
      if (input.key == empty_key) {
        result = zero_key_result();
      } else {
        std::size_t position = home_of(input.key);
        do {
          co_await fetch<M>(&slots_[position]);
        } while (!scan_line(input.key, position, result));
      }
      inputs.deliver(input, result);
    }
    co_return inputs.finish();
  }

  template <execution_mode M>
  coro<result_type> lookup(key_type key) const {
    return lookups<M>(single_input<key_type, result_type>(key));
  }

  template <prefetch_hint Hint>
  result_type find_on_fiber(fiber_context& context, key_type key) const {
    return find_with(key, detail::fiber_load<Hint>{&context});
  }

  template <prefetch_hint Hint>
  void find_group_prefetching(std::span<const key_type> keys, std::span<result_type> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "linear_probing_table::find_group_prefetching");
    constexpr std::size_t finished = SIZE_MAX;
    detail::scratch_array<std::size_t> position(std::min(group, keys.size()));
    for (std::size_t first = 0; first < keys.size(); first += group) {
      const std::size_t members = std::min(group, keys.size() - first);
      const key_type* key = keys.data() + first;
      result_type* result = out.data() + first;
      std::size_t unfinished = 0;
      for (std::size_t i = 0; i < members; ++i) {
        if (key[i] == empty_key) {
          result[i] = zero_key_result();
          position[i] = finished;
        } else {
          position[i] = home_of(key[i]);
          prefetch<Hint>(&slots_[position[i]]);
          ++unfinished;
        }
      }
      while (unfinished > 0) {  // one round: one line per unfinished key
        for (std::size_t i = 0; i < members; ++i) {
          if (position[i] == finished) continue;
          if (scan_line(key[i], position[i], result[i])) {
            position[i] = finished;
            --unfinished;
          } else {
            prefetch<Hint>(&slots_[position[i]]);
          }
        }
      }
    }
  }

  template <prefetch_hint Hint>
  void find_amac(std::span<const key_type> keys, std::span<result_type> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "linear_probing_table::find_amac");
    struct state {
      std::size_t position;
      std::size_t index;
      key_type key;
    };
    detail::run_state_machines<state>(
        keys.size(), group,
        [&](state& s, std::size_t index) {
          s = state{0, index, keys[index]};
          if (s.key == empty_key) {
            out[index] = zero_key_result();
            return false;
          }
          s.position = home_of(s.key);
          prefetch<Hint>(&slots_[s.position]);
          return true;
        },
        [&](state& s) {
          if (scan_line(s.key, s.position, out[s.index])) return false;
          prefetch<Hint>(&slots_[s.position]);
          return true;
        });
  }

  // The generated IMLP probe (find_imlp, from detail/multi_find.hpp): its kernel, shared arguments.
  template <prefetch_hint Hint>
  using imlp_kernel = imlp_kernels::linear_probing_table_find<Hint, slot, Value, probe_type, slots_per_line>;
  template <class Kernel> typename Kernel::shared_args imlp_shared() const noexcept {
    return {slots_.data(), probe_, zero_key_value_};
  }

 private:
  static double checked_max_load(double max_load) {
    if (!(max_load > 0.0 && max_load < 1.0)) {
      throw std::invalid_argument("linear_probing_table: max_load must be in (0, 1)");
    }
    return max_load;
  }

  [[nodiscard]] std::size_t capacity_for(std::size_t keys) const {
    const auto needed = static_cast<std::size_t>(std::ceil(static_cast<double>(keys) / max_load_));
    return probe_type::capacity_at_least(std::max<std::size_t>(needed, 2 * slots_per_line));
  }

  [[nodiscard]] std::size_t home_of(key_type key) const noexcept { return probe_.home(detail::murmur3_fmix64(key)); }

  // The first free slot at or after the home of `key` (one exists: the load stays below 1).
  [[nodiscard]] std::size_t free_slot_for(key_type key) const noexcept {
    std::size_t position = home_of(key);
    while (slots_[position].key != empty_key) position = probe_.next(position);
    return position;
  }

  // The lookup of the key 0, completed like every other.
  [[nodiscard]] result_type zero_key_result() const noexcept {
    probe_type::complete();
    return zero_key_value_;
  }

  [[nodiscard]] std::size_t stored_in_slots() const noexcept { return size_ - (zero_key_value_ ? 1 : 0); }

  // The probe step every lookup shares: scans from `position` to the end of its cache line.
  // Returns true when the key was found (result = its value) or a free slot proves it absent
  // (result = nullopt), the lookup then completed (probe_type::complete); otherwise leaves
  // `position` at the first slot of the next line.
  bool scan_line(key_type key, std::size_t& position, result_type& result) const noexcept {
    for (;;) {
      const slot& candidate = slots_[position];
      if (candidate.key == key || candidate.key == empty_key) {
        result = candidate.key == key ? result_type{candidate.value} : std::nullopt;
        probe_type::complete();
        return true;
      }
      position = probe_.next(position);
      if (position % slots_per_line == 0) return false;
    }
  }

  // The one probe loop behind find(), find_on_fiber() (a yield per line) and lines_visited().
  template <class Load>
  result_type find_with(key_type key, Load load) const {
    if (key == empty_key) return zero_key_result();
    std::size_t position = home_of(key);
    result_type result;
    do {
      load(&slots_[position]);
    } while (!scan_line(key, position, result));
    return result;
  }

  void allocate(std::size_t capacity) {
    slots_ = huge_array<slot>(capacity, pages_);
    probe_ = probe_type(capacity);
  }

  void grow() {
    huge_array<slot> old = std::move(slots_);
    allocate(probe_type::capacity_at_least(old.size() * 2));
    for (const slot& moving : old) {
      if (moving.key != empty_key) slots_[free_slot_for(moving.key)] = moving;
    }
  }

  huge_array<slot> slots_;
  probe_type probe_{1};
  std::size_t size_ = 0;
  double max_load_;
  page_size pages_;
  result_type zero_key_value_;
};

}  // namespace braid
