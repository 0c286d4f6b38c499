// braid-test: concurrent
// Crash recovery with real crashes. Each round forks a child that opens the database in sync
// mode and commits random transactions on one or two threads, reporting through a pipe
// "about to commit T" (with T's writes) before commit() and "acknowledged T" after it returned
// ok. The parent SIGKILLs the child at a random moment (a few ms to ~100 ms after it opened,
// sometimes while it is still opening), in some rounds cuts or flips a bit in the log's last
// segment as a failing disk would, reopens the database and checks its state exactly:
//   * Each thread writes only its own keys (its transactions are sequential), so a thread's
//     keys must hold exactly the state after its acknowledged transactions, or that state
//     plus its transaction in flight at the kill (all of it or none of it). In pipelined
//     rounds a thread keeps up to four transactions precommitted and acknowledges each after
//     finish_commit: then any prefix of those in flight may be present, nothing else.
//   * Every value names the transaction that wrote it, so nothing from a transaction that
//     never got to commit (aborted, or killed before "about to commit") can pass.
//   * A shared counter, incremented by both threads (read, then write: conflicts abort one of
//     them), must equal the number of committed increments.
//   * Damage to the last segment loses exactly the commits of the blocks cut off (read back
//     from the segment before the damage), unless the newest checkpoint already holds them.
//   * Every fifth round runs in async mode: acknowledged commits may be lost there, but each
//     thread's keys must still show a prefix of its transactions (and the counter agree).
// Rounds: BRAID_CRASH_KILLS (default 12), BRAID_CRASH_SEED picks the random choices; the
// counts are printed at the end.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "braid/txn/database.hpp"
#include "braid/txn/detail/checkpoint_format.hpp"
#include "txn/durable_test_support.hpp"
#include "txn/txn_test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace braid::txn;
using namespace braid::txn::testing;

constexpr std::size_t segment_bytes = 32 * 1024;
constexpr std::size_t private_keys = 12;
constexpr int max_threads = 2;
const std::string counter_key = "shared/counter";

std::string private_key(int thread, std::size_t index) {
  return "t" + std::to_string(thread) + "/k" + std::to_string(index);
}
std::string marker_key(int thread) { return "t" + std::to_string(thread) + "/last"; }

// The value transaction `id` writes to `key`: names both, with a length of its own.
std::string value_of(std::uint64_t id, const std::string& key) {
  std::uint64_t mix = (id ^ std::hash<std::string>{}(key)) * 0x9e3779b97f4a7c15ULL;
  const std::size_t padding = mix % 16 == 0 ? 9000 + mix % 1000 : (mix >> 8) % 400;
  return std::to_string(id) + "|" + key + "|" + std::string(padding, static_cast<char>('a' + mix % 26));
}

// ---- the child's reports ----

struct report {
  char kind = 0;  // 'R' ready (database open, table there), 'B' about to commit, 'A' acknowledged, 'E' error
  std::uint8_t thread = 0;
  std::uint8_t increments = 0;  // the transaction incremented the counter
  std::uint8_t write_count = 0;
  std::uint64_t id = 0;
  std::uint8_t keys[8] = {};
  std::uint8_t removes[8] = {};
  char text[160] = {};
};
static_assert(sizeof(report) <= PIPE_BUF, "one write() per report: atomic on a pipe");

void send(int fd, const report& r) {
  const ssize_t written = ::write(fd, &r, sizeof r);
  if (written != static_cast<ssize_t>(sizeof r)) ::_exit(4);
}

[[noreturn]] void child_fails(int fd, const std::string& what) {
  report r;
  r.kind = 'E';
  std::snprintf(r.text, sizeof r.text, "%s", what.c_str());
  send(fd, r);
  ::_exit(3);
}

// One committing thread of the child: runs until the process is killed (or a long deadline).
// Pipelined: up to four transactions precommitted at once, finished oldest first; each is
// acknowledged after its finish_commit returned ok.
void child_thread(database& db, table_handle table, int fd, int thread, std::uint64_t round, bool pipelined) {
  std::mt19937_64 random(round * 7 + static_cast<std::uint64_t>(thread));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::deque<std::pair<transaction, report>> precommitted;
  auto finish_oldest = [&] {
    report& r = precommitted.front().second;
    if (const status s = precommitted.front().first.finish_commit(); s != status::ok) {
      child_fails(fd, std::string("finish_commit: ") + describe(s));
    }
    r.kind = 'A';
    send(fd, r);
    precommitted.pop_front();
  };
  for (std::uint64_t sequence = 1; std::chrono::steady_clock::now() < deadline; ++sequence) {
    const std::uint64_t id = (round + 1) << 32 | static_cast<std::uint64_t>(thread) << 28 | sequence;
    report r;
    r.kind = 'B';
    r.thread = static_cast<std::uint8_t>(thread);
    r.id = id;
    transaction tx = db.begin();
    status s = status::ok;
    const std::size_t writes = 1 + random() % 4;
    for (std::size_t index = 0; index < writes && s == status::ok; ++index) {
      const std::size_t key = random() % private_keys;
      const bool remove = random() % 4 == 0;
      s = remove ? tx.remove(table, private_key(thread, key)) : tx.upsert(table, private_key(thread, key), value_of(id, private_key(thread, key)));
      if (s == status::not_found) s = status::ok;  // removing an absent key changes nothing
      r.keys[r.write_count] = static_cast<std::uint8_t>(key);
      r.removes[r.write_count] = remove ? 1 : 0;
      ++r.write_count;
    }
    if (s == status::ok) s = tx.upsert(table, marker_key(thread), std::to_string(id));
    if (s == status::ok && random() % 2 == 0) {
      std::string counter;
      s = tx.get(table, counter_key, counter);
      const std::uint64_t count = s == status::ok ? std::stoull(counter) : 0;
      if (s == status::ok || s == status::not_found) s = tx.upsert(table, counter_key, std::to_string(count + 1));
      r.increments = 1;
    }
    if (s == status::abort_write_conflict) continue;  // the other thread's increment won: nothing to report
    if (s != status::ok) child_fails(fd, std::string("operation: ") + describe(s));
    if (random() % 10 == 0) {  // rolled back: must never be seen
      if (tx.abort() != status::abort_user) child_fails(fd, "abort");
      continue;
    }
    send(fd, r);
    if (pipelined) {
      if (s = tx.precommit(); s != status::ok) child_fails(fd, std::string("precommit: ") + describe(s));
      precommitted.emplace_back(std::move(tx), r);
      if (precommitted.size() > random() % 4) finish_oldest();
      continue;
    }
    if (s = tx.commit(); s != status::ok) child_fails(fd, std::string("commit: ") + describe(s));
    r.kind = 'A';
    send(fd, r);
  }
  while (!precommitted.empty()) finish_oldest();
}

// What a round's child does.
struct round_setup {
  int threads = 1;
  bool checkpoints = false;  // a background checkpoint every 10 ms
  bool pipelined = false;    // precommit / finish_commit, up to four in flight per thread
  bool async = false;        // async log mode: acknowledged commits may be lost, but only a suffix
};

[[noreturn]] void run_child(const fs::path& directory, int fd, std::uint64_t round, const round_setup& setup) {
  database_options options = durable_options(directory, setup.async ? commit_mode::async : commit_mode::sync, segment_bytes);
  options.async_interval = std::chrono::milliseconds(1 + round % 20);
  if (setup.checkpoints) options.checkpoint_interval = std::chrono::milliseconds(10);
  std::unique_ptr<database> db;
  std::string message;
  if (const status s = database::open(options, db, message); s != status::ok) {
    child_fails(fd, std::string("open: ") + describe(s) + ": " + message);
  }
  table_handle table;
  if (db->find_table("crash", table) != status::ok) {
    if (const status s = db->create_table("crash", table); s != status::ok) child_fails(fd, std::string("create_table: ") + describe(s));
  }
  report ready;
  ready.kind = 'R';
  send(fd, ready);
  std::vector<std::thread> running;
  for (int thread = 0; thread < setup.threads; ++thread) {
    running.emplace_back([&, thread] { child_thread(*db, table, fd, thread, round, setup.pipelined); });
  }
  for (std::thread& t : running) t.join();
  child_fails(fd, "not killed within 30 s");
}

// ---- the parent ----

struct thread_history {
  std::vector<report> begun;  // 'B' reports in order
  std::set<std::uint64_t> acknowledged;
};

struct round_reports {
  bool ready = false;
  std::string error;
  std::map<int, thread_history> threads;
};

class report_reader {
 public:
  explicit report_reader(int fd) : fd_(fd) {}
  // Reads what is available within timeout_ms (-1: until end of file); false at end of file.
  bool read_some(int timeout_ms, round_reports& out) {
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, timeout_ms);
    if (ready <= 0) return true;
    char chunk[4096];
    const ssize_t got = ::read(fd_, chunk, sizeof chunk);
    if (got <= 0) return false;
    pending_.append(chunk, static_cast<std::size_t>(got));
    while (pending_.size() >= sizeof(report)) {
      report r;
      std::memcpy(&r, pending_.data(), sizeof r);
      pending_.erase(0, sizeof r);
      take(r, out);
    }
    return true;
  }

 private:
  static void take(const report& r, round_reports& out) {
    switch (r.kind) {
      case 'R': out.ready = true; break;
      case 'B': out.threads[r.thread].begun.push_back(r); break;
      case 'A': out.threads[r.thread].acknowledged.insert(r.id); break;
      default: out.error = std::string(r.text, strnlen(r.text, sizeof r.text)); break;
    }
  }
  int fd_;
  std::string pending_;
};

struct totals {
  std::size_t kills = 0, kills_while_opening = 0, acknowledged = 0, in_flight = 0, in_flight_recovered = 0;
  std::size_t torn_reopenings = 0, truncated = 0, bit_flips = 0, lost_to_damage = 0, checkpoint_rounds = 0;
  std::size_t pipelined_rounds = 0, async_rounds = 0, lost_in_async = 0;
};

using rows = std::map<std::string, std::string>;

// Applies a reported transaction to a thread's rows.
void apply(const report& r, rows& state) {
  for (std::size_t index = 0; index < r.write_count; ++index) {
    const std::string key = private_key(r.thread, r.keys[index]);
    if (r.removes[index] != 0) state.erase(key);
    else state[key] = value_of(r.id, key);
  }
  state[marker_key(r.thread)] = std::to_string(r.id);
}

rows thread_part(const rows& all, int thread) {
  rows part;
  const std::string prefix = "t" + std::to_string(thread) + "/";
  for (const auto& [key, value] : all) {
    if (key.starts_with(prefix)) part.emplace(key, value);
  }
  return part;
}

std::string describe_rows(const rows& r) {
  std::string text;
  for (const auto& [key, value] : r) text += key + "=" + value.substr(0, value.find('|')) + " ";
  return text;
}

// Cuts the last segment at a random length, or flips a bit in its last block; returns the
// transactions whose blocks that removed (and that no checkpoint holds).
std::set<std::uint64_t> damage_last_segment(const fs::path& directory, std::mt19937_64& random, totals& counted) {
  std::set<std::uint64_t> lost;
  const auto segments = log_segments(directory);
  if (segments.empty()) return lost;
  const fs::path last = segments.back();
  const std::string bytes = read_bytes(last);
  const std::vector<block_extent> blocks = segment_blocks(bytes);
  std::uint64_t checkpoint_ts = 0;
  for (const fs::path& file : files_with_prefix(directory, "checkpoint-")) {
    std::uint64_t ts = 0;
    if (detail::parse_checkpoint_file_name(file.filename().string(), ts)) checkpoint_ts = std::max(checkpoint_ts, ts);
  }
  std::uint64_t cut = 0;  // blocks ending after this offset are lost
  if (random() % 2 == 0 || blocks.empty()) {
    cut = bytes.empty() ? 0 : random() % bytes.size();
    braid::txn::testing::truncate_file(last, cut);
    ++counted.truncated;
  } else {
    const block_extent& tail = blocks.back();
    flip_bit(last, tail.begin + random() % (tail.end - tail.begin), static_cast<int>(random() % 8));
    cut = tail.begin;
    ++counted.bit_flips;
  }
  for (const block_extent& block : blocks) {
    if (block.end <= cut || block.commit_ts <= checkpoint_ts) continue;
    for (const auto& record : block.records) {
      const std::string key(record.key);
      if (key.ends_with("/last")) lost.insert(std::stoull(std::string(record.value)));
    }
  }
  return lost;
}

// Checks the recovered rows against the round's reports (and the rows before the round). Per
// thread, the transactions reported as about to commit are acknowledged in order; those not
// acknowledged were in flight at the kill (one, or up to four when pipelined) and, the log
// being a prefix, the thread's keys must show the acknowledged ones plus a prefix of those in
// flight. A transaction whose block the damage cut off is lost with every later one of its
// thread, and every earlier one is present. In async mode acknowledged transactions may be
// lost too, but only a suffix of each thread's.
void check_round(const rows& before, const rows& recovered, const round_reports& reports, const std::set<std::uint64_t>& lost,
                 bool async, totals& counted) {
  rows expected;
  std::uint64_t counter = before.contains(counter_key) ? std::stoull(before.at(counter_key)) : 0;
  for (int thread = 0; thread < max_threads; ++thread) {
    const rows base = thread_part(before, thread);
    const rows got = thread_part(recovered, thread);
    const auto found = reports.threads.find(thread);
    if (found == reports.threads.end()) {
      EXPECT_TRUE(got == base) << "thread " << thread << " did not run this round; recovered: " << describe_rows(got);
      expected.insert(base.begin(), base.end());
      continue;
    }
    const std::vector<report>& begun = found->second.begun;
    const std::set<std::uint64_t>& acknowledged = found->second.acknowledged;
    std::size_t acknowledged_prefix = 0;
    while (acknowledged_prefix < begun.size() && acknowledged.contains(begun[acknowledged_prefix].id)) ++acknowledged_prefix;
    EXPECT_EQ(acknowledged_prefix, acknowledged.size()) << "thread " << thread << ": acknowledgements out of order";
    std::size_t first_lost = begun.size();
    for (std::size_t index = 0; index < begun.size(); ++index) {
      if (lost.contains(begun[index].id)) {
        first_lost = index;
        break;
      }
    }
    // states[i]: the thread's keys after its first i reported transactions.
    std::vector<rows> states{base};
    std::vector<std::uint64_t> increments{0};
    for (const report& r : begun) {
      states.push_back(states.back());
      apply(r, states.back());
      increments.push_back(increments.back() + r.increments);
    }
    counted.acknowledged += acknowledged_prefix;
    counted.in_flight += begun.size() - acknowledged_prefix;
    std::size_t present = 0;
    if (first_lost < begun.size()) {
      present = first_lost;
      counted.lost_to_damage += acknowledged_prefix > first_lost ? acknowledged_prefix - first_lost : 0;
      EXPECT_TRUE(got == states[present]) << "thread " << thread << ": the blocks before the cut, none after it\n recovered: "
                                          << describe_rows(got) << "\n expected:  " << describe_rows(states[present]);
    } else {
      present = async ? 0 : acknowledged_prefix;
      while (present <= begun.size() && got != states[present]) ++present;
      if (present > begun.size()) {
        ADD_FAILURE() << "thread " << thread << ": not the acknowledged transactions plus a prefix of those in flight\n recovered: "
                      << describe_rows(got) << "\n acknowledged: " << describe_rows(states[acknowledged_prefix]);
        present = acknowledged_prefix;
      }
      if (present >= acknowledged_prefix) counted.in_flight_recovered += present - acknowledged_prefix;
      else counted.lost_in_async += acknowledged_prefix - present;
    }
    expected.insert(states[present].begin(), states[present].end());
    counter += increments[present];
  }
  if (counter > 0) expected[counter_key] = std::to_string(counter);
  EXPECT_EQ(recovered.contains(counter_key) ? recovered.at(counter_key) : "absent",
            expected.contains(counter_key) ? expected.at(counter_key) : "absent")
      << "committed increments of the shared counter";
  EXPECT_EQ(recovered.size(), expected.size()) << "recovered: " << describe_rows(recovered);
}

// create_table is durable when it returns, in sync and in async mode (database.hpp): a child
// creates a table with a long async interval, reports, and is killed at once.
TEST(Crash, CreatedTableSurvivesAKillRightAfterCreateTable) {
  for (const commit_mode mode : {commit_mode::sync, commit_mode::async}) {
    SCOPED_TRACE(mode == commit_mode::sync ? "sync" : "async");
    temp_directory directory;
    database_options options = durable_options(directory.path(), mode, segment_bytes);
    options.async_interval = std::chrono::seconds(20);
    int pipe_fds[2];
    ASSERT_EQ(::pipe(pipe_fds), 0);
    std::fflush(nullptr);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(pipe_fds[0]);
      std::unique_ptr<database> db;
      std::string message;
      if (database::open(options, db, message) != status::ok) child_fails(pipe_fds[1], "open: " + message);
      table_handle table;
      if (const status s = db->create_table("made", table); s != status::ok) child_fails(pipe_fds[1], describe(s));
      report ready;
      ready.kind = 'R';
      send(pipe_fds[1], ready);
      std::this_thread::sleep_for(std::chrono::seconds(30));
      ::_exit(0);
    }
    ::close(pipe_fds[1]);
    report_reader reader(pipe_fds[0]);
    round_reports reports;
    bool open_pipe = true;
    while (open_pipe && !reports.ready && reports.error.empty()) open_pipe = reader.read_some(1000, reports);
    ::kill(child, SIGKILL);
    while (open_pipe) open_pipe = reader.read_some(-1, reports);
    ::close(pipe_fds[0]);
    int wait_status = 0;
    ASSERT_EQ(::waitpid(child, &wait_status, 0), child);
    ASSERT_EQ(reports.error, "");
    ASSERT_TRUE(reports.ready);
    std::unique_ptr<database> db;
    std::string message;
    ASSERT_EQ(database::open(options, db, message), status::ok) << message;
    table_handle table;
    EXPECT_EQ(db->find_table("made", table), status::ok) << "create_table returned ok before the kill";
  }
}

std::uint64_t from_environment(const char* name, std::uint64_t otherwise) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return otherwise;
  return std::strtoull(text, nullptr, 10);
}

TEST(Crash, EveryAcknowledgedCommitSurvivesSigkill) {
  const std::size_t kills = std::max<std::uint64_t>(1, from_environment("BRAID_CRASH_KILLS", 12));
  // The moments of the kills depend on timing: a failure is repeated by running until it shows.
  const std::uint64_t seed = from_environment("BRAID_CRASH_SEED", 20260101);
  temp_directory directory;
  const database_options options = durable_options(directory.path(), commit_mode::sync, segment_bytes);
  std::mt19937_64 random(seed);
  totals counted;
  rows state;  // what the last reopen recovered (and checked)
  for (std::size_t round = 0; round < kills && !::testing::Test::HasFailure(); ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    round_setup setup;
    setup.threads = 1 + static_cast<int>(random() % max_threads);
    setup.checkpoints = round % 3 == 1;
    setup.pipelined = random() % 3 == 0;
    setup.async = round % 5 == 4;
    const bool while_opening = random() % 8 == 0;
    const auto delay = std::chrono::milliseconds(while_opening ? random() % 15 : 2 + random() % 100);
    counted.checkpoint_rounds += setup.checkpoints ? 1 : 0;
    counted.pipelined_rounds += setup.pipelined ? 1 : 0;
    counted.async_rounds += setup.async ? 1 : 0;

    int pipe_fds[2];
    ASSERT_EQ(::pipe(pipe_fds), 0);
    std::fflush(nullptr);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(pipe_fds[0]);
      run_child(directory.path(), pipe_fds[1], round, setup);
    }
    ::close(pipe_fds[1]);
    report_reader reader(pipe_fds[0]);
    round_reports reports;
    bool open_pipe = true;
    const auto wait_ready_until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!while_opening && open_pipe && !reports.ready && reports.error.empty() &&
           std::chrono::steady_clock::now() < wait_ready_until) {
      open_pipe = reader.read_some(100, reports);
    }
    const auto kill_at = std::chrono::steady_clock::now() + delay;
    while (open_pipe && reports.error.empty()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(kill_at - std::chrono::steady_clock::now()).count();
      if (left <= 0) break;
      open_pipe = reader.read_some(static_cast<int>(left), reports);
    }
    ::kill(child, SIGKILL);
    while (open_pipe) open_pipe = reader.read_some(-1, reports);
    ::close(pipe_fds[0]);
    int wait_status = 0;
    ASSERT_EQ(::waitpid(child, &wait_status, 0), child);
    ASSERT_EQ(reports.error, "") << "the child failed";
    ASSERT_TRUE(WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL) << "status " << wait_status;
    ++counted.kills;
    counted.kills_while_opening += reports.ready ? 0 : 1;

    std::set<std::uint64_t> lost;
    if (round % 4 == 3) lost = damage_last_segment(directory.path(), random, counted);

    std::unique_ptr<database> db;
    std::string message;
    ASSERT_EQ(database::open(options, db, message), status::ok) << message;
    if (!message.empty()) {
      EXPECT_NE(message.find("torn"), std::string::npos) << message;
      ++counted.torn_reopenings;
    }
    table_handle table;
    rows recovered;
    if (db->find_table("crash", table) == status::ok) recovered = table_rows(*db, table);
    check_round(state, recovered, reports, lost, setup.async, counted);
    state = recovered;
  }
  std::printf(
      "crash test (seed %llu): %zu kills (%zu while opening), %zu acknowledged commits, %zu in flight at a kill (%zu of them "
      "recovered), %zu torn-tail reopenings, %zu rounds with background checkpoints, %zu pipelined, %zu in async mode (%zu "
      "acknowledged commits not yet on disk at the kill), damage: %zu cuts and %zu bit flips of the last segment (%zu "
      "acknowledged commits cut off)\n",
      static_cast<unsigned long long>(seed), counted.kills, counted.kills_while_opening, counted.acknowledged, counted.in_flight, counted.in_flight_recovered,
      counted.torn_reopenings, counted.checkpoint_rounds, counted.pipelined_rounds, counted.async_rounds,
      counted.lost_in_async, counted.truncated, counted.bit_flips, counted.lost_to_damage);
}

}  // namespace
