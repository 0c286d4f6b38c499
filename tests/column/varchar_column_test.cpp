// varchar_column against a plain std::vector<std::string> of its rows: appends in batches with
// merges in between keep every row; every get form (get, get_into, get_task, get_nested,
// get_flat, get_flat_into) equals the row; find_first and count_in (every locate technique) equal plain
// loops, with integers and too-long texts in the list matching nothing; append is checked and
// all or nothing; truncate undoes an append.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "braid/column/varchar_column.hpp"
#include "braid/core/scheduler.hpp"

namespace braid {
namespace {

const column_spec spec{"name", column_type::varchar, 0, 0, 12};

value random_text(std::mt19937_64& random) {
  static const std::string pool[] = {"", "a", "ab", "abc", "abcdefghijkl", "shared/pre", "shared/pref", "shared/prefi", "z"};
  if (random() % 3 == 0) return std::to_string(random() % 50);
  return pool[random() % std::size(pool)];
}

void expect_rows(const varchar_column& c, const std::vector<value>& rows) {
  ASSERT_EQ(c.size(), rows.size());
  std::vector<std::size_t> all(rows.size());
  for (std::size_t row = 0; row < all.size(); ++row) all[row] = row;
  const auto tasks = run(interleaved_scheduler{6}, all, [&](std::size_t row) { return c.get_task(row); });
  const auto nested = run(interleaved_scheduler{6}, all, [&](std::size_t row) { return c.get_nested(row); });
  const auto flat = run(interleaved_scheduler{6}, all, [&](std::size_t row) { return c.get_flat(row); });
  // Into reused values: texts longer than any row, integers, short texts.
  std::vector<value> into(rows.size());
  for (std::size_t row = 0; row < rows.size(); ++row) into[row] = row % 3 == 0 ? value(std::string(40, '.')) : row % 3 == 1 ? value(-5) : value("x");
  interleaved_scheduler{6}.run(rows.size(), [&](std::size_t row) { return c.get_flat_into(row, into[row]); }, [](std::size_t) {});
  value reused = std::string(40, '.');
  for (std::size_t row = 0; row < rows.size(); ++row) {
    ASSERT_EQ(into[row], rows[row]) << row;
    ASSERT_EQ(c.get(row), rows[row]) << row;
    c.get_into(row, reused);
    ASSERT_EQ(reused, rows[row]) << row;
    ASSERT_EQ(tasks[row], rows[row]) << row;
    ASSERT_EQ(nested[row], rows[row]) << row;
    ASSERT_EQ(flat[row], rows[row]) << row;
  }
}

void expect_queries(const varchar_column& c, const std::vector<value>& rows, std::mt19937_64& random) {
  std::vector<value> list = {7, std::string(13, 'a'), "absent"};
  for (int i = 0; i < 6; ++i) list.push_back(random_text(random));
  std::size_t expected = 0;
  for (const value& row : rows) expected += std::find(list.begin(), list.end(), row) != list.end();
  for (technique main : {technique::naive, technique::gp, technique::amac, technique::coro, technique::coro_nested, technique::adaptive}) {
    for (technique delta : {technique::naive, technique::coro, technique::coro_nested, technique::adaptive}) {
      ASSERT_EQ(c.count_in(list, {main, delta, 3}).total(), expected) << to_string(main) << " " << to_string(delta);
    }
  }
  for (const value& v : list) {
    const auto at = std::find(rows.begin(), rows.end(), v);
    const std::optional<std::size_t> first =
        at == rows.end() ? std::nullopt : std::optional<std::size_t>(static_cast<std::size_t>(at - rows.begin()));
    ASSERT_EQ(c.find_first(v), first) << v;
  }
}

TEST(VarcharColumn, AgreesWithItsRowsAcrossAppendsAndMerges) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    std::mt19937_64 random(seed);
    varchar_column c(spec);
    std::vector<value> rows;
    for (int batch = 0; batch < 5; ++batch) {
      std::vector<value> values(random() % 200);
      for (value& v : values) v = random_text(random);
      c.append(values);
      rows.insert(rows.end(), values.begin(), values.end());
      if (random() % 2 == 0) c.merge();
      expect_rows(c, rows);
      expect_queries(c, rows, random);
    }
    c.merge();
    EXPECT_EQ(c.delta_size(), 0u);
    EXPECT_EQ(c.main_size(), rows.size());
    expect_rows(c, rows);
  }
}

TEST(VarcharColumn, AppendIsCheckedAndTruncateUndoesIt) {
  auto made = make_column(spec);
  auto& c = dynamic_cast<varchar_column&>(*made);
  const std::vector<value> first{"one", "two", "one"};
  c.append(first);
  c.merge();
  const std::vector<value> too_long{"three", std::string(13, 'x')};
  EXPECT_THROW(c.append(too_long), std::invalid_argument);
  const std::vector<value> integer{"three", 3};
  EXPECT_THROW(c.append(integer), std::invalid_argument);
  EXPECT_EQ(c.size(), 3u);
  const std::vector<value> second{"three", "", std::string(12, 'x')};
  c.append(second);
  EXPECT_EQ(c.get(5), value(std::string(12, 'x')));
  EXPECT_EQ(c.find_first(""), 4u);
  c.truncate(4);
  EXPECT_EQ(c.size(), 4u);
  EXPECT_EQ(c.delta_dictionary_size(), 1u);
  EXPECT_FALSE(c.find_first(""));
  EXPECT_THROW(c.truncate(2), std::invalid_argument);
  EXPECT_THROW(c.truncate(9), std::invalid_argument);
  EXPECT_THROW(varchar_column(column_spec{"n", column_type::int64}), std::invalid_argument);
  EXPECT_THROW(varchar_column(column_spec{"n", column_type::varchar, 0, 0, 65536}), std::invalid_argument);
}

}  // namespace
}  // namespace braid
