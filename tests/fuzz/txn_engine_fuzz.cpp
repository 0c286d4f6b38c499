// libFuzzer target: operation sequences on a durable database, with crashes and reopens in the
// middle. The input decodes into the log mode (sync, async, none) and a small segment size,
// then operations of three interleaved transactions on two tables with a small key space —
// begin, get, insert / update / upsert / remove, scan both ways, commit, precommit (finished
// later, or by destruction), abort — and on the database: checkpoint, and "crash": every
// transaction ends (open ones abort, precommitted ones finish), the database is destroyed and
// the directory reopened, sometimes after its last log segment was cut at a decoded length or
// had a decoded bit flipped.
//
// The model: snapshot isolation as in tests/txn/differential_test.cpp (so every status is
// predicted, write-write conflicts included), and the history of what the log holds — one
// event per table creation and per commit that wrote, in log order, each marked once a
// checkpoint holds it. A reopen keeps every event in sync and async mode and only the
// checkpointed ones in mode none; damage to the last segment removes the events of the blocks
// it cut off (read from the segment before the damage) unless a checkpoint holds them. After
// each reopen the database's whole contents must equal the history replayed. Damage that is
// not a torn tail (a bit flipped before the last block) must be refused, change nothing, and
// reopen whole once undone.
//
// The database lives under $BRAID_FUZZ_DIR, else /dev/shm (where fdatasync costs nothing),
// else the temporary directory.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "braid/txn/database.hpp"
#include "braid/txn/detail/log_format.hpp"
#include "fuzz_input.hpp"

namespace {

namespace fs = std::filesystem;
using braid::fuzzing::fuzz_check;
using braid::fuzzing::fuzz_input;
using namespace braid::txn;

constexpr int table_count = 2;
constexpr std::size_t client_count = 3;
constexpr int max_reopens = 4;
const char* const table_names[table_count] = {"t0", "t1"};

// ---- files ----

const fs::path& work_directory() {
  static const fs::path made = [] {
    fs::path base;
    if (const char* chosen = std::getenv("BRAID_FUZZ_DIR"); chosen != nullptr && *chosen != '\0') base = chosen;
    else if (::access("/dev/shm", W_OK) == 0) base = "/dev/shm";
    else base = fs::temp_directory_path();
    std::string pattern = (base / "braid-txn-fuzz-XXXXXX").string();
    fuzz_check(::mkdtemp(pattern.data()) != nullptr, "a working directory");
    std::atexit([] { std::error_code ignored; fs::remove_all(work_directory(), ignored); });
    return fs::path(pattern);
  }();
  return made;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::map<std::string, std::string> directory_bytes(const fs::path& directory) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(directory)) files[entry.path().filename().string()] = read_file(entry.path());
  return files;
}

std::optional<fs::path> last_segment(const fs::path& directory) {
  std::optional<fs::path> last;
  std::uint64_t number = 0;
  for (const auto& entry : fs::directory_iterator(directory)) {
    std::uint64_t candidate = 0;
    if (detail::parse_segment_file_name(entry.path().filename().string(), candidate) && (!last || candidate > number)) {
      last = entry.path();
      number = candidate;
    }
  }
  return last;
}

struct block_span {
  std::uint64_t begin, end;
};

std::vector<block_span> blocks_of(const std::string& bytes) {
  std::vector<block_span> blocks;
  const detail::segment_scan scan =
      detail::scan_segment(detail::as_bytes(bytes), "segment", std::nullopt, true, [&](const detail::scanned_block& block) {
        blocks.push_back({block.offset, block.offset + detail::block_overhead_bytes + block.payload.size()});
      });
  fuzz_check(scan.result == status::ok && !scan.torn, "a cleanly closed log ends in a whole block");
  return blocks;
}

// ---- the model ----

using row_key = std::pair<int, std::string>;  // table, key

struct committed_row {
  std::optional<std::string> value;  // nullopt: removed
  std::uint64_t sequence = 0;        // the model's commit counter when written (0: before the last reopen)
};

// One block of the log: a table created, or a commit's writes.
struct logged_event {
  int created_table = -1;
  std::map<row_key, std::optional<std::string>> writes;
  bool checkpointed = false;
};

enum class phase { idle, open, precommitted };

struct client {
  transaction tx;
  phase state = phase::idle;
  std::uint64_t begin = 0;
  std::map<row_key, std::optional<std::string>> writes;
};

template <class Operation>
status run(Operation operation) {
  while (!operation.done()) operation.resume();
  return operation.take_result();
}

class engine_run {
 public:
  explicit engine_run(fuzz_input& input) : input_(input) {
    directory_ = work_directory() / "db";
    std::error_code ignored;
    fs::remove_all(directory_, ignored);
    options_.directory = directory_;
    options_.log_mode = static_cast<commit_mode>(input_.byte() % 3);
    options_.async_interval = std::chrono::milliseconds(1);
    options_.log_segment_bytes = 128 + std::size_t{input_.byte()} * 32;
    reopen(false);
  }

  void step() {
    const std::uint8_t op = input_.byte() % 16;
    client& c = clients_[input_.byte() % client_count];
    if (op == 12) return checkpoint();
    if (op == 13) return reopens_ < max_reopens ? crash() : void();
    if (c.state == phase::precommitted) return finish(c, op % 2 == 0);
    if (c.state == phase::idle) return begin(c);
    switch (op) {
      case 0: case 1: case 2: case 14: return get(c);
      case 3: case 4: case 5: case 6: return write(c, op - 3);
      case 15: return write(c, 2);
      case 7: return scan(c);
      case 8: case 9: return commit(c, false);
      case 10: return commit(c, true);
      default: return abort(c);
    }
  }

  void finish_input() {
    crash();
    end_clients();
    db_.reset();
    std::error_code ignored;
    fs::remove_all(directory_, ignored);
  }

 private:
  // ---- operations ----
  row_key key() {
    const std::uint8_t choice = input_.byte();
    std::string k = "k" + std::to_string(choice % 8);
    if (choice & 0x80) k.resize((choice & 0x40) != 0 ? max_key_bytes : 40 + (choice & 0x3F) * 9, static_cast<char>('a' + choice % 8));
    return {input_.byte() % table_count, k};
  }

  std::string value() {
    const std::uint8_t length = input_.byte();
    std::string v = "v" + std::to_string(++values_) + ":";
    v.resize(v.size() + (length == 255 ? 9000 : length % 64), static_cast<char>('a' + values_ % 26));
    return v;
  }

  std::optional<std::string> sees(const client& c, const row_key& k) const {
    if (auto w = c.writes.find(k); w != c.writes.end()) return w->second;
    if (auto r = committed_.find(k); r != committed_.end() && r->second.sequence <= c.begin) return r->second.value;
    if (auto s = snapshots_.find(&c); s != snapshots_.end()) {
      if (auto r = s->second.find(k); r != s->second.end()) return r->second;
    }
    return std::nullopt;
  }

  void begin(client& c) {
    c.tx = db_->begin();
    c.state = phase::open;
    c.begin = sequence_;
    c.writes.clear();
    // Rows committed after this begin are overwritten in committed_: keep this snapshot's view
    // of the rows that later commits change (filled by commit()).
    snapshots_[&c].clear();
  }

  void get(client& c) {
    const row_key k = key();
    std::string got;
    const status s = input_.byte() % 2 == 0 ? c.tx.get(tables_[k.first], k.second, got)
                                            : run(c.tx.get<braid::interleaved>(tables_[k.first], k.second, got));
    const std::optional<std::string> expected = sees(c, k);
    fuzz_check(s == (expected ? status::ok : status::not_found), "get: status");
    if (expected) fuzz_check(got == *expected, "get: value");
  }

  void write(client& c, int kind) {
    const row_key k = key();
    const std::string v = value();
    const table_handle t = tables_[k.first];
    const status s = kind == 0 ? c.tx.insert(t, k.second, v)
                     : kind == 1 ? c.tx.update(t, k.second, v)
                     : kind == 2 ? c.tx.upsert(t, k.second, v)
                                 : c.tx.remove(t, k.second);
    const auto owner = in_flight_.find(k);
    const auto row = committed_.find(k);
    if ((owner != in_flight_.end() && owner->second != &c) || (row != committed_.end() && row->second.sequence > c.begin)) {
      fuzz_check(s == status::abort_write_conflict, "write: first updater wins");
      return drop(c);
    }
    const bool present = sees(c, k).has_value();
    if (kind == 0 && present) return fuzz_check(s == status::already_exists, "insert: already exists");
    if ((kind == 1 || kind == 3) && !present) return fuzz_check(s == status::not_found, "update/remove: not found");
    fuzz_check(s == status::ok, "write: ok");
    c.writes[k] = kind == 3 ? std::nullopt : std::optional<std::string>(v);
    in_flight_[k] = &c;
  }

  void scan(client& c) {
    const int table = input_.byte() % table_count;
    const bool reverse = input_.byte() % 2 == 0;
    const std::uint8_t start_choice = input_.byte();
    const std::string start = start_choice % 4 == 0 ? std::string() : "k" + std::to_string(start_choice % 9);
    const std::size_t limit = input_.byte() % 12;
    std::vector<std::pair<std::string, std::string>> seen;
    auto visit = [&](std::string_view k, std::string_view v) { seen.emplace_back(k, v); };
    const status s = reverse ? c.tx.reverse_scan(tables_[table], start, limit, visit) : c.tx.scan(tables_[table], start, limit, visit);
    fuzz_check(s == status::ok, "scan: ok");
    std::set<std::string> keys;
    for (const auto& [k, row] : committed_) {
      if (k.first == table) keys.insert(k.second);
    }
    for (const auto& [k, v] : c.writes) {
      if (k.first == table) keys.insert(k.second);
    }
    if (auto snapshot = snapshots_.find(&c); snapshot != snapshots_.end()) {
      for (const auto& [k, v] : snapshot->second) {
        if (k.first == table) keys.insert(k.second);
      }
    }
    std::vector<std::pair<std::string, std::string>> expected;
    auto take = [&](const std::string& k) {
      if (expected.size() >= limit) return;
      if (auto v = sees(c, {table, k})) expected.emplace_back(k, *v);
    };
    if (!reverse) {
      for (auto it = keys.lower_bound(start); it != keys.end(); ++it) take(*it);
    } else {
      for (auto it = keys.rbegin(); it != keys.rend(); ++it) {
        if (start.empty() || *it <= start) take(*it);
      }
    }
    fuzz_check(seen == expected, "scan: rows");
  }

  void commit(client& c, bool pipelined) {
    if (pipelined) {
      fuzz_check(c.tx.precommit() == status::ok, "precommit: ok");
      fuzz_check(c.tx.is_precommitted(), "precommitted");
    } else {
      fuzz_check(c.tx.commit() == status::ok, "commit: ok");
    }
    if (!c.writes.empty()) {
      ++sequence_;
      // Open snapshots keep the rows this commit replaces.
      for (auto& [other, snapshot] : snapshots_) {
        if (other == &c || other->state != phase::open) continue;
        for (const auto& [k, v] : c.writes) {
          if (snapshot.contains(k)) continue;
          const auto row = committed_.find(k);
          if (row == committed_.end()) snapshot[k] = std::nullopt;
          else if (row->second.sequence <= other->begin) snapshot[k] = row->second.value;
        }
      }
      logged_event event;
      for (const auto& [k, v] : c.writes) {
        committed_[k] = {v, sequence_};
        event.writes[k] = v;
      }
      history_.push_back(std::move(event));
    }
    if (pipelined) {
      for (auto it = in_flight_.begin(); it != in_flight_.end();) it = it->second == &c ? in_flight_.erase(it) : std::next(it);
      c.writes.clear();
      snapshots_.erase(&c);
      c.state = phase::precommitted;
      return;
    }
    drop(c);
    fuzz_check(c.tx.commit() == status::invalid_argument, "commit after commit");
  }

  void finish(client& c, bool explicitly) {
    if (explicitly) {
      fuzz_check(c.tx.finish_commit() == status::ok, "finish_commit: ok");
      fuzz_check(c.tx.is_durable() && !c.tx.is_precommitted(), "finished");
    } else {
      c.tx = transaction();  // destroyed while precommitted: finishes its commit
    }
    c.state = phase::idle;
  }

  void abort(client& c) {
    fuzz_check(c.tx.abort() == status::abort_user, "abort");
    drop(c);
  }

  void drop(client& c) {
    for (auto it = in_flight_.begin(); it != in_flight_.end();) it = it->second == &c ? in_flight_.erase(it) : std::next(it);
    c.state = phase::idle;
    c.writes.clear();
    snapshots_.erase(&c);
  }

  void end_clients() {
    for (client& c : clients_) {
      if (c.state == phase::open) abort(c);
      else if (c.state == phase::precommitted) finish(c, input_.byte() % 2 == 0);
      c.tx = transaction();
    }
  }

  void checkpoint() {
    std::string message;
    fuzz_check(db_->checkpoint(message) == status::ok, "checkpoint: ok");
    for (logged_event& event : history_) event.checkpointed = true;
  }

  // ---- crashes ----
  void crash() {
    ++reopens_;
    end_clients();
    db_.reset();
    const std::uint8_t damage = input_.byte() % 4;
    const std::optional<fs::path> last = last_segment(directory_);
    if (damage == 1 && last) return reopen(cut(*last));
    if (damage == 2 && last) return reopen(flip(*last));
    reopen(false);
  }

  // Cuts the last segment at a decoded length; drops the events of the blocks cut off.
  bool cut(const fs::path& segment) {
    const std::string bytes = read_file(segment);
    const std::vector<block_span> blocks = blocks_of(bytes);
    const std::size_t length = bytes.empty() ? 0 : input_.below(bytes.size() + 1);
    fs::resize_file(segment, length);
    std::size_t lost = 0;
    bool boundary = length == detail::file_header_bytes || length == bytes.size();
    for (const block_span& block : blocks) {
      lost += block.end > length ? 1 : 0;
      boundary |= block.end == length;
    }
    forget_last(lost);
    return !boundary;
  }

  // Flips a decoded bit of the last segment: in its last block a torn tail (that block is
  // lost); anywhere before it the open is refused, changes nothing, and the undone flip
  // reopens whole.
  bool flip(const fs::path& segment) {
    const std::string bytes = read_file(segment);
    if (bytes.empty()) return false;
    const std::vector<block_span> blocks = blocks_of(bytes);
    const std::size_t offset = input_.below(bytes.size());
    std::string flipped = bytes;
    flipped[offset] = static_cast<char>(flipped[offset] ^ (1 << (input_.byte() % 8)));
    write_file(segment, flipped);
    if (!blocks.empty() && offset >= blocks.back().begin) {
      forget_last(1);
      return true;
    }
    const auto before = directory_bytes(directory_);
    std::unique_ptr<database> refused;
    std::string message;
    const status s = database::open(options_, refused, message);
    fuzz_check(s == status::corrupt || s == status::format_mismatch, "damage before the tail is refused");
    fuzz_check(refused == nullptr && message.find(segment.filename().string()) != std::string::npos, "the refusal names the segment");
    fuzz_check(directory_bytes(directory_) == before, "a refused open changes nothing");
    write_file(segment, bytes);
    return false;
  }

  // The last `blocks` events of the log are gone, except those a checkpoint holds.
  void forget_last(std::size_t blocks) {
    fuzz_check(blocks <= history_.size() - session_start_, "the last segment holds this session's blocks only");
    for (; blocks > 0; --blocks) {
      if (history_.back().checkpointed) break;
      history_.pop_back();
    }
  }

  void reopen(bool torn) {
    std::string message;
    fuzz_check(database::open(options_, db_, message) == status::ok, "open: ok");
    fuzz_check(torn == (message.find("torn") != std::string::npos), "a torn tail is reported, nothing else is");
    fuzz_check(torn || message.empty(), "no message without a torn tail");
    if (options_.log_mode == commit_mode::none) {
      std::erase_if(history_, [](const logged_event& event) { return !event.checkpointed; });
    }
    // The committed state is the history replayed.
    committed_.clear();
    bool exists[table_count] = {};
    for (const logged_event& event : history_) {
      if (event.created_table >= 0) exists[event.created_table] = true;
      for (const auto& [k, v] : event.writes) committed_[k] = {v, 0};
    }
    session_start_ = history_.size();
    for (int table = 0; table < table_count; ++table) {
      const status found = db_->find_table(table_names[table], tables_[table]);
      fuzz_check((found == status::ok) == exists[table], "a table exists exactly when its creation survived");
      if (found != status::ok) {
        fuzz_check(db_->create_table(table_names[table], tables_[table]) == status::ok, "create_table");
        logged_event event;
        event.created_table = table;
        history_.push_back(std::move(event));
      }
    }
    sequence_ = 0;
    // Every row, read back whole.
    transaction reader = db_->begin(isolation::snapshot, access::read_only);
    std::map<row_key, std::string> seen;
    for (int table = 0; table < table_count; ++table) {
      const status s = reader.scan(tables_[table], "", 1u << 20, [&](std::string_view k, std::string_view v) {
        seen.emplace(row_key{table, std::string(k)}, std::string(v));
      });
      fuzz_check(s == status::ok, "reading back: ok");
    }
    fuzz_check(reader.commit() == status::ok, "reader commits");
    std::map<row_key, std::string> expected;
    for (const auto& [k, row] : committed_) {
      if (row.value) expected.emplace(k, *row.value);
    }
    fuzz_check(seen == expected, "after a reopen the database holds exactly what the log and checkpoint promise");
  }

  fuzz_input& input_;
  fs::path directory_;
  database_options options_;
  std::unique_ptr<database> db_;
  table_handle tables_[table_count];
  client clients_[client_count];
  std::map<row_key, committed_row> committed_;
  std::map<row_key, client*> in_flight_;
  // For each open transaction: its snapshot's view of rows committed after it began.
  std::map<const client*, std::map<row_key, std::optional<std::string>>> snapshots_;
  std::vector<logged_event> history_;
  std::size_t session_start_ = 0;
  std::uint64_t sequence_ = 0;
  std::uint64_t values_ = 0;
  int reopens_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz_input input(data, size);
  engine_run run(input);
  while (!input.empty()) run.step();
  run.finish_input();
  return 0;
}
