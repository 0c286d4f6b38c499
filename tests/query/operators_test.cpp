#include "braid/query/operators.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace braid::query {
namespace {

// 500 rows: id 0..499, amount (decimal 2) id * 7 mod 1000 - 300, day (date) id mod 50,
// later (date) id mod 37, mode (text) one of six words.
const std::vector<std::string> modes = {"AIR", "AIR REG", "MAIL", "RAIL", "SHIP", "TRUCK"};

table sample(std::size_t tuples_per_fragment) {
  table_builder builder("sample", {{"id", {value_kind::integer, 0}},
                                   {"amount", {value_kind::decimal, 2}},
                                   {"day", {value_kind::date, 0}},
                                   {"later", {value_kind::date, 0}},
                                   {"mode", {value_kind::text, 0}}});
  for (std::int64_t id = 0; id < 500; ++id) {
    const cell values[] = {cell::integer(id), cell::decimal(id * 7 % 1000 - 300, 2), cell::date(id % 50), cell::date(id % 37),
                           cell::text(modes[static_cast<std::size_t>(id * 5 % 6)])};
    builder.append_row(values);
  }
  return std::move(builder).finish(tuples_per_fragment);
}

// The ids a predicate selects, fragment by fragment, optionally from a candidate subset.
std::vector<std::int64_t> selected(const table& t, const predicate& p, bool odd_candidates_only = false) {
  std::vector<std::int64_t> ids;
  std::vector<std::uint32_t> in(t.tuples_per_fragment());
  std::vector<std::uint32_t> out(t.tuples_per_fragment());
  for (std::size_t f = 0; f < t.fragment_count(); ++f) {
    const std::uint32_t tuples = t.header(f).tuples;
    std::uint32_t n = 0;
    if (odd_candidates_only) {
      std::uint32_t candidates = 0;
      for (std::uint32_t i = 0; i < tuples; ++i) {
        if (t.column_data<std::int64_t>(f, 0)[i] % 2 == 1) in[candidates++] = i;
      }
      n = p.select(t, f, in.data(), candidates, out.data());
    } else {
      n = p.select(t, f, nullptr, tuples, out.data());
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      if (i > 0) {
        EXPECT_LT(out[i - 1], out[i]);
      }
      ids.push_back(t.column_data<std::int64_t>(f, 0)[out[i]]);
    }
    EXPECT_EQ(p.count(t, f), p.select(t, f, nullptr, tuples, out.data()));
  }
  return ids;
}

template <class Test>
std::vector<std::int64_t> expected(Test test, bool odd_only = false) {
  std::vector<std::int64_t> ids;
  for (std::int64_t id = 0; id < 500; ++id) {
    if ((!odd_only || id % 2 == 1) && test(id)) ids.push_back(id);
  }
  return ids;
}

std::int64_t amount(std::int64_t id) { return id * 7 % 1000 - 300; }
const std::string& mode(std::int64_t id) { return modes[static_cast<std::size_t>(id * 5 % 6)]; }

class predicates : public ::testing::TestWithParam<std::size_t> {};

TEST_P(predicates, select_exactly_the_rows_a_row_at_a_time_test_selects) {
  const table t = sample(GetParam());
  for (const bool odd : {false, true}) {
    EXPECT_EQ(selected(t, predicate::range(t, "amount", -100, 250), odd),
              expected([](std::int64_t id) { return amount(id) >= -100 && amount(id) <= 250; }, odd));
    EXPECT_EQ(selected(t, predicate::range(t, "day", 10, 19), odd),
              expected([](std::int64_t id) { return id % 50 >= 10 && id % 50 <= 19; }, odd));
    EXPECT_EQ(selected(t, predicate::range(t, "amount", 5, 4), odd), std::vector<std::int64_t>{});
    EXPECT_EQ(selected(t, predicate::range(t, "amount", std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()), odd),
              expected([](std::int64_t) { return true; }, odd));
    EXPECT_EQ(selected(t, predicate::one_of(t, "id", {7, 3, 499, 1000}), odd),
              expected([](std::int64_t id) { return id == 3 || id == 7 || id == 499; }, odd));
    EXPECT_EQ(selected(t, predicate::one_of(t, "day", {0, 49}), odd),
              expected([](std::int64_t id) { return id % 50 == 0 || id % 50 == 49; }, odd));
    EXPECT_EQ(selected(t, predicate::column_less(t, "later", "day"), odd),
              expected([](std::int64_t id) { return id % 37 < id % 50; }, odd));
    EXPECT_EQ(selected(t, predicate::text_equals(t, "mode", "MAIL"), odd), expected([](std::int64_t id) { return mode(id) == "MAIL"; }, odd));
    EXPECT_EQ(selected(t, predicate::text_equals(t, "mode", "BOAT"), odd), std::vector<std::int64_t>{});
    EXPECT_EQ(selected(t, predicate::text_in(t, "mode", {"AIR", "AIR REG"}), odd),
              expected([](std::int64_t id) { return mode(id).starts_with("AIR"); }, odd));
    EXPECT_EQ(selected(t, predicate::text_prefix(t, "mode", "AIR"), odd),
              expected([](std::int64_t id) { return mode(id).starts_with("AIR"); }, odd));
    const predicate both = predicate::all_of({predicate::range(t, "day", 0, 24), predicate::text_in(t, "mode", {"RAIL", "SHIP"})});
    EXPECT_EQ(selected(t, both, odd), expected([](std::int64_t id) { return id % 50 <= 24 && (mode(id) == "RAIL" || mode(id) == "SHIP"); }, odd));
    const predicate either = predicate::any_of({predicate::range(t, "amount", 600, 699), both, predicate::one_of(t, "id", {1, 2})});
    EXPECT_EQ(selected(t, either, odd), expected([](std::int64_t id) {
                return (amount(id) >= 600 && amount(id) <= 699) || (id % 50 <= 24 && (mode(id) == "RAIL" || mode(id) == "SHIP")) ||
                       id == 1 || id == 2;
              }, odd));
    EXPECT_EQ(selected(t, predicate::all_of({}), odd), expected([](std::int64_t) { return true; }, odd));
  }
}

INSTANTIATE_TEST_SUITE_P(fragments, predicates, ::testing::Values(1U, 32U, 1024U));

TEST(predicate, text_predicates_are_a_bitmap_over_the_dictionary_codes) {
  const table t = sample(64);
  const predicate air = predicate::text_prefix(t, "mode", "AIR");
  const auto& dictionary = t.dictionary(t.column_index("mode"));
  ASSERT_EQ(air.code_bitmap().size(), dictionary.size());
  for (std::uint32_t code = 0; code < dictionary.size(); ++code) {
    EXPECT_EQ(air.code_bitmap()[code] != 0, dictionary.text(code).starts_with("AIR")) << dictionary.text(code);
  }
  EXPECT_EQ(air.single_column(), t.column_index("mode"));
  const predicate two = predicate::all_of({air, predicate::range(t, "day", 0, 1)});
  EXPECT_EQ(two.columns().size(), 2U);
  EXPECT_FALSE(two.single_column().has_value());
  EXPECT_THROW((void)predicate::text_equals(t, "day", "x"), std::invalid_argument);
  EXPECT_THROW((void)predicate::range(t, "mode", 0, 1), std::invalid_argument);
  EXPECT_THROW((void)predicate::range(t, "nope", 0, 1), std::invalid_argument);
  EXPECT_THROW((void)predicate::column_less(t, "id", "day"), std::invalid_argument);  // widths differ
  EXPECT_THROW((void)predicate::any_of({}), std::invalid_argument);
}

// ---- aggregation -----------------------------------------------------------------------------

// Folds the same inserts through each finalize mode by hand (no runtime).
std::vector<group_aggregate::group> aggregate_with(finalize_mode mode, unsigned workers,
                                                   const std::vector<std::pair<std::uint64_t, std::int64_t>>& inserts) {
  group_aggregate groups(workers, {aggregate_kind::sum, aggregate_kind::min, aggregate_kind::max, aggregate_kind::sum});
  for (std::size_t i = 0; i < inserts.size(); ++i) {
    int128* a = groups.accumulators(static_cast<unsigned>(i % workers), inserts[i].first, static_cast<std::int64_t>(inserts[i].first) * 10);
    a[0] += inserts[i].second;
    a[1] = std::min<int128>(a[1], inserts[i].second);
    a[2] = std::max<int128>(a[2], inserts[i].second);
    a[3] += 1;
  }
  if (workers > 1) {
    if (mode == finalize_mode::parallel) {
      for (unsigned p = 0; p < workers; ++p) groups.finalize_part(p, workers);
    } else if (mode == finalize_mode::sequential) {
      for (unsigned w = 1; w < workers; ++w) groups.merge(0, w);
    } else {
      for (unsigned stride = 1; stride < workers; stride *= 2) {
        for (unsigned into = 0; into + stride < workers; into += 2 * stride) groups.merge(into, into + stride);
      }
    }
  }
  groups.complete(mode);
  auto out = groups.groups();
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  return out;
}

TEST(group_aggregate, sums_exactly_beyond_64_bits_and_every_finalize_mode_agrees) {
  std::mt19937_64 random(5);
  std::vector<std::pair<std::uint64_t, std::int64_t>> inserts;
  for (int i = 0; i < 20000; ++i) {
    inserts.emplace_back(random() % 300, static_cast<std::int64_t>(random() >> 2) - (std::int64_t{1} << 60));
  }
  for (int i = 0; i < 50; ++i) inserts.emplace_back(1000, std::numeric_limits<std::int64_t>::max());
  // Expected, row at a time.
  std::map<std::uint64_t, std::array<int128, 4>> truth;
  for (const auto& [key, value] : inserts) {
    auto [it, fresh] = truth.try_emplace(key, std::array<int128, 4>{0, value, value, 0});
    it->second[0] += value;
    it->second[1] = std::min<int128>(it->second[1], value);
    it->second[2] = std::max<int128>(it->second[2], value);
    it->second[3] += 1;
  }
  for (unsigned workers : {1U, 2U, 3U, 4U}) {
    for (auto mode : {finalize_mode::sequential, finalize_mode::parallel, finalize_mode::reduce}) {
      const auto groups = aggregate_with(mode, workers, inserts);
      ASSERT_EQ(groups.size(), truth.size()) << workers << " " << to_string(mode);
      auto expected_group = truth.begin();
      for (const auto& g : groups) {
        ASSERT_EQ(g.key, expected_group->first);
        EXPECT_EQ(g.carried, static_cast<std::int64_t>(g.key) * 10);
        for (std::size_t a = 0; a < 4; ++a) EXPECT_TRUE(g.values[a] == expected_group->second[a]) << a;
        ++expected_group;
      }
    }
  }
  EXPECT_TRUE(truth.at(1000)[0] == int128{std::numeric_limits<std::int64_t>::max()} * 50);
}

// ---- joins -----------------------------------------------------------------------------------

std::multiset<std::int64_t> matches(const join_table& table, std::uint64_t key) {
  std::multiset<std::int64_t> found;
  const std::size_t n = table.for_each_match(key, [&](std::int64_t payload) { found.insert(payload); });
  EXPECT_EQ(n, found.size());
  return found;
}

TEST(join_table, finds_every_duplicate_and_nothing_for_absent_keys_in_every_mode) {
  for (unsigned workers : {1U, 2U, 3U}) {
    for (auto mode : {finalize_mode::sequential, finalize_mode::parallel, finalize_mode::reduce}) {
      join_table table(workers, true);
      // Keys 0, 2, 4, ... 1998; key k holds payloads k*10 + d for d < k mod 4 + 1.
      std::size_t inserted = 0;
      for (std::uint64_t k = 0; k < 2000; k += 2) {
        for (std::uint64_t d = 0; d <= k % 4; ++d) {
          table.insert(static_cast<unsigned>(inserted++ % workers), k, static_cast<std::int64_t>(k * 10 + d));
        }
      }
      if (workers > 1) {
        if (mode == finalize_mode::parallel) {
          for (unsigned p = 0; p < workers; ++p) table.finalize_part(p, workers);
        } else {
          for (unsigned w = 1; w < workers; ++w) table.merge(0, w);
        }
      }
      table.complete(mode);
      EXPECT_EQ(table.size(), inserted);
      for (std::uint64_t k = 0; k < 2000; k += 2) {
        std::multiset<std::int64_t> want;
        for (std::uint64_t d = 0; d <= k % 4; ++d) want.insert(static_cast<std::int64_t>(k * 10 + d));
        ASSERT_EQ(matches(table, k), want) << k;
        ASSERT_TRUE(table.may_contain(k));  // the bloom filter never drops a match
        ASSERT_EQ(table.find(k).has_value(), true);
      }
      std::size_t passed_absent = 0;
      for (std::uint64_t k = 1; k < 2000; k += 2) {
        EXPECT_TRUE(matches(table, k).empty());
        EXPECT_FALSE(table.find(k).has_value());
        passed_absent += table.may_contain(k) ? 1 : 0;
      }
      EXPECT_LT(passed_absent, 100U);  // ~16 bits per key: a few percent false positives
    }
  }
}

TEST(join_table, empty_and_unfiltered_tables) {
  join_table empty(2, true);
  empty.merge(0, 1);
  empty.complete(finalize_mode::sequential);
  EXPECT_EQ(empty.size(), 0U);
  EXPECT_FALSE(empty.may_contain(5));
  EXPECT_TRUE(matches(empty, 5).empty());
  join_table plain(1, false);
  plain.complete(finalize_mode::parallel);
  EXPECT_TRUE(plain.may_contain(5));  // no filter: every key must be probed
  EXPECT_FALSE(plain.has_bloom_filter());
  EXPECT_THROW(join_table(0, false), std::invalid_argument);
}

// probe_batch returns exactly what for_each_match returns key by key, in key order, for every
// group size (1 plain, groups that divide the input, do not, exceed it, exceed the maximum),
// with and without the bloom filter, finalized into one table or parts, over absent keys,
// duplicates and extreme keys.
TEST(join_table, interleaved_probes_equal_one_probe_at_a_time) {
  std::mt19937_64 random(17);
  for (const bool bloom : {true, false}) {
    for (auto mode : {finalize_mode::reduce, finalize_mode::parallel}) {
      join_table table(2, bloom);
      const std::vector<std::uint64_t> extremes = {0, 1, std::numeric_limits<std::uint64_t>::max()};
      for (std::uint64_t k : extremes) table.insert(0, k, 7);
      for (std::uint64_t i = 0; i < 3000; ++i) {
        const std::uint64_t k = random() % 5000;  // duplicates and gaps
        table.insert(static_cast<unsigned>(i % 2), k, static_cast<std::int64_t>(i));
      }
      if (mode == finalize_mode::parallel) {
        table.finalize_part(0, 2);
        table.finalize_part(1, 2);
      } else {
        table.merge(0, 1);
      }
      table.complete(mode);
      std::vector<std::uint64_t> probes = extremes;
      probes.push_back(std::numeric_limits<std::uint64_t>::max() - 1);
      for (int i = 0; i < 2500; ++i) probes.push_back(random() % 10000);  // half absent
      for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{15}, probes.size()}) {
        std::vector<std::pair<std::uint32_t, std::int64_t>> want;
        for (std::uint32_t i = 0; i < count; ++i) {
          table.for_each_match(probes[i], [&](std::int64_t payload) { want.emplace_back(i, payload); });
        }
        for (const std::size_t group : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{16},
                                        join_table::max_probe_group, join_table::max_probe_group + 9, count + 1}) {
          std::vector<std::pair<std::uint32_t, std::int64_t>> got;
          table.probe_batch(static_cast<std::uint32_t>(count), group, [&](std::uint32_t i) { return probes[i]; },
                            [&](std::uint32_t i, std::int64_t payload) { got.emplace_back(i, payload); });
          ASSERT_EQ(got, want) << "bloom " << bloom << " group " << group << " count " << count;
        }
      }
    }
  }
  join_table empty(1, true);
  empty.complete(finalize_mode::sequential);
  std::size_t visits = 0;
  empty.probe_batch(3, 16, [](std::uint32_t i) { return std::uint64_t{i}; }, [&](std::uint32_t, std::int64_t) { ++visits; });
  EXPECT_EQ(visits, 0U);
}

TEST(bloom_filter, holds_every_inserted_key) {
  bloom_filter filter(10000);
  std::mt19937_64 random(9);
  std::vector<std::uint64_t> keys(10000);
  for (auto& key : keys) {
    key = random();
    filter.insert(key);
  }
  for (const auto key : keys) ASSERT_TRUE(filter.may_contain(key));
  std::size_t false_positives = 0;
  for (int i = 0; i < 10000; ++i) false_positives += filter.may_contain(random()) ? 1 : 0;
  EXPECT_LT(false_positives, 800U);
}

// ---- ORDER BY --------------------------------------------------------------------------------

TEST(order_rows, completes_the_order_with_the_other_columns_and_cuts_ties_at_the_limit) {
  std::vector<std::vector<cell>> rows;
  for (int i = 0; i < 40; ++i) {
    rows.push_back({cell::integer(40 - i), cell::decimal(i % 3, 2), cell::text(i % 2 == 0 ? "b" : "a")});
  }
  auto full = rows;
  order_rows(full, {{1, true}, {2, false}});
  for (std::size_t i = 1; i < full.size(); ++i) {
    const auto& a = full[i - 1];
    const auto& b = full[i];
    const bool ordered = a[1].number > b[1].number || (a[1].number == b[1].number && a[2].string < b[2].string) ||
                         (a[1].number == b[1].number && a[2].string == b[2].string && a[0].number < b[0].number);
    EXPECT_TRUE(ordered) << i;
  }
  for (const std::size_t limit : {0U, 1U, 5U, 14U, 40U, 100U}) {
    auto top = rows;
    order_rows(top, {{1, true}, {2, false}}, limit);
    ASSERT_EQ(top.size(), std::min<std::size_t>(limit, rows.size()));
    for (std::size_t i = 0; i < top.size(); ++i) EXPECT_TRUE(top[i] == full[i]) << limit << " " << i;
  }
  EXPECT_EQ(compare_cells(cell::text("AIR"), cell::text("AIR REG")), -1);
  EXPECT_EQ(compare_cells(cell::date(3), cell::date(3)), 0);
  std::vector<std::vector<cell>> one = {{cell::integer(1)}};
  EXPECT_THROW(order_rows(one, {{3, false}}), std::invalid_argument);
}

}  // namespace
}  // namespace braid::query
