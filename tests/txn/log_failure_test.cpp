// braid-test: concurrent
// A disk that refuses writes: the file-size limit (RLIMIT_FSIZE, with SIGXFSZ ignored) makes
// write() fail with EFBIG once a file would grow past it — a real write failure, not a mock.
// The log must become unusable for good (io_error from wait_durable and flush, nothing
// acknowledged that is not on disk); a checkpoint must fail without replacing the old one.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "braid/txn/checkpoint.hpp"
#include "braid/txn/log.hpp"
#include "txn/txn_test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace braid::txn;
using braid::txn::testing::temp_directory;

// Limits the size of files this process writes while alive.
class file_size_limit {
 public:
  explicit file_size_limit(rlim_t bytes) {
    std::signal(SIGXFSZ, SIG_IGN);
    EXPECT_EQ(::getrlimit(RLIMIT_FSIZE, &saved_), 0);
    rlimit limited = saved_;
    limited.rlim_cur = bytes;
    EXPECT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
  }
  file_size_limit(const file_size_limit&) = delete;
  file_size_limit& operator=(const file_size_limit&) = delete;
  ~file_size_limit() { ::setrlimit(RLIMIT_FSIZE, &saved_); }

 private:
  rlimit saved_{};
};

TEST(LogFailure, AWriteFailureMakesTheLogUnusable) {
  for (commit_mode mode : {commit_mode::sync, commit_mode::async}) {
    temp_directory directory;
    std::unique_ptr<log_manager> log;
    std::string message;
    ASSERT_EQ(log_manager::open({directory.path(), mode, std::chrono::milliseconds(1)}, log, message), status::ok) << message;
    log_buffer buffer;
    buffer.append(log_op::insert, 1, 1, "key", std::string(900, 'v'));
    const std::uint64_t before = log->append_commit(1, buffer);
    ASSERT_EQ(log->flush(), status::ok);
    {
      file_size_limit limit(4096);
      std::vector<std::uint64_t> tickets;
      for (std::uint64_t ts = 2; ts < 12; ++ts) tickets.push_back(log->append_commit(ts, buffer));
      EXPECT_EQ(log->flush(), status::io_error);
      EXPECT_NE(log->failure_message().find("File too large"), std::string::npos) << log->failure_message();
      EXPECT_NE(log->failure_message().find(directory.path().string()), std::string::npos) << log->failure_message();
      EXPECT_EQ(log->wait_durable(tickets.back()), status::io_error);
      EXPECT_LT(log->durable_ticket(), tickets.back());
      // From then on, every new commit fails, even though the disk would now take it.
      EXPECT_EQ(log->wait_durable(log->append_commit(20, buffer)), status::io_error);
    }
    EXPECT_EQ(log->wait_durable(log->append_commit(21, buffer)), status::io_error);
    EXPECT_EQ(log->flush(), status::io_error);
    EXPECT_EQ(log->wait_durable(before), status::ok);  // durable before the failure: still durable
    log.reset();
    // What reached the disk replays cleanly (possibly with a torn tail); it holds ts 1.
    replay_report report;
    std::vector<std::uint64_t> seen;
    ASSERT_EQ(replay_log(directory.path(), 0, [&](const log_record_view& r) { seen.push_back(r.commit_ts); }, report),
              status::ok) << report.message;
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.front(), 1u);
  }
}

TEST(LogFailure, ConcurrentWaitersAllSeeTheFailure) {
  temp_directory directory;
  std::unique_ptr<log_manager> log;
  ASSERT_EQ(log_manager::open({directory.path(), commit_mode::sync}, log), status::ok);
  file_size_limit limit(2048);
  std::vector<std::thread> workers;
  std::atomic<int> failures{0};
  for (int thread = 0; thread < 4; ++thread) {
    workers.emplace_back([&, thread] {
      log_buffer buffer;
      buffer.append(log_op::update, 1, static_cast<std::uint64_t>(thread), "k", std::string(300, 'x'));
      for (std::uint64_t ts = 1; ts <= 20; ++ts) {
        if (log->wait_durable(log->append_commit(ts, buffer)) == status::io_error) ++failures;
      }
    });
  }
  for (auto& worker : workers) worker.join();
  EXPECT_GT(failures.load(), 0);
  EXPECT_FALSE(log->failure_message().empty());
}

TEST(CheckpointFailure, AFailedCheckpointLeavesTheOldOneNewest) {
  temp_directory directory;
  std::unique_ptr<checkpoint_writer> writer;
  ASSERT_EQ(checkpoint_writer::begin(directory.path(), 5, writer), status::ok);
  ASSERT_EQ(writer->add_table(1, "t"), status::ok);
  ASSERT_EQ(writer->add_row(1, 1, "old", "row"), status::ok);
  ASSERT_EQ(writer->commit(), status::ok);
  {
    file_size_limit limit(64 << 10);
    ASSERT_EQ(checkpoint_writer::begin(directory.path(), 6, writer), status::ok);
    ASSERT_EQ(writer->add_table(1, "t"), status::ok);
    status s = status::ok;
    for (std::uint64_t row = 0; row < 5000 && s == status::ok; ++row) s = writer->add_row(1, row, "key", std::string(1000, 'r'));
    if (s == status::ok) s = writer->commit();
    EXPECT_EQ(s, status::io_error);
    EXPECT_NE(writer->message().find(".tmp"), std::string::npos) << writer->message();
    EXPECT_EQ(writer->commit(), status::invalid_argument);
    writer.reset();
  }
  std::uint64_t ts = 0;
  std::string message;
  std::vector<std::string> keys;
  checkpoint_visitor visit;
  visit.row = [&](std::uint32_t, std::uint64_t, std::string_view key, std::string_view) { keys.emplace_back(key); };
  ASSERT_EQ(load_checkpoint(directory.path(), visit, ts, message), status::ok) << message;
  EXPECT_EQ(ts, 5u);
  EXPECT_EQ(keys, std::vector<std::string>{"old"});
}

}  // namespace
