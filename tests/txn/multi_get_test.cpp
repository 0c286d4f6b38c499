// transaction::multi_get: every technique (sequential, coroutines, nested, amac) at groups 1, 3, 8
// and 64 gives exactly what a loop of get() gives, on random tables whose records the reader
// sees through every kind of version chain — committed before its snapshot, deleted, deleted
// and inserted again, overwritten or deleted or inserted by transactions that committed after
// it began (several times: the chain holds newer versions to skip), written by a transaction
// still open, and written, inserted or removed by the reader itself — under snapshot isolation
// and serializable. Key lists hold absent keys, duplicates, bad keys; the empty list and single
// keys too. Also: the argument checks, the statuses of a transaction that is over, and the
// reads' SSN registration (a write skew made of multi_get reads is refused).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "braid/txn/database.hpp"
#include "txn/txn_test_support.hpp"

namespace braid::txn {
// Readable statuses in the failure messages.
inline void PrintTo(status s, std::ostream* out) { *out << describe(s); }
}  // namespace braid::txn

namespace {

using braid::txn::access;
using braid::txn::database;
using braid::txn::isolation;
using braid::txn::multi_get_technique;
using braid::txn::status;
using braid::txn::table_handle;
using braid::txn::transaction;

constexpr multi_get_technique techniques[] = {multi_get_technique::sequential, multi_get_technique::coroutines,
                                              multi_get_technique::nested, multi_get_technique::amac};
constexpr std::size_t groups[] = {1, 3, 8, 64};

const char* name_of(multi_get_technique technique) {
  switch (technique) {
    case multi_get_technique::sequential: return "sequential";
    case multi_get_technique::coroutines: return "coroutines";
    case multi_get_technique::nested: return "nested";
    case multi_get_technique::amac: return "amac";
  }
  return "?";
}

// What every value starts as: a read that finds nothing must leave it alone, as get does.
std::vector<std::string> untouched_values(std::size_t count) {
  std::vector<std::string> values;
  for (std::size_t i = 0; i < count; ++i) values.push_back("untouched-" + std::to_string(i));
  return values;
}

// get_nested (CoroBase's fully nested form of get) driven to its end.
template <braid::execution_mode M>
status nested_get(transaction& tx, table_handle t, std::string_view key, std::string& value) {
  braid::task<status> read = tx.get_nested<M>(t, key, value);
  do {
    read.resume();
  } while (!read.done());
  return read.take_result();
}

// Runs multi_get by every technique and group, and get_nested in both modes, and expects
// what keys.size() gets give.
// `reference` (optional): each key's visible value, or nullopt for none.
void expect_like_get(transaction& tx, table_handle t, const std::vector<std::string_view>& keys,
                     const std::map<std::string, std::optional<std::string>>* reference = nullptr) {
  std::vector<std::string> expected_values = untouched_values(keys.size());
  std::vector<status> expected_statuses(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) expected_statuses[i] = tx.get(t, keys[i], expected_values[i]);
  if (reference != nullptr) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (keys[i].empty() || keys[i].size() > braid::txn::max_key_bytes) continue;  // invalid: checked below
      const auto known = reference->find(std::string(keys[i]));
      const bool visible = known != reference->end() && known->second.has_value();
      ASSERT_EQ(expected_statuses[i], visible ? status::ok : status::not_found) << "key #" << i;
      if (visible) {
        ASSERT_EQ(expected_values[i], *known->second) << "key #" << i;
      }
    }
  }
  for (const multi_get_technique technique : techniques) {
    for (const std::size_t group : groups) {
      std::vector<std::string> values = untouched_values(keys.size());
      std::vector<status> statuses(keys.size(), status::corrupt);
      ASSERT_EQ(tx.multi_get(t, keys, values, statuses, technique, group), status::ok);
      EXPECT_EQ(statuses, expected_statuses) << name_of(technique) << ", group " << group;
      EXPECT_EQ(values, expected_values) << name_of(technique) << ", group " << group;
    }
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    std::string interleaved_value = untouched_values(keys.size())[i];
    std::string sequential_value = interleaved_value;
    EXPECT_EQ(nested_get<braid::interleaved>(tx, t, keys[i], interleaved_value), expected_statuses[i]) << "key #" << i;
    EXPECT_EQ(interleaved_value, expected_values[i]) << "key #" << i;
    EXPECT_EQ(nested_get<braid::sequential>(tx, t, keys[i], sequential_value), expected_statuses[i]) << "key #" << i;
    EXPECT_EQ(sequential_value, expected_values[i]) << "key #" << i;
  }
}

// Keys of every shape Masstree stores differently: short, sharing their first 8 bytes (a
// second layer), long with a long shared prefix (suffixes, several layers), with zero bytes.
std::string key_of(std::size_t number) {
  const std::string digits = std::to_string(number);
  switch (number % 4) {
    case 0: return "k" + digits;
    case 1: return "prefix__" + digits;
    case 2: return "a-rather-long-shared-prefix-of-forty-bytes/" + digits + "/and-a-tail";
    default: return std::string("z\0z", 3) + digits;
  }
}

// What a key goes through before and after the reader begins.
enum class history {
  never_written,
  committed,
  updated_before,
  deleted_before,
  deleted_and_reinserted,
  updated_later,   // by committed transactions that began after the reader
  deleted_later,
  inserted_later,
  written_by_open,   // an update by a transaction that stays open
  inserted_by_open,
  updated_by_reader,
  inserted_by_reader,
  removed_by_reader,
  count
};

// A database, a reader whose view `visible` records, and the keys it may ask for.
struct scenario {
  std::unique_ptr<database> db;
  table_handle t;
  transaction reader;
  transaction open_writer;
  std::vector<std::string> keys;
  std::map<std::string, std::optional<std::string>> visible;
};

bool is_one_of(history h, std::initializer_list<history> set) {
  for (const history member : set) {
    if (h == member) return true;
  }
  return false;
}

// Builds the committed history and begins the reader (the writes of later transactions and of
// the reader come in write_after_begin).
void write_before_begin(scenario& s, const std::vector<history>& histories, isolation level) {
  transaction first = s.db->begin();
  for (std::size_t k = 0; k < s.keys.size(); ++k) {
    if (is_one_of(histories[k], {history::never_written, history::inserted_later, history::inserted_by_open,
                                 history::inserted_by_reader})) {
      continue;
    }
    ASSERT_EQ(first.insert(s.t, s.keys[k], "first-" + std::to_string(k)), status::ok);
    s.visible[s.keys[k]] = "first-" + std::to_string(k);
  }
  ASSERT_EQ(first.commit(), status::ok);
  transaction second = s.db->begin();
  for (std::size_t k = 0; k < s.keys.size(); ++k) {
    if (histories[k] == history::updated_before) {
      ASSERT_EQ(second.update(s.t, s.keys[k], "second"), status::ok);
      s.visible[s.keys[k]] = "second";
    } else if (is_one_of(histories[k], {history::deleted_before, history::deleted_and_reinserted})) {
      ASSERT_EQ(second.remove(s.t, s.keys[k]), status::ok);
      s.visible[s.keys[k]] = std::nullopt;
    }
  }
  ASSERT_EQ(second.commit(), status::ok);
  transaction third = s.db->begin();
  for (std::size_t k = 0; k < s.keys.size(); ++k) {
    if (histories[k] != history::deleted_and_reinserted) continue;
    ASSERT_EQ(third.insert(s.t, s.keys[k], "again"), status::ok);
    s.visible[s.keys[k]] = "again";
  }
  ASSERT_EQ(third.commit(), status::ok);
  s.reader = s.db->begin(level);
}

// What round `round` of the transactions after the reader's begin writes to a key (ok: nothing).
status write_later(transaction& later, table_handle t, history h, const std::string& key, std::size_t round) {
  const std::string value = "later-" + std::to_string(round);
  if (h == history::updated_later) return later.update(t, key, value);
  if (round > 0) return status::ok;
  if (h == history::deleted_later) return later.remove(t, key);
  if (h == history::inserted_later) return later.insert(t, key, value);
  return status::ok;
}

// What the transaction that stays open writes to a key (ok: nothing).
status write_open(transaction& open, table_handle t, history h, const std::string& key) {
  if (h == history::written_by_open) return open.update(t, key, "open");
  if (h == history::inserted_by_open) return open.insert(t, key, "open");
  return status::ok;
}

void write_after_begin(scenario& s, const std::vector<history>& histories, std::mt19937_64& random) {
  const std::size_t later_rounds = 1 + random() % 4;  // a chain of up to 4 newer versions to skip
  for (std::size_t round = 0; round < later_rounds; ++round) {
    transaction later = s.db->begin();
    for (std::size_t k = 0; k < s.keys.size(); ++k) {
      ASSERT_EQ(write_later(later, s.t, histories[k], s.keys[k], round), status::ok);
    }
    ASSERT_EQ(later.commit(), status::ok);
  }
  s.open_writer = s.db->begin();
  for (std::size_t k = 0; k < s.keys.size(); ++k) {
    ASSERT_EQ(write_open(s.open_writer, s.t, histories[k], s.keys[k]), status::ok);
  }
  for (std::size_t k = 0; k < s.keys.size(); ++k) {
    if (histories[k] == history::updated_by_reader) {
      ASSERT_EQ(s.reader.update(s.t, s.keys[k], "own-a"), status::ok);
      ASSERT_EQ(s.reader.update(s.t, s.keys[k], "own-b"), status::ok);
      s.visible[s.keys[k]] = "own-b";
    } else if (histories[k] == history::inserted_by_reader) {
      ASSERT_EQ(s.reader.insert(s.t, s.keys[k], "own"), status::ok);
      s.visible[s.keys[k]] = "own";
    } else if (histories[k] == history::removed_by_reader) {
      ASSERT_EQ(s.reader.remove(s.t, s.keys[k]), status::ok);
      s.visible[s.keys[k]] = std::nullopt;
    }
  }
}

void build(scenario& s, std::size_t key_count, isolation level, std::mt19937_64& random) {
  s.db = braid::txn::testing::in_memory_database("t", s.t);
  std::vector<history> histories;
  for (std::size_t k = 0; k < key_count; ++k) {
    s.keys.push_back(key_of(k));
    histories.push_back(static_cast<history>(random() % static_cast<std::size_t>(history::count)));
  }
  write_before_begin(s, histories, level);
  write_after_begin(s, histories, random);
}

// A random list over the scenario's keys, with absent keys, duplicates and now and then a bad key.
std::vector<std::string_view> random_list(const scenario& s, std::size_t size, std::mt19937_64& random,
                                          std::vector<std::string>& storage) {
  static const std::string too_long(braid::txn::max_key_bytes + 1, 'x');
  storage.clear();
  storage.reserve(size);
  std::vector<std::string_view> list;
  for (std::size_t i = 0; i < size; ++i) {
    const std::size_t pick = random() % 100;
    if (pick < 10) {
      storage.push_back("absent-" + std::to_string(random() % 50));  // may repeat
      list.emplace_back(storage.back());
    } else if (pick < 20 && !list.empty()) {
      list.push_back(list[random() % list.size()]);  // a duplicate
    } else if (pick == 20) {
      list.emplace_back(random() % 2 == 0 ? std::string_view() : std::string_view(too_long));
    } else {
      list.emplace_back(s.keys[random() % s.keys.size()]);
    }
  }
  return list;
}

class multi_get_differential : public ::testing::TestWithParam<isolation> {};

TEST_P(multi_get_differential, every_technique_and_group_equals_a_loop_of_get) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 random(seed);
    scenario s;
    // Mostly small tables, some with a Masstree of three levels.
    const std::size_t key_count = seed % 10 == 0 ? 3000 : 1 + random() % 600;
    build(s, key_count, GetParam(), random);
    if (HasFatalFailure()) return;
    std::vector<std::string> storage;
    expect_like_get(s.reader, s.t, {}, &s.visible);
    expect_like_get(s.reader, s.t, random_list(s, 1, random, storage), &s.visible);
    for (int list = 0; list < 4; ++list) {
      expect_like_get(s.reader, s.t, random_list(s, 2 + random() % 100, random, storage), &s.visible);
      if (HasFatalFailure()) return;
    }
    EXPECT_TRUE(s.reader.is_open());
  }
}

INSTANTIATE_TEST_SUITE_P(levels, multi_get_differential,
                         ::testing::Values(isolation::snapshot, isolation::serializable),
                         [](const auto& info) { return info.param == isolation::snapshot ? "snapshot" : "serializable"; });

using multi_get = braid::txn::testing::one_table_database;

TEST_F(multi_get, bad_keys_are_per_key_invalid_arguments_as_get_gives_them) {
  auto writer = db->begin();
  const std::string longest(braid::txn::max_key_bytes, 'y');
  ASSERT_EQ(writer.insert(t, longest, "longest"), status::ok);
  ASSERT_EQ(writer.insert(t, "fine", "value"), status::ok);
  ASSERT_EQ(writer.commit(), status::ok);
  auto tx = db->begin();
  const std::string too_long(braid::txn::max_key_bytes + 1, 'y');
  const std::vector<std::string_view> keys = {"fine", too_long, "", longest, "absent"};
  for (const multi_get_technique technique : techniques) {
    std::vector<std::string> values(keys.size());
    std::vector<status> statuses(keys.size());
    ASSERT_EQ(tx.multi_get(t, keys, values, statuses, technique, 2), status::ok);
    EXPECT_EQ(statuses, (std::vector<status>{status::ok, status::invalid_argument, status::invalid_argument,
                                             status::ok, status::not_found}))
        << name_of(technique);
    EXPECT_EQ(values[0], "value");
    EXPECT_EQ(values[3], "longest");
  }
  expect_like_get(tx, t, keys);
}

TEST_F(multi_get, argument_errors) {
  auto tx = db->begin();
  const std::vector<std::string_view> keys = {"a", "b"};
  std::vector<std::string> values(2);
  std::vector<std::string> short_values(1);
  std::vector<status> statuses(2);
  std::vector<status> long_statuses(3);
  table_handle other_table;
  auto other = braid::txn::testing::in_memory_database("t", other_table);
  for (const multi_get_technique technique : techniques) {
    SCOPED_TRACE(name_of(technique));
    EXPECT_EQ(tx.multi_get(t, keys, short_values, statuses, technique), status::invalid_argument);
    EXPECT_EQ(tx.multi_get(t, keys, values, long_statuses, technique), status::invalid_argument);
    EXPECT_EQ(tx.multi_get(t, keys, values, statuses, technique, 0), status::invalid_argument);
    EXPECT_EQ(tx.multi_get(table_handle{}, keys, values, statuses, technique), status::unknown_table);
    EXPECT_EQ(tx.multi_get(other_table, keys, values, statuses, technique), status::unknown_table);
    EXPECT_EQ(tx.multi_get(t, keys, values, statuses, static_cast<multi_get_technique>(7)), status::invalid_argument);
    EXPECT_EQ(tx.multi_get(t, {}, {}, {}, technique, 1000), status::ok);  // a group beyond the batch
  }
  EXPECT_TRUE(tx.is_open());
}

TEST_F(multi_get, a_transaction_that_is_over_returns_what_get_returns) {
  const std::vector<std::string_view> keys = {"a"};
  std::vector<std::string> values(1);
  std::vector<status> statuses(1);
  auto committed = db->begin();
  ASSERT_EQ(committed.commit(), status::ok);
  auto aborted = db->begin();
  ASSERT_EQ(aborted.abort(), status::abort_user);
  auto conflicted = db->begin();
  {
    auto first = db->begin();
    ASSERT_EQ(first.insert(t, "a", "1"), status::ok);
    ASSERT_EQ(conflicted.upsert(t, "a", "2"), status::abort_write_conflict);
  }
  transaction never_begun;
  for (const multi_get_technique technique : techniques) {
    SCOPED_TRACE(name_of(technique));
    EXPECT_EQ(committed.multi_get(t, keys, values, statuses, technique), status::invalid_argument);
    EXPECT_EQ(aborted.multi_get(t, keys, values, statuses, technique), status::abort_user);
    EXPECT_EQ(conflicted.multi_get(t, keys, values, statuses, technique), status::abort_write_conflict);
    EXPECT_EQ(never_begun.multi_get(t, keys, values, statuses, technique), status::invalid_argument);
  }
}

// G2-item write skew whose reads are multi_gets: the certifier can refuse the second commit
// only if multi_get registered the reads, as get does.
TEST_F(multi_get, serializable_reads_are_registered_for_the_certifier) {
  auto setup = db->begin();
  ASSERT_EQ(setup.insert(t, "1", "10"), status::ok);
  ASSERT_EQ(setup.insert(t, "2", "20"), status::ok);
  ASSERT_EQ(setup.commit(), status::ok);
  const std::vector<std::string_view> keys = {"1", "2"};
  for (const multi_get_technique technique : techniques) {
    for (const isolation level : {isolation::snapshot, isolation::serializable}) {
      SCOPED_TRACE(std::string(name_of(technique)) + (level == isolation::serializable ? ", serializable" : ""));
      auto t1 = db->begin(level);
      auto t2 = db->begin(level);
      std::vector<std::string> values(2);
      std::vector<status> statuses(2);
      ASSERT_EQ(t1.multi_get(t, keys, values, statuses, technique, 2), status::ok);
      ASSERT_EQ(t2.multi_get(t, keys, values, statuses, technique, 2), status::ok);
      EXPECT_EQ(statuses, (std::vector<status>{status::ok, status::ok}));
      const std::string v1 = values[0];
      const std::string v2 = values[1];
      ASSERT_EQ(t1.update(t, "1", v1 + "+"), status::ok);
      ASSERT_EQ(t2.update(t, "2", v2 + "+"), status::ok);
      EXPECT_EQ(t1.commit(), status::ok);
      EXPECT_EQ(t2.commit(), level == isolation::serializable ? status::abort_serialization : status::ok);
    }
  }
}

// Reads of a read-only transaction leave it committable; a multi_get can be followed by writes.
TEST_F(multi_get, the_transaction_goes_on_after_it) {
  auto tx = db->begin(isolation::serializable);
  ASSERT_EQ(tx.insert(t, "a", "1"), status::ok);
  const std::vector<std::string_view> keys = {"a", "b", "a"};
  std::vector<std::string> values(3);
  std::vector<status> statuses(3);
  ASSERT_EQ(tx.multi_get(t, keys, values, statuses, multi_get_technique::amac, 3), status::ok);
  EXPECT_EQ(statuses, (std::vector<status>{status::ok, status::not_found, status::ok}));
  EXPECT_EQ(values[0], "1");
  EXPECT_EQ(values[2], "1");
  ASSERT_EQ(tx.insert(t, "b", "2"), status::ok);
  ASSERT_EQ(tx.multi_get(t, keys, values, statuses, multi_get_technique::coroutines, 2), status::ok);
  EXPECT_EQ(values[1], "2");
  EXPECT_EQ(tx.commit(), status::ok);
}

}  // namespace
