// braid-test: concurrent
// Durable databases end to end: what a reopen finds in each log mode (sync and async: every
// commit; none: only checkpoints), a checkpoint followed by more commits, background
// checkpoints while two threads commit, a log tail cut at every kind of length or with a bit
// flipped (a torn tail: cut and reported), damage before the tail (corrupt, naming the file
// and offset, nothing changed), directories that are not braid databases or of another format
// version, secondary indexes declared again, and pipelined commit.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "braid/txn/database.hpp"
#include "braid/txn/detail/checkpoint_format.hpp"
#include "braid/txn/detail/log_format.hpp"
#include "braid/txn/detail/on_disk.hpp"
#include "braid/txn/manifest.hpp"
#include "txn/durable_test_support.hpp"
#include "txn/txn_test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace braid::txn;
using namespace braid::txn::testing;

std::unique_ptr<database> open_database(const database_options& options, std::string* torn_message = nullptr) {
  std::unique_ptr<database> db;
  std::string message;
  const status s = database::open(options, db, message);
  EXPECT_EQ(s, status::ok) << message;
  if (torn_message != nullptr) {
    *torn_message = message;
  } else {
    EXPECT_EQ(message, "") << "an undamaged log reopens without a message";
  }
  return db;
}

table_handle table_named(database& db, const std::string& name) {
  table_handle table;
  EXPECT_EQ(db.find_table(name, table), status::ok) << name;
  return table;
}

// Random transactions over a few tables, applied to the database and, when they commit, to a
// model of the committed rows. Keys go up to max_key_bytes, values up to max_value_bytes (and
// hold every byte value); a transaction inserts, updates, upserts and removes, checks each
// status against the model, and commits or (one in eight) aborts.
class random_writer {
 public:
  random_writer(std::uint64_t seed, std::vector<std::string> tables, std::string key_prefix = "", std::size_t key_space = 48)
      : random_(seed), tables_(std::move(tables)), key_prefix_(std::move(key_prefix)), key_space_(key_space) {}

  void run(database& db, database_rows& model, std::size_t transactions) {
    for (std::size_t index = 0; index < transactions && !::testing::Test::HasFatalFailure(); ++index) {
      one_transaction(db, model);
    }
  }

  // Commits that wrote something (a commit without writes leaves no log record).
  std::size_t commits() const noexcept { return commits_; }

 private:
  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random_); }

  std::string key() {
    const std::size_t index = pick(key_space_);
    std::string k = key_prefix_ + "k" + std::to_string(index);
    if (index % 9 == 0) k.resize(max_key_bytes, static_cast<char>('A' + index % 26));  // the longest key
    else if (index % 4 == 0) k.resize(k.size() + 50 + index * 7, '.');
    return k;
  }

  std::string value() {
    const std::size_t kind = pick(40);
    const std::size_t size = kind == 0 ? max_value_bytes : kind < 3 ? pick(8192) : kind < 5 ? 0 : pick(80);
    std::string v(size, '\0');
    for (char& byte : v) byte = static_cast<char>(random_());
    return v;
  }

  void one_transaction(database& db, database_rows& model) {
    transaction tx = db.begin();
    std::map<std::pair<std::string, std::string>, std::optional<std::string>> writes;
    auto sees = [&](const std::string& table, const std::string& k) -> std::optional<std::string> {
      if (auto w = writes.find({table, k}); w != writes.end()) return w->second;
      const auto& rows = model[table];
      if (auto r = rows.find(k); r != rows.end()) return r->second;
      return std::nullopt;
    };
    const std::size_t operations = 1 + pick(4);
    for (std::size_t op = 0; op < operations; ++op) {
      const std::string& name = tables_[pick(tables_.size())];
      const table_handle table = table_named(db, name);
      const std::string k = key();
      const std::optional<std::string> before = sees(name, k);
      switch (pick(5)) {
        case 0: {
          std::string got;
          const status s = tx.get(table, k, got);
          ASSERT_EQ(s, before ? status::ok : status::not_found);
          if (before) {
            ASSERT_EQ(got, *before);
          }
          break;
        }
        case 1: {
          const std::string v = value();
          ASSERT_EQ(tx.insert(table, k, v), before ? status::already_exists : status::ok);
          if (!before) writes[{name, k}] = v;
          break;
        }
        case 2: {
          const std::string v = value();
          ASSERT_EQ(tx.update(table, k, v), before ? status::ok : status::not_found);
          if (before) writes[{name, k}] = v;
          break;
        }
        case 3: {
          const std::string v = value();
          ASSERT_EQ(tx.upsert(table, k, v), status::ok);
          writes[{name, k}] = v;
          break;
        }
        default:
          ASSERT_EQ(tx.remove(table, k), before ? status::ok : status::not_found);
          if (before) writes[{name, k}] = std::nullopt;
          break;
      }
    }
    if (pick(8) == 0) {
      ASSERT_EQ(tx.abort(), status::abort_user);
      return;
    }
    ASSERT_EQ(tx.commit(), status::ok);
    if (!writes.empty()) ++commits_;
    for (const auto& [where, v] : writes) {
      if (v) model[where.first][where.second] = *v;
      else model[where.first].erase(where.second);
    }
  }

  std::mt19937_64 random_;
  std::vector<std::string> tables_;
  std::string key_prefix_;
  std::size_t key_space_;
  std::size_t commits_ = 0;
};

// Tables named in the model are created unless present.
void create_tables(database& db, database_rows& model, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    table_handle table;
    if (db.find_table(name, table) != status::ok) {
      ASSERT_EQ(db.create_table(name, table), status::ok) << name;
    }
    model[name];
  }
}

const std::vector<std::string> two_tables{"accounts", "orders"};

TEST(Recovery, SyncAndAsyncKeepEveryCommitAcrossReopens) {
  for (const commit_mode mode : {commit_mode::sync, commit_mode::async}) {
    SCOPED_TRACE(mode == commit_mode::sync ? "sync" : "async");
    temp_directory directory;
    const database_options options = durable_options(directory.path(), mode, 16 * 1024);
    database_rows model;
    random_writer writer(mode == commit_mode::sync ? 1 : 2, two_tables);
    for (int session = 0; session < 3; ++session) {
      auto db = open_database(options);
      ASSERT_NE(db, nullptr);
      ASSERT_TRUE(db->is_durable());
      if (session > 0) {
        EXPECT_EQ(all_rows(*db, two_tables), model) << "session " << session;
      }
      ASSERT_NO_FATAL_FAILURE(create_tables(*db, model, two_tables));
      const std::size_t before = writer.commits();
      ASSERT_NO_FATAL_FAILURE(writer.run(*db, model, 70));
      const log_stats stats = db->log_statistics();
      EXPECT_GE(stats.commits, writer.commits() - before);
      EXPECT_GT(stats.bytes, 0u);
      if (mode == commit_mode::sync) {
        EXPECT_GT(stats.fsyncs, 0u);
      }
      EXPECT_EQ(all_rows(*db, two_tables), model);
    }
    EXPECT_GT(log_segments(directory.path()).size(), 3u) << "small segments: the log rolled over";
    auto db = open_database(options);
    EXPECT_EQ(all_rows(*db, two_tables), model);
  }
}

TEST(Recovery, LogModeNoneKeepsOnlyCheckpoints) {
  temp_directory directory;
  const database_options options = durable_options(directory.path(), commit_mode::none, 4096);
  database_rows model;
  random_writer writer(3, two_tables);
  {
    auto db = open_database(options);
    ASSERT_NO_FATAL_FAILURE(create_tables(*db, model, two_tables));
    ASSERT_NO_FATAL_FAILURE(writer.run(*db, model, 40));
    EXPECT_GT(db->log_statistics().commits, 0u);
    EXPECT_EQ(db->log_statistics().fsyncs, 0u);
  }
  EXPECT_TRUE(log_segments(directory.path()).empty()) << "mode none writes no segment";
  {
    auto db = open_database(options);
    table_handle gone;
    EXPECT_EQ(db->find_table("accounts", gone), status::unknown_table) << "nothing was checkpointed, nothing survives";
    model.clear();
    ASSERT_NO_FATAL_FAILURE(create_tables(*db, model, two_tables));
    ASSERT_NO_FATAL_FAILURE(writer.run(*db, model, 40));
    std::string message;
    ASSERT_EQ(db->checkpoint(message), status::ok) << message;
    const database_rows checkpointed = model;
    ASSERT_NO_FATAL_FAILURE(writer.run(*db, model, 40));  // after the checkpoint: lost at the reopen
    ASSERT_NO_FATAL_FAILURE(create_tables(*db, model, {"late"}));
    model = checkpointed;
  }
  auto db = open_database(options);
  EXPECT_EQ(all_rows(*db, {"accounts", "orders", "late"}), model);
  // A database written in mode none opens in sync mode too, and from then on keeps commits.
  db.reset();
  database_options sync = options;
  sync.log_mode = commit_mode::sync;
  db = open_database(sync);
  ASSERT_NO_FATAL_FAILURE(writer.run(*db, model, 10));
  db.reset();
  db = open_database(sync);
  EXPECT_EQ(all_rows(*db, two_tables), model);
}

TEST(Recovery, CheckpointThenMoreCommitsThenReopen) {
  temp_directory directory;
  const database_options options = durable_options(directory.path(), commit_mode::sync, 2048);
  database_rows model;
  random_writer writer(4, two_tables);
  {
    auto db = open_database(options);
    ASSERT_NO_FATAL_FAILURE(create_tables(*db, model, two_tables));
    ASSERT_NO_FATAL_FAILURE(writer.run(*db, model, 60));
    const std::size_t segments_before = log_segments(directory.path()).size();
    ASSERT_GT(segments_before, 2u);
    std::string message;
    ASSERT_EQ(db->checkpoint(message), status::ok) << message;
    EXPECT_EQ(files_with_prefix(directory.path(), "checkpoint-").size(), 1u);
    EXPECT_LT(log_segments(directory.path()).size(), segments_before) << "the checkpoint truncated the log";
    // The log tail: updates and removals of checkpointed rows, a table created after it.
    ASSERT_NO_FATAL_FAILURE(writer.run(*db, model, 60));
    ASSERT_NO_FATAL_FAILURE(create_tables(*db, model, {"after"}));
    transaction tx = db->begin();
    ASSERT_EQ(tx.insert(table_named(*db, "after"), "only", "row"), status::ok);
    ASSERT_EQ(tx.commit(), status::ok);
    model["after"]["only"] = "row";
  }
  const std::vector<std::string> tables{"accounts", "orders", "after"};
  {
    auto db = open_database(options);
    EXPECT_EQ(all_rows(*db, tables), model);
    // A checkpoint right after recovery, nothing after it: the same rows again.
    std::string message;
    ASSERT_EQ(db->checkpoint(message), status::ok) << message;
    ASSERT_EQ(db->checkpoint(message), status::ok) << message;  // twice: the older one goes
    EXPECT_EQ(files_with_prefix(directory.path(), "checkpoint-").size(), 1u);
  }
  {
    auto db = open_database(options);
    EXPECT_EQ(all_rows(*db, tables), model);
    ASSERT_NO_FATAL_FAILURE(writer.run(*db, model, 20));
  }
  auto db = open_database(options);
  EXPECT_EQ(all_rows(*db, tables), model);
}

// A checkpoint reads each table in batches of keys: many rows, keys that are prefixes of one
// another (with zero bytes), keys of the longest length on batch boundaries.
TEST(Recovery, CheckpointOfManyRowsAndAwkwardKeys) {
  temp_directory directory;
  const database_options options = durable_options(directory.path(), commit_mode::async, 64 * 1024);
  std::mt19937_64 random(12);
  std::map<std::string, std::string> model;
  {
    auto db = open_database(options);
    table_handle table;
    ASSERT_EQ(db->create_table("rows", table), status::ok);
    std::vector<std::string> keys;
    for (int index = 0; index < 1200; ++index) {
      std::string key = "row" + std::to_string(index);
      if (index % 5 == 0) key.resize(max_key_bytes, static_cast<char>(index % 7));  // zero bytes inside, longest
      else if (index % 5 == 1) key.append(std::string(index % 4, '\0'));                  // prefixes of each other
      keys.push_back(key);
    }
    keys.push_back(std::string(1, '\0'));
    keys.push_back(std::string(max_key_bytes, '\xff'));
    for (std::size_t first = 0; first < keys.size(); first += 100) {
      transaction tx = db->begin();
      for (std::size_t index = first; index < std::min(keys.size(), first + 100); ++index) {
        std::string value(random() % 2048, '\0');
        for (char& byte : value) byte = static_cast<char>(random());
        ASSERT_EQ(tx.upsert(table, keys[index], value), status::ok);
        model[keys[index]] = value;
      }
      ASSERT_EQ(tx.commit(), status::ok);
    }
    std::string message;
    ASSERT_EQ(db->checkpoint(message), status::ok) << message;
    EXPECT_EQ(table_rows(*db, table), model);
  }
  for (int session = 0; session < 2; ++session) {
    auto db = open_database(options);
    const table_handle table = table_named(*db, "rows");
    EXPECT_EQ(table_rows(*db, table), model) << "session " << session;
    // Remove every third row, then checkpoint again: the log before it goes.
    transaction tx = db->begin();
    std::size_t index = 0;
    for (auto it = model.begin(); it != model.end(); ++index) {
      if (index % 3 == static_cast<std::size_t>(session)) {
        ASSERT_EQ(tx.remove(table, it->first), status::ok);
        it = model.erase(it);
      } else {
        ++it;
      }
    }
    ASSERT_EQ(tx.commit(), status::ok);
    std::string message;
    ASSERT_EQ(db->checkpoint(message), status::ok) << message;
  }
  auto db = open_database(options);
  EXPECT_EQ(table_rows(*db, table_named(*db, "rows")), model);
}

TEST(Recovery, BackgroundCheckpointsWhileTwoThreadsCommit) {
  for (const commit_mode mode : {commit_mode::sync, commit_mode::async}) {
    SCOPED_TRACE(mode == commit_mode::sync ? "sync" : "async");
    temp_directory directory;
    database_options options = durable_options(directory.path(), mode, 8192);
    options.checkpoint_interval = std::chrono::milliseconds(3);
    database_rows models[2];
    {
      auto db = open_database(options);
      ASSERT_NO_FATAL_FAILURE(create_tables(*db, models[0], two_tables));
      ASSERT_NO_FATAL_FAILURE(create_tables(*db, models[1], two_tables));
      std::vector<std::thread> threads;
      for (int who = 0; who < 2; ++who) {
        threads.emplace_back([&, who] {
          // Each thread its own keys: its model is exact whatever the interleaving.
          random_writer writer(10 + who, two_tables, "thread" + std::to_string(who) + "/", 32);
          writer.run(*db, models[who], mode == commit_mode::sync ? 120 : 1000);
        });
      }
      // Explicit checkpoints besides the background ones.
      std::string message;
      for (int round = 0; round < 5; ++round) EXPECT_EQ(db->checkpoint(message), status::ok) << message;
      for (std::thread& thread : threads) thread.join();
      EXPECT_EQ(db->checkpoint_failure(), "");
    }
    EXPECT_EQ(files_with_prefix(directory.path(), "checkpoint-").size(), 1u) << "the checkpointer ran";
    database_rows model = models[0];
    for (const auto& [table, rows] : models[1]) model[table].insert(rows.begin(), rows.end());
    auto db = open_database(options);
    EXPECT_EQ(all_rows(*db, two_tables), model);
    EXPECT_EQ(db->checkpoint_failure(), "");
  }
}

// ---- damaged logs ----

// A database whose table "log" holds keys c0, c1, ... , one per commit, spread over many
// segments; the last segment holds only commits, at least three.
struct numbered_commits {
  explicit numbered_commits(std::size_t at_least) {
    auto db = open_database(durable_options(directory.path(), commit_mode::sync, 1024));
    table_handle table;
    EXPECT_EQ(db->create_table("log", table), status::ok);
    std::mt19937_64 random(at_least);
    for (count = 0; count < at_least || segment_blocks(read_bytes(log_segments(directory.path()).back())).size() < 3; ++count) {
      transaction tx = db->begin();
      const std::size_t size = count < at_least ? random() % 300 : 10;
      EXPECT_EQ(tx.insert(table, key(count), std::string(size, static_cast<char>('a' + count % 26))), status::ok);
      EXPECT_EQ(tx.commit(), status::ok);
    }
    db.reset();
    segments = log_segments(directory.path());
    last = read_bytes(segments.back());
    blocks = segment_blocks(last);
    EXPECT_GT(segments.size(), 3u);
    EXPECT_GE(blocks.size(), 3u);
    for (const block_extent& block : blocks) {
      for (const auto& record : block.records) EXPECT_NE(record.op, log_op::create_table);
    }
  }

  static std::string key(std::size_t index) { return "c" + std::to_string(index); }

  // The keys of the first `count` commits.
  std::set<std::string> first(std::size_t count) const {
    std::set<std::string> keys;
    for (std::size_t index = 0; index < count; ++index) keys.insert(key(index));
    return keys;
  }

  temp_directory directory;
  std::size_t count = 0;  // commits, one block each
  std::vector<fs::path> segments;
  std::string last;
  std::vector<block_extent> blocks;
};

std::set<std::string> keys_of(database& db, const std::string& table) {
  std::set<std::string> keys;
  for (const auto& [key, value] : table_rows(db, table_named(db, table))) keys.insert(key);
  return keys;
}

// Reopens a damaged copy: ok with a torn-tail message exactly when `torn`, and the first
// `survivors` commits present; then a commit appends after the cut and a second reopen is clean.
void expect_recovers(const fs::path& copy, bool torn, std::size_t survivors, const numbered_commits& original) {
  const database_options options = durable_options(copy, commit_mode::sync, 1024);
  std::string message;
  {
    auto db = open_database(options, &message);
    ASSERT_NE(db, nullptr);
    if (torn) {
      EXPECT_NE(message.find("torn"), std::string::npos) << message;
      EXPECT_NE(message.find(original.segments.back().filename().string()), std::string::npos) << message;
    } else {
      EXPECT_EQ(message, "");
    }
    std::set<std::string> expected = original.first(survivors);
    EXPECT_EQ(keys_of(*db, "log"), expected);
    transaction tx = db->begin();
    ASSERT_EQ(tx.insert(table_named(*db, "log"), "after-the-cut", "x"), status::ok);
    ASSERT_EQ(tx.commit(), status::ok);
  }
  auto db = open_database(options);
  std::set<std::string> expected = original.first(survivors);
  expected.insert("after-the-cut");
  EXPECT_EQ(keys_of(*db, "log"), expected);
}

TEST(Recovery, LastSegmentCutAtAnyLengthIsATornTail) {
  const numbered_commits original(60);
  const std::size_t in_earlier_segments = original.count - original.blocks.size();
  std::set<std::size_t> boundaries{detail::file_header_bytes};
  for (const block_extent& block : original.blocks) boundaries.insert(block.end);
  ASSERT_EQ(original.blocks.back().end, original.last.size());
  std::set<std::size_t> lengths{0, 1, 17, detail::file_header_bytes - 1, detail::file_header_bytes};
  for (const block_extent& block : original.blocks) {
    lengths.insert(block.begin + 1);
    lengths.insert(block.begin + detail::block_header_bytes);
    lengths.insert(block.end - 1);
    lengths.insert(block.end);
  }
  std::mt19937_64 random(8);
  for (int index = 0; index < 12; ++index) lengths.insert(random() % original.last.size());
  for (const std::size_t length : lengths) {
    SCOPED_TRACE("cut at " + std::to_string(length) + " of " + std::to_string(original.last.size()));
    temp_directory copy;
    copy_directory(original.directory.path(), copy.path());
    braid::txn::testing::truncate_file(copy.path() / original.segments.back().filename(), length);
    std::size_t whole_blocks = 0;
    for (const block_extent& block : original.blocks) whole_blocks += block.end <= length ? 1 : 0;
    ASSERT_NO_FATAL_FAILURE(expect_recovers(copy.path(), !boundaries.contains(length), in_earlier_segments + whole_blocks, original));
  }
}

TEST(Recovery, BitFlipInTheLastBlockIsATornTail) {
  const numbered_commits original(40);
  const block_extent& tail = original.blocks.back();
  std::mt19937_64 random(9);
  std::set<std::size_t> offsets{tail.begin, tail.begin + 4, tail.begin + 8, tail.begin + 20, tail.end - 1};
  for (int index = 0; index < 8; ++index) offsets.insert(tail.begin + random() % (tail.end - tail.begin));
  for (const std::size_t offset : offsets) {
    SCOPED_TRACE("bit flip at " + std::to_string(offset));
    temp_directory copy;
    copy_directory(original.directory.path(), copy.path());
    flip_bit(copy.path() / original.segments.back().filename(), offset, static_cast<int>(random() % 8));
    ASSERT_NO_FATAL_FAILURE(expect_recovers(copy.path(), true, original.count - 1, original));
  }
}

// Damage that is not a torn tail: open refuses with `expected`, the message names the file
// (and the offset, when given), and nothing in the directory changed; undoing the damage
// brings every commit back.
void expect_refused_then_whole(const fs::path& directory, const fs::path& damaged_file, const std::string& intact_bytes,
                               status expected, std::optional<std::uint64_t> offset, const std::set<std::string>& keys) {
  const auto before = directory_bytes(directory);
  const database_options options = durable_options(directory, commit_mode::sync, 1024);
  std::unique_ptr<database> db;
  std::string message;
  EXPECT_EQ(database::open(options, db, message), expected) << message;
  EXPECT_EQ(db, nullptr);
  EXPECT_NE(message.find(damaged_file.string()), std::string::npos) << message;
  if (offset) {
    EXPECT_NE(message.find("byte offset " + std::to_string(*offset)), std::string::npos) << message;
  }
  EXPECT_EQ(directory_bytes(directory), before) << "a refused open changes nothing";
  write_bytes(damaged_file, intact_bytes);
  db = open_database(options);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(keys_of(*db, "log"), keys);
}

TEST(Recovery, DamageBeforeTheTailIsCorruptNamingFileAndOffset) {
  const numbered_commits original(50);
  std::mt19937_64 random(10);
  // A block of the last segment followed by intact ones, then a block of every earlier segment.
  std::vector<std::pair<fs::path, std::string>> targets{{original.segments.back(), original.last}};
  for (std::size_t index = 0; index + 1 < original.segments.size(); ++index) {
    targets.emplace_back(original.segments[index], read_bytes(original.segments[index]));
  }
  for (std::size_t target = 0; target < targets.size(); ++target) {
    const auto& [path, bytes] = targets[target];
    const std::vector<block_extent> blocks = braid::txn::testing::segment_blocks(bytes);
    if (blocks.empty()) continue;
    // Not the last block of the last segment (that one is a torn tail).
    const std::size_t candidates = target == 0 ? blocks.size() - 1 : blocks.size();
    const block_extent& block = blocks[random() % candidates];
    const std::size_t offset = block.begin + random() % (block.end - block.begin);
    SCOPED_TRACE(path.filename().string() + " bit flip at " + std::to_string(offset));
    temp_directory copy;
    copy_directory(original.directory.path(), copy.path());
    const fs::path damaged = copy.path() / path.filename();
    flip_bit(damaged, offset, static_cast<int>(random() % 8));
    ASSERT_NO_FATAL_FAILURE(expect_refused_then_whole(copy.path(), damaged, bytes, status::corrupt, block.begin, original.first(original.count)));
  }
}

TEST(Recovery, SegmentOfAnotherFormatVersionOrMissingIsRefused) {
  const numbered_commits original(30);
  for (const std::size_t which : {std::size_t{0}, original.segments.size() / 2, original.segments.size() - 1}) {
    temp_directory copy;
    copy_directory(original.directory.path(), copy.path());
    const fs::path segment = copy.path() / original.segments[which].filename();
    const std::string bytes = read_bytes(segment);
    std::uint64_t number = 0;
    ASSERT_TRUE(detail::parse_segment_file_name(segment.filename().string(), number));
    const auto header = detail::encode_file_header({detail::log_segment_magic, detail::log_format_version + 1, number});
    std::string changed = bytes;
    changed.replace(0, header.size(), reinterpret_cast<const char*>(header.data()), header.size());
    write_bytes(segment, changed);
    ASSERT_NO_FATAL_FAILURE(expect_refused_then_whole(copy.path(), segment, bytes, status::format_mismatch, std::nullopt, original.first(original.count)));
  }
  // A segment missing in the middle: corrupt, naming the segments around the gap.
  temp_directory copy;
  copy_directory(original.directory.path(), copy.path());
  const fs::path middle = copy.path() / original.segments[1].filename();
  const std::string bytes = read_bytes(middle);
  fs::remove(middle);
  const auto before = directory_bytes(copy.path());
  std::unique_ptr<database> db;
  std::string message;
  EXPECT_EQ(database::open(durable_options(copy.path(), commit_mode::sync, 1024), db, message), status::corrupt);
  EXPECT_NE(message.find(original.segments[0].filename().string()), std::string::npos) << message;
  EXPECT_EQ(directory_bytes(copy.path()), before);
  write_bytes(middle, bytes);
  db = open_database(durable_options(copy.path(), commit_mode::sync, 1024));
  EXPECT_EQ(keys_of(*db, "log"), original.first(original.count));
}

TEST(Recovery, DamagedCheckpointIsCorruptAndChangesNothing) {
  temp_directory directory;
  const database_options options = durable_options(directory.path(), commit_mode::sync, 1024);
  std::set<std::string> keys;
  {
    auto db = open_database(options);
    table_handle table;
    ASSERT_EQ(db->create_table("log", table), status::ok);
    for (int index = 0; index < 20; ++index) {
      transaction tx = db->begin();
      ASSERT_EQ(tx.insert(table, "c" + std::to_string(index), std::string(100, 'v')), status::ok);
      ASSERT_EQ(tx.commit(), status::ok);
      keys.insert("c" + std::to_string(index));
      if (index == 12) {
        std::string message;
        ASSERT_EQ(db->checkpoint(message), status::ok) << message;
      }
    }
  }
  const auto checkpoints = files_with_prefix(directory.path(), "checkpoint-");
  ASSERT_EQ(checkpoints.size(), 1u);
  const std::string bytes = read_bytes(checkpoints[0]);
  flip_bit(checkpoints[0], bytes.size() / 2, 5);
  ASSERT_NO_FATAL_FAILURE(expect_refused_then_whole(directory.path(), checkpoints[0], bytes, status::corrupt, std::nullopt, keys));
}

// ---- directories that are not this version's braid database ----

TEST(Recovery, NotABraidDatabase) {
  temp_directory base;
  const fs::path foreign = base.path() / "photos";
  fs::create_directory(foreign);
  write_bytes(foreign / "cat.jpg", "not a database");
  std::unique_ptr<database> db;
  std::string message;
  EXPECT_EQ(database::open(durable_options(foreign, commit_mode::sync), db, message), status::not_a_database);
  EXPECT_NE(message.find(foreign.string()), std::string::npos) << message;
  EXPECT_EQ(db, nullptr);
  EXPECT_EQ(directory_bytes(foreign), (std::map<std::string, std::string>{{"cat.jpg", "not a database"}}));

  // A database whose MANIFEST is gone is no longer recognized (and is not silently re-created).
  temp_directory directory;
  {
    auto opened = open_database(durable_options(directory.path(), commit_mode::sync));
    table_handle table;
    ASSERT_EQ(opened->create_table("log", table), status::ok);
  }
  const std::string manifest = read_bytes(directory.path() / "MANIFEST");
  fs::remove(directory.path() / "MANIFEST");
  const auto before = directory_bytes(directory.path());
  EXPECT_EQ(database::open(durable_options(directory.path(), commit_mode::sync), db, message), status::not_a_database);
  EXPECT_NE(message.find(directory.path().string()), std::string::npos) << message;
  EXPECT_EQ(directory_bytes(directory.path()), before);
  write_bytes(directory.path() / "MANIFEST", manifest);
  db = open_database(durable_options(directory.path(), commit_mode::sync));
  table_handle table;
  EXPECT_EQ(db->find_table("log", table), status::ok);
}

TEST(Recovery, ManifestOfAnotherFormatVersion) {
  temp_directory directory;
  const database_options options = durable_options(directory.path(), commit_mode::sync, 1024);
  std::set<std::string> keys;
  {
    auto db = open_database(options);
    table_handle table;
    ASSERT_EQ(db->create_table("log", table), status::ok);
    for (int index = 0; index < 10; ++index) {
      transaction tx = db->begin();
      ASSERT_EQ(tx.insert(table, "c" + std::to_string(index), "v"), status::ok);
      ASSERT_EQ(tx.commit(), status::ok);
      keys.insert("c" + std::to_string(index));
    }
  }
  const fs::path manifest = directory.path() / "MANIFEST";
  const std::string bytes = read_bytes(manifest);
  const auto other = detail::encode_file_header({{'B', 'R', 'A', 'I', 'D', 'D', 'B', '\0'}, database_format_version + 1, 0});
  write_bytes(manifest, std::string(reinterpret_cast<const char*>(other.data()), other.size()));
  ASSERT_NO_FATAL_FAILURE(expect_refused_then_whole(directory.path(), manifest, bytes, status::format_mismatch, std::nullopt, keys));
}

// ---- secondary indexes ----

TEST(Recovery, SecondaryIndexesAreDeclaredAgainAfterEveryOpen) {
  temp_directory directory;
  const database_options options = durable_options(directory.path(), commit_mode::sync, 4096);
  // Value "<email>|<age>"; the index maps the email to the record.
  auto email = [](std::string_view value) { return std::string(value.substr(0, value.find('|'))); };
  {
    auto db = open_database(options);
    table_handle users;
    ASSERT_EQ(db->create_table("users", users), status::ok);
    index_handle by_email;
    ASSERT_EQ(db->create_index(users, "by_email", email, by_email), status::ok);
    transaction tx = db->begin();
    for (int user = 0; user < 30; ++user) {
      ASSERT_EQ(tx.insert(users, "u" + std::to_string(user), "u" + std::to_string(user) + "@mail|" + std::to_string(20 + user)),
                status::ok);
    }
    ASSERT_EQ(tx.commit(), status::ok);
  }
  for (int session = 0; session < 3; ++session) {
    SCOPED_TRACE("session " + std::to_string(session));
    auto db = open_database(options);
    const table_handle users = table_named(*db, "users");
    index_handle by_email;
    EXPECT_EQ(db->find_index(users, "by_email", by_email), status::unknown_table) << "indexes are not stored";
    ASSERT_EQ(db->create_index(users, "by_email", email, by_email), status::ok);
    // Each session moved user `session` to a new address; the old one no longer finds it.
    transaction reader = db->begin();
    std::string value;
    for (int user = 0; user < 30; ++user) {
      const std::string address =
          user < session ? "moved" + std::to_string(user) + "@mail" : "u" + std::to_string(user) + "@mail";
      ASSERT_EQ(reader.index_get(by_email, address, value), status::ok) << address;
      EXPECT_EQ(value.substr(0, value.find('|')), address);
      if (user < session) {
        EXPECT_EQ(reader.index_get(by_email, "u" + std::to_string(user) + "@mail", value), status::not_found);
      }
    }
    std::vector<std::string> scanned;
    ASSERT_EQ(reader.index_scan(by_email, "moved", 100, [&](std::string_view key, std::string_view) { scanned.emplace_back(key); }),
              status::ok);
    EXPECT_EQ(scanned.size(), 30u);
    ASSERT_EQ(reader.commit(), status::ok);
    transaction writer = db->begin();
    ASSERT_EQ(writer.update(users, "u" + std::to_string(session), "moved" + std::to_string(session) + "@mail|99"), status::ok);
    ASSERT_EQ(writer.commit(), status::ok);
    std::string message;
    if (session == 1) {
      ASSERT_EQ(db->checkpoint(message), status::ok) << message;
    }
  }
}

// ---- pipelined commit ----

TEST(Recovery, PipelinedCommitsAreDurable) {
  for (const commit_mode mode : {commit_mode::sync, commit_mode::async}) {
    SCOPED_TRACE(mode == commit_mode::sync ? "sync" : "async");
    temp_directory directory;
    const database_options options = durable_options(directory.path(), mode, 4096);
    std::set<std::string> keys;
    {
      auto db = open_database(options);
      table_handle table;
      ASSERT_EQ(db->create_table("log", table), status::ok);
      // Several in flight at once, finished in order.
      std::vector<transaction> in_flight;
      for (int index = 0; index < 8; ++index) {
        in_flight.push_back(db->begin());
        const std::string key = "finished" + std::to_string(index);
        ASSERT_EQ(in_flight.back().insert(table, key, std::string(500, 'f')), status::ok);
        ASSERT_EQ(in_flight.back().precommit(), status::ok);
        EXPECT_TRUE(in_flight.back().is_precommitted());
        EXPECT_FALSE(in_flight.back().is_open());
        std::string value;
        EXPECT_EQ(in_flight.back().get(table, key, value), status::invalid_argument) << "no operations after precommit";
        keys.insert(key);
      }
      // A reader that begins now waits for the disk, then sees every precommitted write.
      {
        transaction reader = db->begin(isolation::snapshot, access::read_only);
        std::string value;
        EXPECT_EQ(reader.get(table, "finished7", value), status::ok);
        EXPECT_EQ(reader.commit(), status::ok);
      }
      for (transaction& tx : in_flight) {
        EXPECT_EQ(tx.finish_commit(), status::ok);
        EXPECT_TRUE(tx.is_durable());
        EXPECT_FALSE(tx.is_precommitted());
        EXPECT_EQ(tx.finish_commit(), status::invalid_argument);
      }
      in_flight.clear();
      // Destroyed while precommitted: the destructor finishes the commit.
      for (int index = 0; index < 6; ++index) {
        in_flight.push_back(db->begin());
        const std::string key = "destroyed" + std::to_string(index);
        ASSERT_EQ(in_flight.back().upsert(table, key, "d"), status::ok);
        ASSERT_EQ(in_flight.back().precommit(), status::ok);
        keys.insert(key);
      }
      in_flight.clear();
      // Moved over while precommitted: finished as well.
      transaction moved = db->begin();
      ASSERT_EQ(moved.insert(table, "moved-over", "m"), status::ok);
      ASSERT_EQ(moved.precommit(), status::ok);
      keys.insert("moved-over");
      moved = db->begin();
      ASSERT_EQ(moved.abort(), status::abort_user);
      // A read-only precommit has nothing to wait for.
      transaction reader = db->begin(isolation::snapshot, access::read_only);
      std::string value;
      ASSERT_EQ(reader.get(table, "moved-over", value), status::ok);
      ASSERT_EQ(reader.precommit(), status::ok);
      EXPECT_TRUE(reader.is_durable());
      EXPECT_EQ(reader.finish_commit(), status::ok);
      // A second writer of a precommitted key, begun after the precommit, does not conflict.
      transaction first = db->begin();
      ASSERT_EQ(first.upsert(table, "contended", "first"), status::ok);
      ASSERT_EQ(first.precommit(), status::ok);
      transaction second = db->begin();
      ASSERT_EQ(second.update(table, "contended", "second"), status::ok);
      ASSERT_EQ(second.precommit(), status::ok);
      EXPECT_EQ(second.finish_commit(), status::ok);
      EXPECT_EQ(first.finish_commit(), status::ok);
      keys.insert("contended");
      EXPECT_EQ(table_rows(*db, table).size(), keys.size());
    }
    auto db = open_database(options);
    const auto rows = table_rows(*db, table_named(*db, "log"));
    std::set<std::string> recovered;
    for (const auto& [key, value] : rows) recovered.insert(key);
    EXPECT_EQ(recovered, keys);
    EXPECT_EQ(rows.at("contended"), "second");
  }
}

}  // namespace
