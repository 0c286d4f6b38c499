// The one fuzz harness of the index protocol: the fuzzer's bytes decode into a sequence of
// operations applied to a structure and to a std::map reference, every answer compared.
//
//   struct target {                                  // one short file per structure
//     using structure = braid::bplus_tree<std::uint64_t, std::uint64_t, 256>;
//     using keys = braid::fuzzing::unsigned_keys;    // the key adapter (below)
//     static structure make() { return structure(braid::page_size::small_4k); }
//   };
//   extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
//     return braid::fuzzing::fuzz_updatable<target>(data, size);
//   }
//
// fuzz_updatable: structures built by operations. Each operation is one of what the structure
// has (found by its members, so a structure without erase fuzzes what it has):
//   insert, insert_or_assign, erase   the result (inserted? was present?) and the map updated;
//   find                              the value, or absence;
//   scan(start, limit)                every entry visited and the count, against the map;
//   multi_find                        a batch (empty, hits drawn from the map, misses,
//                                     repeats) through any technique of braid::all_techniques
//                                     and a group of 1, 2, 3, 7, 16, 64, larger than the
//                                     batch or 0; a technique the structure lacks, group 0
//                                     and a short output are refused with
//                                     std::invalid_argument, any other answer is compared;
//   multi_scan                        the same for batches of scans (where the structure has it);
//   insert and erase runs             up to target::longest_run keys (default 1024) after a base
//                                     key in one operation, so short inputs reach node splits,
//                                     merges and several levels;
//   check                             the structure's own invariant check (target::check);
//   the target's extra operations     (target::extra_operations, target::extra), e.g. the
//                                     Masstree's put/remove forms, the Bw-tree's mixed batches.
// At the end of the input the whole contents are compared and the invariants checked.
//
// fuzz_built: structures built once from a key set (sorted arrays, Eytzinger, CSB+-trees). The
// input decodes a key set (single keys and runs), the target builds the structure from it
// (checking the constructor's argument errors) and its oracle map, then a sequence of finds,
// scans and multi_finds.
//
// Deep states: a target may name numbers that describe its structure's shape (shape(s): e.g.
// height, inner nodes, leaves, capacity). With BRAID_FUZZ_STATS=1 in the environment the
// harness reads them after every write and counts, over the whole run, how often each grew and
// shrank (a leaf count that grows is a split, one that shrinks a merge; a height that shrinks is
// a root collapse), and prints the counts at exit: run the target over its corpus with
// -runs=0 to see how deep the corpus reaches.
//
// Keys are drawn to collide: a small dense range most of the time, the extremes of the type,
// powers of two, arbitrary values, and runs after a base key. A mismatch aborts (fuzz_check),
// so libFuzzer keeps the input; an unexpected exception escapes and aborts as well.
#pragma once

#include <algorithm>
#include <cstddef>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "braid/index/detail/multi_find.hpp"
#include "braid/index/detail/multi_scan.hpp"
#include "braid/index/detail/sorted_array_fixed_string.hpp"
#include "braid/index/technique.hpp"
#include "fuzz_input.hpp"

namespace braid::fuzzing {

// ---- key adapters ---------------------------------------------------------------------------
// A key adapter names the type the reference map stores (key_type), the type the structure
// takes (argument_type, from argument(key)), decodes a key (decode) and derives the n-th key
// of a run after a base key (nth_after; distinct for distinct n below 2^16).

struct unsigned_keys {
  using key_type = std::uint64_t;
  using argument_type = std::uint64_t;
  static argument_type argument(const key_type& key) noexcept { return key; }
  static key_type decode(fuzz_input& input) noexcept {
    const std::uint8_t shape = input.byte();
    if (shape < 192) return input.byte();                                        // dense: collisions
    if (shape < 212) return static_cast<key_type>(input.byte()) << 8 | input.byte();  // a wider range
    if (shape < 228) return std::numeric_limits<key_type>::max() - input.byte();   // the top
    if (shape < 240) return key_type{1} << (input.byte() % 64);                   // powers of two
    return input.u64();
  }
  static key_type nth_after(const key_type& base, std::size_t n, std::uint64_t stride) noexcept {
    return base + n * stride;  // wraps past the top: still distinct keys
  }
};

template <class Int>
  requires std::is_signed_v<Int>
struct signed_keys {
  using key_type = Int;
  using argument_type = Int;
  using unsigned_type = std::make_unsigned_t<Int>;
  static argument_type argument(const key_type& key) noexcept { return key; }
  static key_type decode(fuzz_input& input) noexcept {
    const std::uint8_t shape = input.byte();
    if (shape < 192) return static_cast<std::int8_t>(input.byte());  // dense around zero
    if (shape < 208) return static_cast<key_type>(std::numeric_limits<Int>::min() + input.byte());
    if (shape < 224) return static_cast<key_type>(std::numeric_limits<Int>::max() - input.byte());
    return static_cast<key_type>(input.u64());
  }
  static key_type nth_after(const key_type& base, std::size_t n, std::uint64_t stride) noexcept {
    return static_cast<key_type>(static_cast<unsigned_type>(base) + static_cast<unsigned_type>(n * stride));
  }
};

// fixed_string<15>: short strings over a few characters (no NUL, which the type refuses),
// prefixes of each other, the empty string and the full 15 characters.
struct fixed_string_keys {
  using key_type = fixed_string<15>;
  using argument_type = fixed_string<15>;
  static argument_type argument(const key_type& key) noexcept { return key; }
  static key_type decode(fuzz_input& input) {
    static constexpr char alphabet[] = {'a', 'b', '\x01', '\x7f', '\x80', '\xff'};
    std::string text(input.byte() % 2 == 0 ? "" : "abcdefgh");
    const std::size_t extra = input.byte() % 16;
    for (std::size_t index = 0; index < extra && text.size() < key_type::max_length; ++index) {
      text.push_back(alphabet[input.byte() % sizeof(alphabet)]);
    }
    return key_type(text);
  }
  // The base's first 12 characters, then n * stride in three base-255 digits 1..255.
  static key_type nth_after(const key_type& base, std::size_t n, std::uint64_t stride) {
    std::string text(base.view().substr(0, 12));
    std::uint64_t ordinal = n * stride;
    char digits[3];
    for (int index = 2; index >= 0; --index, ordinal /= 255) digits[index] = static_cast<char>(1 + ordinal % 255);
    text.append(digits, 3);
    return key_type(text);
  }
};

// Masstree's binary keys: prefixes that fill whole 8-byte slices, NULs and 0xff bytes, keys
// that differ only in length, long keys that share their first slices (new layers).
struct binary_string_keys {
  using key_type = std::string;
  using argument_type = std::string_view;
  static argument_type argument(const key_type& key) noexcept { return key; }
  static key_type decode(fuzz_input& input) {
    static const std::string prefixes[] = {
        std::string(),         std::string("abcdefgh"), std::string("abcdefghijklmnop"), std::string(7, '\0'),
        std::string(8, '\0'),  std::string(24, 'x'),    std::string("a"),                std::string(8, '\xff'),
    };
    static constexpr char alphabet[] = {'\0', 'a', 'b', '\xff'};
    std::string key = prefixes[input.byte() % std::size(prefixes)];
    const std::size_t extra = input.byte() % 20;
    for (std::size_t index = 0; index < extra; ++index) key.push_back(alphabet[input.byte() % sizeof(alphabet)]);
    return key;
  }
  static key_type nth_after(const key_type& base, std::size_t n, std::uint64_t stride) {
    const std::uint64_t ordinal = n * stride;
    key_type key = base;
    key.push_back(static_cast<char>(ordinal >> 8 & 0xff));
    key.push_back(static_cast<char>(ordinal & 0xff));
    return key;
  }
};

// ---- shared decoding ------------------------------------------------------------------------

// A group for a batch of `batch` operations: 1, 2, 3, 7, 16, 64, larger than the batch, a
// small one, or 0 (which must be refused).
inline std::size_t decode_group(fuzz_input& input, std::size_t batch) {
  switch (input.byte() % 10) {
    case 0: return 1;
    case 1: return 2;
    case 2: return 3;
    case 3: return 7;
    case 4: return 16;
    case 5: return 64;
    case 6: return batch + 1 + input.byte() % 4;
    case 7: return 0;
    default: return 1 + input.byte() % 12;
  }
}

inline technique decode_technique(fuzz_input& input) { return all_techniques[input.byte() % std::size(all_techniques)]; }

// A scan limit: small, zero, or unbounded.
inline std::size_t decode_limit(fuzz_input& input) {
  const std::uint8_t shape = input.byte();
  if (shape >= 240) return std::numeric_limits<std::size_t>::max();
  return shape % 24;
}

// A run: how many keys and the distance between them. Mostly up to 64 keys (a split or a
// merge or two, cheap to execute), else up to `longest` (several levels).
struct run_shape {
  std::size_t count;
  std::uint64_t stride;
};
inline run_shape decode_run(fuzz_input& input, std::size_t longest) {
  const bool long_run = input.byte() >= 192;
  const std::size_t high = input.byte();
  const std::size_t count = 1 + ((high << 8 | input.byte()) % (long_run ? longest : std::min<std::size_t>(longest, 64)));
  static constexpr std::uint64_t strides[] = {1, 1, 2, 3, 7, 1000};
  return {count, strides[input.byte() % std::size(strides)]};
}

// A key of a batch: half the time one the reference holds (a hit), else decoded (often a miss).
template <class Keys, class Map>
typename Keys::key_type decode_batch_key(fuzz_input& input, const Map& reference) {
  if (!reference.empty() && input.byte() % 2 == 0) {
    return std::next(reference.begin(), static_cast<std::ptrdiff_t>(input.below(reference.size())))->first;
  }
  return Keys::decode(input);
}

// Runs `call`, which must throw std::invalid_argument exactly when `refused`.
template <class Call>
bool refused_as_documented(bool refused, Call&& call, const char* what) {
  try {
    call();
  } catch (const std::invalid_argument& error) {
    fuzz_check(refused, what);
    fuzz_check(error.what()[0] != '\0', "an argument error without a message");
    return true;
  }
  fuzz_check(!refused, what);
  return false;
}

// ---- multi_find ------------------------------------------------------------------------------

// A batch of lookups through a decoded technique and group; matches(key, answer) says whether
// an answer is right (equal to what the reference holds, or consistent with it).
template <class S, class Keys, class Map, class Matches>
void fuzz_multi_find(const S& structure, fuzz_input& input, const Map& reference, Matches&& matches) {
  using argument_type = typename Keys::argument_type;
  using result_type = std::remove_cvref_t<decltype(structure.find(std::declval<const argument_type&>()))>;
  std::vector<typename Keys::key_type> storage(input.byte() % 24);
  if (input.byte() % 16 == 0) storage.resize(storage.size() + 40 + input.byte() % 100);  // many in flight
  for (auto& key : storage) key = decode_batch_key<Keys>(input, reference);
  std::vector<argument_type> keys;
  keys.reserve(storage.size());
  for (const auto& key : storage) keys.push_back(Keys::argument(key));
  const technique how = decode_technique(input);
  const std::size_t group = decode_group(input, keys.size());
  const bool short_output = !keys.empty() && input.byte() % 32 == 0;
  std::vector<result_type> results(keys.size() - (short_output ? 1 : 0));
  const bool implemented = detail::implements<S, argument_type, result_type, S::default_prefetch_hint>(how);
  const bool refused = !implemented || group == 0 || short_output;
  if (refused_as_documented(
          refused,
          [&] { structure.multi_find(std::span<const argument_type>(keys), std::span<result_type>(results), how, group); },
          "multi_find refused or accepted against its contract")) {
    return;
  }
  for (std::size_t index = 0; index < keys.size(); ++index) {
    fuzz_check(matches(storage[index], results[index]), "multi_find result");
  }
}

// ---- scans -------------------------------------------------------------------------------------

// Checks a scan of up to `limit` entries from `start` against an ordered reference map.
template <class Map>
class scan_checker {
 public:
  scan_checker(const Map& reference, const typename Map::key_type& start, std::size_t limit)
      : next_(reference.lower_bound(start)), end_(reference.end()), limit_(limit) {}

  template <class Key, class Value>
  void operator()(const Key& key, const Value& value) {
    fuzz_check(seen_ < limit_, "scan past its limit");
    fuzz_check(next_ != end_ && key == next_->first && value == next_->second, "scan entry");
    ++next_;
    ++seen_;
  }
  void finish(std::size_t reported) const {
    fuzz_check(reported == seen_, "scan count");
    fuzz_check(seen_ == limit_ || next_ == end_, "scan stopped early");
  }

 private:
  typename Map::const_iterator next_;
  typename Map::const_iterator end_;
  std::size_t limit_;
  std::size_t seen_ = 0;
};

template <class S, class Keys, class Map>
void fuzz_scan(const S& structure, fuzz_input& input, const Map& reference) {
  const typename Keys::key_type start = decode_batch_key<Keys>(input, reference);
  const std::size_t limit = decode_limit(input);
  scan_checker<Map> check(reference, start, limit);
  check.finish(structure.scan(Keys::argument(start), limit, [&](const auto& key, const auto& value) { check(key, value); }));
}

template <class S, class Keys, class Map>
void fuzz_multi_scan(const S& structure, fuzz_input& input, const Map& reference) {
  using argument_type = typename Keys::argument_type;
  using request = detail::scan_request<argument_type>;
  std::vector<typename Keys::key_type> starts(input.byte() % 10);
  std::vector<request> requests;
  for (auto& start : starts) {
    start = decode_batch_key<Keys>(input, reference);
    requests.push_back({Keys::argument(start), decode_limit(input)});
  }
  const technique how = decode_technique(input);
  const std::size_t group = decode_group(input, requests.size());
  std::vector<std::size_t> visited(requests.size());
  std::vector<std::vector<std::pair<typename Keys::key_type, typename Map::mapped_type>>> entries(requests.size());
  auto collect = [&](std::size_t which, const auto& key, const auto& value) {
    entries[which].emplace_back(typename Keys::key_type(key), value);
  };
  const bool scans_with = detail::implements_scan<S, request, S::default_prefetch_hint, decltype(collect)>(how);
  const bool refused = !scans_with || group == 0;
  if (refused_as_documented(
          refused,
          [&] {
            structure.multi_scan(std::span<const request>(requests), std::span<std::size_t>(visited), how, group,
                                 collect);
          },
          "multi_scan refused or accepted against its contract")) {
    return;
  }
  for (std::size_t which = 0; which < requests.size(); ++which) {
    scan_checker<Map> check(reference, starts[which], requests[which].limit);
    for (const auto& [key, value] : entries[which]) check(key, value);
    check.finish(visited[which]);
  }
}

// ---- what a structure has -------------------------------------------------------------------

template <class S, class A>
concept has_insert = requires(S& s, const A& key) { { s.insert(key, std::uint64_t{1}) } -> std::same_as<bool>; };
template <class S, class A>
concept has_insert_or_assign = requires(S& s, const A& key) {
  { s.insert_or_assign(key, std::uint64_t{1}) } -> std::same_as<bool>;
};
template <class S, class A>
concept has_erase = requires(S& s, const A& key) { { s.erase(key) } -> std::same_as<bool>; };
template <class S, class A>
concept has_scan = requires(const S& s, const A& key) {
  s.scan(key, std::size_t{1}, [](const auto&, const auto&) {});
};
template <class S, class A>
concept has_multi_scan = requires(const S& s, std::span<const detail::scan_request<A>> requests,
                                  std::span<std::size_t> visited) {
  s.multi_scan(requests, visited, technique::naive, std::size_t{1}, [](std::size_t, const auto&, const auto&) {});
};
template <class Target, class S>
concept has_invariant_check = requires(const S& s) { Target::check(s); };
template <class Target>
concept has_extra_operations = requires { Target::extra_operations; };

// The longest run of keys one operation inserts or erases (a decoded key set holds): long enough
// for several levels of the target's nodes, short enough to keep executions fast.
template <class Target>
constexpr std::size_t longest_run() {
  if constexpr (requires { Target::longest_run; }) {
    return Target::longest_run;
  } else {
    return 1024;
  }
}

enum class operation : std::uint8_t {
  insert, insert_or_assign, erase, find, scan, multi_find, multi_scan, insert_run, erase_run, check, extra
};

// The operations `Target` has, each once; the fuzzer's operation byte picks one of them.
template <class Target>
std::vector<operation> operations_of() {
  using S = typename Target::structure;
  using A = typename Target::keys::argument_type;
  std::vector<operation> have = {operation::find, operation::multi_find};
  if constexpr (has_insert<S, A>) have.insert(have.end(), {operation::insert, operation::insert_run});
  if constexpr (has_insert_or_assign<S, A>) have.push_back(operation::insert_or_assign);
  if constexpr (has_erase<S, A>) have.insert(have.end(), {operation::erase, operation::erase_run});
  if constexpr (has_scan<S, A>) have.push_back(operation::scan);
  if constexpr (has_multi_scan<S, A>) have.push_back(operation::multi_scan);
  if constexpr (has_invariant_check<Target, S>) have.push_back(operation::check);
  if constexpr (has_extra_operations<Target>) {
    for (std::size_t index = 0; index < Target::extra_operations; ++index) have.push_back(operation::extra);
  }
  return have;
}

// ---- deep-state counts ---------------------------------------------------------------------------

template <class Target, class S>
concept has_shape = requires(const S& s) {
  { Target::shape(s) } -> std::same_as<std::array<std::size_t, std::size(Target::shape_names)>>;
};

// How often each shape number of Target grew and shrank, over every input of the process.
template <class Target>
class shape_changes {
 public:
  static constexpr std::size_t numbers = std::size(Target::shape_names);
  using shape_type = std::array<std::size_t, numbers>;

  static bool enabled() {
    static const bool on = [] {
      const char* setting = std::getenv("BRAID_FUZZ_STATS");
      return setting != nullptr && setting[0] == '1';
    }();
    return on;
  }
  static void record(const shape_type& before, const shape_type& after) {
    static const bool printing_at_exit = (std::atexit(print), true);
    (void)printing_at_exit;
    for (std::size_t index = 0; index < numbers; ++index) {
      grew()[index] += after[index] > before[index] ? 1 : 0;
      shrank()[index] += after[index] < before[index] ? 1 : 0;
      largest()[index] = std::max(largest()[index], after[index]);
    }
  }

 private:
  static shape_type& grew() { static shape_type counts{}; return counts; }
  static shape_type& shrank() { static shape_type counts{}; return counts; }
  static shape_type& largest() { static shape_type values{}; return values; }
  static void print() {
    for (std::size_t index = 0; index < numbers; ++index) {
      std::fprintf(stderr, "shape %-12s grew %8zu times, shrank %8zu times, largest %zu\n", Target::shape_names[index],
                   grew()[index], shrank()[index], largest()[index]);
    }
  }
};

// ---- updatable structures ---------------------------------------------------------------------

template <class Target>
class updatable_fuzz {
 public:
  using structure = typename Target::structure;
  using keys = typename Target::keys;
  using key_type = typename keys::key_type;
  using reference_map = std::map<key_type, std::uint64_t>;

  explicit updatable_fuzz(fuzz_input& input) : input_(input), structure_(Target::make()) {}

  void run() {
    static const std::vector<operation> operations = operations_of<Target>();
    while (!input_.empty()) apply(operations[input_.byte() % operations.size()]);
    check_contents();
  }

 private:
  void apply(operation what) {
    if constexpr (has_shape<Target, structure>) {
      if (shape_changes<Target>::enabled()) {
        const auto before = Target::shape(structure_);
        apply_unobserved(what);
        shape_changes<Target>::record(before, Target::shape(structure_));
        return;
      }
    }
    apply_unobserved(what);
  }

  void apply_unobserved(operation what) {
    switch (what) {
      case operation::insert: insert(keys::decode(input_), input_.byte()); break;
      case operation::insert_or_assign: insert_or_assign(keys::decode(input_), input_.byte()); break;
      case operation::erase: erase(decode_batch_key<keys>(input_, reference_)); break;
      case operation::find: find(decode_batch_key<keys>(input_, reference_)); break;
      case operation::scan:
        if constexpr (has_scan<structure, typename keys::argument_type>) fuzz_scan<structure, keys>(structure_, input_, reference_);
        break;
      case operation::multi_find:
        fuzz_multi_find<structure, keys>(structure_, input_, reference_, [this](const key_type& key, const auto& result) {
          return result == expected(key);
        });
        break;
      case operation::multi_scan:
        if constexpr (has_multi_scan<structure, typename keys::argument_type>) {
          fuzz_multi_scan<structure, keys>(structure_, input_, reference_);
        }
        break;
      case operation::insert_run: insert_run(); break;
      case operation::erase_run: erase_run(); break;
      case operation::check:
        if constexpr (has_invariant_check<Target, structure>) Target::check(structure_);
        break;
      case operation::extra:
        if constexpr (has_extra_operations<Target>) Target::extra(input_.byte() % Target::extra_operations, structure_, reference_, input_);
        break;
    }
  }

  std::optional<std::uint64_t> expected(const key_type& key) const {
    const auto found = reference_.find(key);
    return found == reference_.end() ? std::nullopt : std::optional<std::uint64_t>(found->second);
  }

  void insert(const key_type& key, std::uint64_t value) {
    if constexpr (has_insert<structure, typename keys::argument_type>) {
      const bool absent = !reference_.contains(key);
      fuzz_check(structure_.insert(keys::argument(key), value) == absent, "insert result");
      reference_.try_emplace(key, value);
    }
  }
  void insert_or_assign(const key_type& key, std::uint64_t value) {
    if constexpr (has_insert_or_assign<structure, typename keys::argument_type>) {
      const bool absent = !reference_.contains(key);
      fuzz_check(structure_.insert_or_assign(keys::argument(key), value) == absent, "insert_or_assign result");
      reference_.insert_or_assign(key, value);
    }
  }
  void erase(const key_type& key) {
    if constexpr (has_erase<structure, typename keys::argument_type>) {
      fuzz_check(structure_.erase(keys::argument(key)) == (reference_.erase(key) == 1), "erase result");
    }
  }
  void find(const key_type& key) { fuzz_check(structure_.find(keys::argument(key)) == expected(key), "find"); }

  // Many keys after one base: splits (and with erase_run, merges) from a short input.
  void insert_run() {
    const key_type base = keys::decode(input_);
    const run_shape shape = decode_run(input_, longest_run<Target>());
    const std::uint64_t value = input_.byte();
    const bool assign = input_.byte() % 2 == 0;
    for (std::size_t n = 0; n < shape.count; ++n) {
      if constexpr (has_insert_or_assign<structure, typename keys::argument_type>) {
        if (assign) {
          insert_or_assign(keys::nth_after(base, n, shape.stride), value + n);
          continue;
        }
      }
      insert(keys::nth_after(base, n, shape.stride), value + n);
    }
  }
  void erase_run() {
    const key_type base = decode_batch_key<keys>(input_, reference_);
    const run_shape shape = decode_run(input_, longest_run<Target>());
    for (std::size_t n = 0; n < shape.count; ++n) erase(keys::nth_after(base, n, shape.stride));
  }

  // Every key the reference holds is found with its value; an ordered structure's scan from
  // the smallest key yields exactly the reference.
  void check_contents() {
    if constexpr (has_invariant_check<Target, structure>) Target::check(structure_);
    for (const auto& [key, value] : reference_) fuzz_check(structure_.find(keys::argument(key)) == value, "final find");
    if constexpr (has_scan<structure, typename keys::argument_type>) {
      if (!reference_.empty()) {
        scan_checker<reference_map> check(reference_, reference_.begin()->first, std::numeric_limits<std::size_t>::max());
        check.finish(structure_.scan(keys::argument(reference_.begin()->first), std::numeric_limits<std::size_t>::max(),
                                     [&](const auto& key, const auto& value) { check(key, value); }));
      }
    }
    if constexpr (requires { structure_.size(); }) fuzz_check(structure_.size() == reference_.size(), "final size");
  }

  fuzz_input& input_;
  structure structure_;
  reference_map reference_;
};

template <class Target>
int fuzz_updatable(const std::uint8_t* data, std::size_t size) {
  fuzz_input input(data, size);
  updatable_fuzz<Target>(input).run();
  return 0;
}

// ---- structures built once from a key set -------------------------------------------------------
// A built target has
//   structure, keys                      as above
//   oracle                               the reference: a std::map from key to what the target
//                                        compares a find against
//   static structure build(const std::vector<key_type>& decoded, oracle& reference, fuzz_input&)
//                                        builds from the decoded keys (in decoded order, repeats
//                                        included; options drawn from the input) and fills the
//                                        reference; checks the constructor's argument errors
//   static bool matches(const structure&, const oracle&, const key_type&, const result& found)
// and may have check(s) (invariants) and other_finds(s, key) (the other plain lookups, compared
// with find). A structure with scan is scanned: its oracle then maps keys to their values.

template <class Keys>
std::vector<typename Keys::key_type> decode_key_set(fuzz_input& input, std::size_t longest) {
  std::vector<typename Keys::key_type> decoded;
  const std::size_t parts = input.byte() % 12;
  for (std::size_t part = 0; part < parts; ++part) {
    if (input.byte() % 4 != 0) {
      decoded.push_back(Keys::decode(input));
      continue;
    }
    const typename Keys::key_type base = Keys::decode(input);
    const run_shape shape = decode_run(input, longest);
    for (std::size_t n = 0; n < shape.count; ++n) decoded.push_back(Keys::nth_after(base, n, shape.stride));
  }
  return decoded;
}

template <class Target>
int fuzz_built(const std::uint8_t* data, std::size_t size) {
  using structure = typename Target::structure;
  using keys = typename Target::keys;
  using key_type = typename keys::key_type;
  fuzz_input input(data, size);
  const std::vector<key_type> decoded = decode_key_set<keys>(input, longest_run<Target>());
  typename Target::oracle reference;
  const structure built = Target::build(decoded, reference, input);
  if constexpr (requires { Target::check(built); }) Target::check(built);
  auto matches = [&](const key_type& key, const auto& found) { return Target::matches(built, reference, key, found); };
  while (!input.empty()) {
    switch (input.byte() % 4) {
      case 0: {
        const key_type key = decode_batch_key<keys>(input, reference);
        fuzz_check(matches(key, built.find(keys::argument(key))), "find");
        if constexpr (requires { Target::other_finds(built, key); }) Target::other_finds(built, key);
        break;
      }
      case 1:
        if constexpr (has_scan<structure, typename keys::argument_type>) {
          fuzz_scan<structure, keys>(built, input, reference);
          break;
        }
        [[fallthrough]];
      default: fuzz_multi_find<structure, keys>(built, input, reference, matches); break;
    }
  }
  for (const auto& entry : reference) fuzz_check(matches(entry.first, built.find(keys::argument(entry.first))), "final find");
  return 0;
}

}  // namespace braid::fuzzing
