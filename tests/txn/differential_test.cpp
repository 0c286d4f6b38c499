// Differential test of snapshot isolation: random transactions of several logical clients,
// interleaved operation by operation on one thread, against a reference model — the committed
// state in a std::map with each key's last commit timestamp, each transaction's snapshot and
// private writes, and which transaction has an uncommitted write on each key (so the model
// predicts every write-write conflict exactly).
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "braid/txn/database.hpp"

namespace {

using braid::txn::status;
using braid::txn::transaction;

struct committed_record {
  std::optional<std::string> value;  // nullopt: a tombstone
  std::uint64_t commit_ts = 0;
};

struct client {
  transaction tx;
  bool open = false;
  std::uint64_t begin = 0;
  std::map<std::string, std::string> snapshot;
  std::map<std::string, std::optional<std::string>> writes;
  bool interleaved = false;
};

class model_run {
 public:
  explicit model_run(unsigned seed) : random_(seed) {
    std::string message;
    EXPECT_EQ(braid::txn::database::open({}, db_, message), status::ok);
    EXPECT_EQ(db_->create_table("t", table_), status::ok);
    clients_.resize(4);
  }

  void step() {
    const std::size_t who = pick(clients_.size());
    client& c = clients_[who];
    if (!c.open) return begin(c);
    const std::size_t op = pick(100);
    if (op < 25) return get(c);
    if (op < 60) return write(c, who);
    if (op < 70) return scan(c, pick(2) == 0);
    if (op < 85) return commit(c, who);
    if (op < 90) return abort(c, who);
  }

  void finish() {
    for (std::size_t who = 0; who < clients_.size(); ++who) {
      if (clients_[who].open) commit(clients_[who], who);
    }
    // The final state, read in one snapshot, is the model's committed state.
    client c;
    begin(c);
    std::vector<std::pair<std::string, std::string>> seen;
    ASSERT_EQ(c.tx.scan(table_, "", 1000, [&](std::string_view k, std::string_view v) { seen.emplace_back(k, v); }),
              status::ok);
    EXPECT_EQ(seen, visible(c, "", 1000, false));
    EXPECT_EQ(db_->clock(), clock_);
  }

 private:
  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random_); }
  std::string key() { return "key" + std::to_string(pick(12)); }
  std::string value() {
    const std::size_t length = pick(20) == 0 ? 4000 + pick(2000) : pick(40);
    std::string v(length, 'a');
    for (char& ch : v) ch = static_cast<char>('a' + pick(26));
    return v;
  }

  std::optional<std::string> sees(const client& c, const std::string& k) const {
    if (auto w = c.writes.find(k); w != c.writes.end()) return w->second;
    if (auto s = c.snapshot.find(k); s != c.snapshot.end()) return s->second;
    return std::nullopt;
  }

  std::vector<std::pair<std::string, std::string>> visible(const client& c, const std::string& start, std::size_t limit,
                                                           bool reverse) const {
    std::set<std::string> keys;
    for (const auto& [k, v] : c.snapshot) keys.insert(k);
    for (const auto& [k, v] : c.writes) keys.insert(k);
    std::vector<std::pair<std::string, std::string>> out;
    auto take = [&](const std::string& k) {
      if (out.size() >= limit) return;
      if (auto v = sees(c, k)) out.emplace_back(k, *v);
    };
    if (!reverse) {
      for (auto it = keys.lower_bound(start); it != keys.end(); ++it) take(*it);
    } else {
      for (auto it = keys.rbegin(); it != keys.rend(); ++it) {
        if (start.empty() || *it <= start) take(*it);
      }
    }
    return out;
  }

  void begin(client& c) {
    c.interleaved = pick(2) == 0;
    c.tx = db_->begin();
    c.open = true;
    c.begin = clock_;
    c.snapshot.clear();
    c.writes.clear();
    for (const auto& [k, record] : committed_) {
      if (record.value) c.snapshot[k] = *record.value;
    }
    EXPECT_EQ(c.tx.begin_timestamp(), c.begin);
  }

  template <class Operation>
  static status run(Operation operation) {
    while (!operation.done()) operation.resume();
    return operation.take_result();
  }

  void get(client& c) {
    const std::string k = key();
    std::string got;
    const status s = c.interleaved ? run(c.tx.get<braid::interleaved>(table_, k, got)) : c.tx.get(table_, k, got);
    const std::optional<std::string> expected = sees(c, k);
    ASSERT_EQ(s, expected ? status::ok : status::not_found) << k;
    if (expected) {
      ASSERT_EQ(got, *expected);
    }
  }

  void write(client& c, std::size_t who) {
    const std::string k = key();
    const std::string v = value();
    const std::size_t kind = pick(4);
    status s;
    if (c.interleaved) {
      s = kind == 0   ? run(c.tx.insert<braid::interleaved>(table_, k, v))
          : kind == 1 ? run(c.tx.update<braid::interleaved>(table_, k, v))
          : kind == 2 ? run(c.tx.upsert<braid::interleaved>(table_, k, v))
                      : run(c.tx.remove<braid::interleaved>(table_, k));
    } else {
      s = kind == 0   ? c.tx.insert(table_, k, v)
          : kind == 1 ? c.tx.update(table_, k, v)
          : kind == 2 ? c.tx.upsert(table_, k, v)
                      : c.tx.remove(table_, k);
    }
    const auto owner = in_flight_.find(k);
    const auto record = committed_.find(k);
    const bool conflict = (owner != in_flight_.end() && owner->second != who) ||
                          (record != committed_.end() && record->second.commit_ts > c.begin);
    if (conflict) {
      ASSERT_EQ(s, status::abort_write_conflict) << k;
      return drop(c, who);
    }
    const bool present = sees(c, k).has_value();
    if (kind == 0 && present) {
      EXPECT_EQ(s, status::already_exists) << k;
      return;
    }
    if ((kind == 1 || kind == 3) && !present) {
      EXPECT_EQ(s, status::not_found) << k;
      return;
    }
    ASSERT_EQ(s, status::ok);
    c.writes[k] = kind == 3 ? std::nullopt : std::optional<std::string>(v);
    in_flight_[k] = who;
  }

  void scan(client& c, bool reverse) {
    const std::string start = pick(4) == 0 ? std::string() : key();
    const std::size_t limit = pick(15);
    std::vector<std::pair<std::string, std::string>> seen;
    auto visit = [&](std::string_view k, std::string_view v) { seen.emplace_back(k, v); };
    status s;
    if (c.interleaved) {
      s = reverse ? run(c.tx.reverse_scan<braid::interleaved>(table_, start, limit, visit))
                  : run(c.tx.scan<braid::interleaved>(table_, start, limit, visit));
    } else {
      s = reverse ? c.tx.reverse_scan(table_, start, limit, visit) : c.tx.scan(table_, start, limit, visit);
    }
    ASSERT_EQ(s, status::ok);
    ASSERT_EQ(seen, visible(c, start, limit, reverse)) << (reverse ? "reverse from " : "from ") << start;
  }

  void commit(client& c, std::size_t who) {
    ASSERT_EQ(c.tx.commit(), status::ok);
    if (!c.writes.empty()) {
      ++clock_;
      for (const auto& [k, v] : c.writes) committed_[k] = {v, clock_};
    }
    drop(c, who);
    ASSERT_EQ(c.tx.commit(), status::invalid_argument);  // use after commit
  }

  void abort(client& c, std::size_t who) {
    ASSERT_EQ(c.tx.abort(), status::abort_user);
    drop(c, who);
  }

  void drop(client& c, std::size_t who) {
    for (auto it = in_flight_.begin(); it != in_flight_.end();) {
      it = it->second == who ? in_flight_.erase(it) : std::next(it);
    }
    c.open = false;
    c.writes.clear();
  }

  std::mt19937_64 random_;
  std::unique_ptr<braid::txn::database> db_;
  braid::txn::table_handle table_;
  std::vector<client> clients_;
  std::map<std::string, committed_record> committed_;
  std::map<std::string, std::size_t> in_flight_;
  std::uint64_t clock_ = 0;
};

TEST(txn_differential, snapshot_isolation_matches_the_model) {
  for (unsigned seed = 1; seed <= 150; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    model_run run(seed);
    for (int step = 0; step < 600; ++step) {
      run.step();
      if (::testing::Test::HasFatalFailure()) return;
    }
    run.finish();
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
