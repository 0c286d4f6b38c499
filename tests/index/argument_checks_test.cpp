// Every public batch lookup of every index refuses bad arguments with std::invalid_argument
// naming itself: group 0 (which would never advance), and an output shorter than the input
// (which would be written past its end). Nothing is written in either case.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/index/binary_search_tree.hpp"
#include "braid/index/bplus_tree.hpp"
#include "braid/index/bw_tree.hpp"
#include "braid/index/chained_hash_table.hpp"
#include "braid/index/csb_plus_tree.hpp"
#include "braid/index/eytzinger_array.hpp"
#include "braid/index/linear_probing_table.hpp"
#include "braid/index/masstree.hpp"
#include "braid/index/skip_list.hpp"
#include "braid/index/sorted_array.hpp"

namespace braid {
namespace {

constexpr auto& every_technique = all_techniques;

// Calls `entry(out, group)` with group 0 and with an output one shorter than the three keys;
// both must throw std::invalid_argument whose message names `name`, and leave `out` untouched.
template <class Result>
void expect_refused(const std::string& name, const std::function<void(std::span<Result>, std::size_t)>& entry) {
  SCOPED_TRACE(name);
  const Result untouched{};
  std::vector<Result> out(3, untouched);
  for (const auto& [span, group] : {std::pair{std::span<Result>(out), std::size_t{0}},
                                    std::pair{std::span<Result>(out).first(2), std::size_t{4}}}) {
    try {
      entry(span, group);
      ADD_FAILURE() << name << " accepted group " << group << " with " << span.size() << " results for 3 keys";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find(name), std::string::npos) << error.what();
    }
    for (const Result& result : out) EXPECT_EQ(result, untouched);
  }
}

enum class comparators { tested, absent };

// The batch lookups of `index` named `name`: multi_find under every technique and, unless
// absent, the hand-written comparators find_group_prefetching and find_amac.
template <class Result, comparators Which = comparators::tested, class Index, class Key>
void expect_batch_lookups_refused(const std::string& name, const Index& index, const std::vector<Key>& keys) {
  if constexpr (Which == comparators::tested) {
    expect_refused<Result>(name + "::find_group_prefetching", [&](auto out, std::size_t group) {
      index.template find_group_prefetching<prefetch_hint::t0>(keys, out, group);
    });
    expect_refused<Result>(name + "::find_amac", [&](auto out, std::size_t group) {
      index.template find_amac<prefetch_hint::t0>(keys, out, group);
    });
  }
  for (technique how : every_technique) {
    expect_refused<Result>(name + "::multi_find",
                           [&](auto out, std::size_t group) { index.multi_find(keys, out, how, group); });
  }
}

const std::vector<std::uint64_t> keys64 = {1, 2, 3};
const std::vector<std::uint64_t> values64 = {10, 20, 30};
using optional64 = std::optional<std::uint64_t>;

TEST(ArgumentChecks, HashTables) {
  chained_hash_table<std::uint32_t, std::uint64_t> chained(16, 3, page_size::small_4k);
  linear_probing_table<std::uint64_t> probing(3, page_size::small_4k);
  for (std::uint32_t key : {1u, 2u, 3u}) {
    chained.insert(key, key);
    probing.insert(key, key);
  }
  const std::vector<std::uint32_t> keys32 = {1, 2, 3};
  expect_batch_lookups_refused<chained_hash_table<std::uint32_t, std::uint64_t>::result_type>("chained_hash_table",
                                                                                          chained, keys32);
  expect_batch_lookups_refused<linear_probing_table<std::uint64_t>::result_type>("linear_probing_table", probing,
                                                                                 keys64);
}

TEST(ArgumentChecks, SortedArray) {
  const sorted_array<std::uint64_t> array(keys64, page_size::small_4k);
  expect_batch_lookups_refused<sorted_array<std::uint64_t>::result_type>("sorted_array", array, keys64);
}

TEST(ArgumentChecks, OrderedStructures) {
  const binary_search_tree<std::uint64_t, std::uint64_t> bst(keys64, values64, page_size::small_4k);
  const csb_plus_tree<std::uint64_t, std::uint64_t> csb(keys64, values64, page_size::small_4k);
  const bplus_tree<std::uint64_t, std::uint64_t> bplus(keys64, values64, page_size::small_4k);
  const skip_list<std::uint64_t, std::uint64_t> skip(keys64, values64, page_size::small_4k);
  expect_batch_lookups_refused<optional64>("binary_search_tree", bst, keys64);
  expect_batch_lookups_refused<optional64>("csb_plus_tree", csb, keys64);
  expect_batch_lookups_refused<optional64, comparators::absent>("bplus_tree", bplus, keys64);
  expect_batch_lookups_refused<optional64>("skip_list", skip, keys64);
  using skip_request = skip_list<std::uint64_t, std::uint64_t>::scan_request;
  const std::vector<skip_request> scans = {{1, 2}, {2, 2}, {3, 2}};
  const auto ignore = [](std::size_t, std::uint64_t, std::uint64_t) {};
  for (technique how : every_technique) {
    if (how == technique::coro_nested) continue;  // refused whatever the arguments
    expect_refused<std::size_t>("skip_list::multi_scan", [&](auto visited, std::size_t group) {
      skip.multi_scan(scans, visited, how, group, ignore);
    });
  }
  expect_refused<std::size_t>("skip_list::scan_group_prefetching", [&](auto visited, std::size_t group) {
    skip.scan_group_prefetching<prefetch_hint::t0>(scans, visited, group, ignore);
  });
  expect_refused<std::size_t>("skip_list::scan_amac", [&](auto visited, std::size_t group) {
    skip.scan_amac<prefetch_hint::t0>(scans, visited, group, ignore);
  });
}

TEST(ArgumentChecks, ConcurrentIndexes) {
  bw_tree<std::uint64_t, std::uint64_t> bw(page_size::small_4k);
  masstree<std::uint64_t> trie(page_size::small_4k);
  for (std::uint64_t key : keys64) bw.insert_or_assign(key, key);
  const std::vector<std::string_view> names = {"a", "b", "c"};
  for (std::string_view name : names) trie.put(name, 1);
  // The Bw-tree's comparators take a batch of operations (gets and updates): only the group can be wrong.
  struct gets {
    [[nodiscard]] std::size_t size() const noexcept { return 3; }
    [[nodiscard]] static bool is_get(std::size_t) noexcept { return true; }
    [[nodiscard]] std::uint64_t key(std::size_t index) const noexcept { return keys64[index]; }
    static void apply(std::size_t) noexcept {}
    void deliver(std::size_t, std::optional<std::uint64_t>) noexcept { ++delivered; }
    int delivered = 0;
  } batch;
  EXPECT_THROW(bw.find_group_prefetching(batch, 0), std::invalid_argument);
  EXPECT_THROW(bw.find_amac(batch, 0), std::invalid_argument);
  EXPECT_EQ(batch.delivered, 0);
  bw.find_amac(batch, 2);
  EXPECT_EQ(batch.delivered, 3);
  expect_refused<optional64>("bw_tree::find_group_prefetching",
                             [&](auto out, std::size_t group) { bw.find_group_prefetching(keys64, out, group); });
  expect_refused<optional64>("bw_tree::find_amac", [&](auto out, std::size_t group) { bw.find_amac(keys64, out, group); });
  for (technique how : every_technique) {
    expect_refused<optional64>("bw_tree::multi_find",
                               [&](auto out, std::size_t group) { bw.multi_find(keys64, out, how, group); });
  }
  for (technique how : {technique::naive, technique::coro, technique::coro_nested, technique::adaptive}) {
    expect_refused<optional64>("masstree::multi_find",
                               [&](auto out, std::size_t group) { trie.multi_find(names, out, how, group); });
  }
}

// A technique a structure does not implement is refused by name, with what the structure has;
// every other technique runs. The list each structure has is the protocol's contract.
template <class Structure, class Key, class Result>
void expect_techniques(const Structure& structure, const std::vector<Key>& keys, std::string_view name,
                       std::string_view implemented) {
  SCOPED_TRACE(std::string(name));
  for (technique how : all_techniques) {
    std::vector<Result> out(keys.size());
    const bool expected = (std::string(",") + std::string(implemented) + ",").find(
                              "," + std::string(to_string(how)) + ",") != std::string::npos;
    try {
      structure.multi_find(std::span<const Key>(keys), std::span<Result>(out), how, 2);
      EXPECT_TRUE(expected) << to_string(how) << " ran, but the structure should not have it";
    } catch (const std::invalid_argument& error) {
      EXPECT_FALSE(expected) << to_string(how) << ": " << error.what();
      const std::string message = error.what();
      EXPECT_NE(message.find(std::string(name) + "::multi_find: technique '" + std::string(to_string(how)) + "'"),
                std::string::npos)
          << message;
      std::string listed = std::string(implemented);
      for (std::size_t comma = listed.find(','); comma != std::string::npos; comma = listed.find(',', comma + 2)) {
        listed.replace(comma, 1, ", ");
      }
      EXPECT_NE(message.find("(it has " + listed + ")"), std::string::npos) << message;
    }
  }
}

TEST(ArgumentChecks, EachStructureRefusesTheTechniquesItDoesNotHave) {
  const std::vector<std::uint32_t> keys32 = {1, 2, 3};
  chained_hash_table<std::uint32_t, std::uint64_t> chained(16, 3, page_size::small_4k);
  linear_probing_table<std::uint64_t> probing(3, page_size::small_4k);
  for (std::uint32_t key : keys32) {
    chained.insert(key, key);
    probing.insert(key, key);
  }
  const sorted_array<std::uint64_t> array(keys64, page_size::small_4k);
  const eytzinger_array<std::uint64_t> eytzinger(keys64, page_size::small_4k);
  const binary_search_tree<std::uint64_t, std::uint64_t> bst(keys64, values64, page_size::small_4k);
  const csb_plus_tree<std::uint64_t, std::uint64_t> csb(keys64, values64, page_size::small_4k);
  const bplus_tree<std::uint64_t, std::uint64_t> bplus(keys64, values64, page_size::small_4k);
  const skip_list<std::uint64_t, std::uint64_t> skip(keys64, values64, page_size::small_4k);
  bw_tree<std::uint64_t, std::uint64_t> bw(page_size::small_4k);
  masstree<std::uint64_t> trie(page_size::small_4k);
  for (std::uint64_t key : keys64) bw.insert_or_assign(key, key);
  const std::vector<std::string_view> names = {"a", "b", "c"};
  for (std::string_view name : names) trie.put(name, 1);
  const std::string all_flat = "naive,gp,amac,coro,fiber,adaptive";
  expect_techniques<decltype(chained), std::uint32_t, decltype(chained)::result_type>(chained, keys32, "chained_hash_table", all_flat);
  expect_techniques<decltype(probing), std::uint64_t, decltype(probing)::result_type>(probing, keys64, "linear_probing_table", all_flat + ",imlp-dynamic,imlp-static,imlp-hybrid");
  expect_techniques<decltype(array), std::uint64_t, decltype(array)::result_type>(array, keys64, "sorted_array",
                                                                                  "naive,gp,amac,coro,coro_nested,fiber,adaptive,imlp-dynamic,imlp-static,imlp-hybrid");
  expect_techniques<decltype(eytzinger), std::uint64_t, decltype(eytzinger)::result_type>(eytzinger, keys64, "eytzinger_array", all_flat);
  expect_techniques<decltype(bst), std::uint64_t, optional64>(bst, keys64, "binary_search_tree",
                                                              all_flat + ",imlp-dynamic,imlp-static,imlp-hybrid");
  expect_techniques<decltype(csb), std::uint64_t, optional64>(csb, keys64, "csb_plus_tree", all_flat);
  expect_techniques<decltype(bplus), std::uint64_t, optional64>(bplus, keys64, "bplus_tree", "naive,coro,coro_nested,fiber,adaptive");
  expect_techniques<decltype(skip), std::uint64_t, optional64>(skip, keys64, "skip_list",
                                                               all_flat + ",imlp-dynamic,imlp-static,imlp-hybrid");
  expect_techniques<decltype(bw), std::uint64_t, optional64>(bw, keys64, "bw_tree", "naive,gp,amac,coro,adaptive");
  expect_techniques<decltype(trie), std::string_view, optional64>(trie, names, "masstree", "naive,coro,coro_nested,adaptive");
}

}  // namespace
}  // namespace braid
