#include "braid/txn/log.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "braid/txn/detail/log_format.hpp"

namespace braid::txn {

namespace {

namespace fs = std::filesystem;

// async: the flusher also wakes when this much is waiting, so that memory stays bounded.
constexpr std::size_t async_wakeup_bytes = 4u << 20;
// sync: wait_durable yields this many times before it sleeps.
constexpr int wait_spins = 50;

struct segment_file {
  std::uint64_t number;
  fs::path path;
};

// The segments of directory, oldest first; corrupt when their numbers are not consecutive.
status list_segments(const fs::path& directory, std::vector<segment_file>& out, std::string& message) {
  out.clear();
  std::error_code error;
  if (!fs::exists(directory, error)) return status::ok;
  for (fs::directory_iterator entry(directory, error), end; !error && entry != end; entry.increment(error)) {
    std::uint64_t number = 0;
    if (detail::parse_segment_file_name(entry->path().filename().string(), number)) {
      out.push_back({number, entry->path()});
    }
  }
  if (error) {
    message = "list " + directory.string() + ": " + error.message();
    return status::io_error;
  }
  std::sort(out.begin(), out.end(), [](const segment_file& a, const segment_file& b) { return a.number < b.number; });
  for (std::size_t index = 1; index < out.size(); ++index) {
    if (out[index].number != out[index - 1].number + 1) {
      message = "log segment missing: " + out[index - 1].path.string() + " is followed by " + out[index].path.string();
      return status::corrupt;
    }
  }
  return status::ok;
}

// Cuts the last segment back to its good prefix (removes it when even its header is torn).
status cut_torn_tail(const segment_file& segment, const detail::segment_scan& scan, const fs::path& directory,
                     std::string& message) {
  const status cut = scan.header_torn ? detail::remove_file(segment.path, message)
                                      : detail::truncate_file(segment.path, scan.good_bytes, message);
  if (cut != status::ok) return cut;
  return detail::sync_directory(directory, message);
}

// Reads and checks every segment; visit gets each intact block. On a torn tail the log is cut.
status scan_log(const fs::path& directory, const std::function<void(const detail::scanned_block&)>& visit,
                const std::function<void(const segment_file&, const detail::segment_scan&)>& scanned,
                bool& torn, std::string& message) {
  torn = false;
  std::vector<segment_file> segments;
  if (status s = list_segments(directory, segments, message); s != status::ok) return s;
  std::vector<std::byte> data;
  for (std::size_t index = 0; index < segments.size(); ++index) {
    const segment_file& segment = segments[index];
    if (status s = detail::read_file(segment.path, data, message); s != status::ok) return s;
    const bool is_last = index + 1 == segments.size();
    detail::segment_scan scan = detail::scan_segment(data, segment.path.string(), segment.number, is_last, visit);
    if (scan.result != status::ok) {
      message = std::move(scan.message);
      return scan.result;
    }
    scanned(segment, scan);
    if (scan.torn) {
      torn = true;
      message = scan.message + "; the log was cut back to byte offset " + std::to_string(scan.good_bytes);
      if (scan.header_torn) message = scan.message + "; the segment was removed";
      return cut_torn_tail(segment, scan, directory, message);
    }
  }
  return status::ok;
}

void raise_to(std::atomic<std::uint64_t>& target, std::uint64_t value) noexcept {
  std::uint64_t current = target.load(std::memory_order_relaxed);
  while (current < value && !target.compare_exchange_weak(current, value, std::memory_order_acq_rel)) {
  }
}

}  // namespace

log_manager::log_manager(const log_options& options) : options_(options) {}

status log_manager::open(const log_options& options, std::unique_ptr<log_manager>& out) {
  std::string message;
  return open(options, out, message);
}

status log_manager::open(const log_options& options, std::unique_ptr<log_manager>& out, std::string& message) {
  out.reset();
  message.clear();
  if (options.mode != commit_mode::sync && options.mode != commit_mode::async && options.mode != commit_mode::none) {
    message = "log_manager::open: unknown commit mode";
    return status::invalid_argument;
  }
  if (options.mode != commit_mode::none) {
    if (options.directory.empty() || options.segment_bytes == 0 ||
        (options.mode == commit_mode::async && options.async_interval.count() <= 0)) {
      message = "log_manager::open: needs a directory, segment_bytes > 0 and (async) async_interval > 0";
      return status::invalid_argument;
    }
  }
  std::unique_ptr<log_manager> manager(new log_manager(options));
  if (options.mode == commit_mode::none) {
    out = std::move(manager);
    return status::ok;
  }
  std::error_code error;
  fs::create_directories(options.directory, error);
  if (error) {
    message = "create directory " + options.directory.string() + ": " + error.message();
    return status::io_error;
  }
  if (status s = manager->recover_segments(message); s != status::ok) return s;
  manager->flusher_ = std::thread([raw = manager.get()] { raw->flusher_loop(); });
  out = std::move(manager);
  return status::ok;
}

status log_manager::recover_segments(std::string& message) {
  std::uint64_t last_number = 0;
  bool torn = false;
  const auto scanned = [&](const segment_file& segment, const detail::segment_scan& scan) {
    // A segment removed for its torn header leaves its number free for the next one.
    last_number = scan.header_torn && segment.number > 0 ? segment.number - 1 : segment.number;
    if (!scan.header_torn) closed_.push_back({segment.number, scan.max_commit_ts});
    raise_to(max_commit_ts_, scan.max_commit_ts);
  };
  if (status s = scan_log(options_.directory, nullptr, scanned, torn, message); s != status::ok) return s;
  if (last_number == std::numeric_limits<std::uint64_t>::max()) {
    message = "log segment numbers exhausted in " + options_.directory.string();
    return status::corrupt;
  }
  message.clear();
  return start_segment(last_number + 1, message);
}

fs::path log_manager::segment_path(std::uint64_t number) const {
  return options_.directory / detail::segment_file_name(number);
}

status log_manager::start_segment(std::uint64_t number, std::string& message) {
  const fs::path path = segment_path(number);
  detail::unique_fd file;
  if (status s = detail::open_file(path, O_WRONLY | O_CREAT | O_EXCL, file, message); s != status::ok) return s;
  const auto header = detail::encode_file_header({detail::log_segment_magic, detail::log_format_version, number});
  if (status s = detail::write_all(file.get(), header, path, message); s != status::ok) return s;
  if (status s = detail::sync_data(file.get(), path, message); s != status::ok) return s;
  fsyncs_.fetch_add(1, std::memory_order_relaxed);
  if (status s = detail::sync_directory(options_.directory, message); s != status::ok) return s;
  current_file_ = std::move(file);
  current_number_ = number;
  current_bytes_ = header.size();
  current_blocks_ = 0;
  current_max_ts_ = 0;
  return status::ok;
}

log_manager::~log_manager() {
  if (flusher_.joinable()) {
    {
      std::lock_guard lock(buffer_mutex_);
      stopping_ = true;
    }
    flusher_wakeup_.notify_one();
    flusher_.join();
  }
}

std::uint64_t log_manager::append_commit(std::uint64_t commit_ts, const log_buffer& records) {
  const std::span<const std::byte> payload = records.bytes();
  if (payload.size() > std::numeric_limits<std::uint32_t>::max() ||
      records.record_count() > std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("braid::txn::log_manager::append_commit: a commit block of 4 GiB or more");
  }
  const std::size_t block_bytes = detail::block_overhead_bytes + payload.size();
  commits_.fetch_add(1, std::memory_order_relaxed);
  raise_to(max_commit_ts_, commit_ts);
  if (options_.mode == commit_mode::none) return bytes_.fetch_add(block_bytes, std::memory_order_relaxed) + block_bytes;

  std::array<std::byte, detail::block_header_bytes> header;
  const std::uint32_t header_crc = detail::encode_block_header(header.data(), static_cast<std::uint32_t>(payload.size()),
                                                               commit_ts, static_cast<std::uint32_t>(records.record_count()));
  std::array<std::byte, detail::block_trailer_bytes> trailer;
  detail::store_u32(trailer.data(), detail::crc32c_extend(header_crc, payload.data(), payload.size()));

  std::uint64_t ticket;
  bool wake_flusher;
  {
    std::lock_guard lock(buffer_mutex_);
    std::vector<std::byte>& bytes = pending_.bytes;
    const std::size_t start = bytes.size();
    bytes.resize(start + block_bytes);
    std::memcpy(bytes.data() + start, header.data(), header.size());
    if (!payload.empty()) std::memcpy(bytes.data() + start + header.size(), payload.data(), payload.size());
    std::memcpy(bytes.data() + start + header.size() + payload.size(), trailer.data(), trailer.size());
    pending_.blocks.push_back({bytes.size(), commit_ts});
    appended_ += block_bytes;
    ticket = appended_;
    wake_flusher = options_.mode == commit_mode::sync ||
                   (start < async_wakeup_bytes && bytes.size() >= async_wakeup_bytes);
  }
  bytes_.fetch_add(block_bytes, std::memory_order_relaxed);
  if (wake_flusher) flusher_wakeup_.notify_one();
  return ticket;
}

status log_manager::wait_durable(std::uint64_t ticket) {
  if (options_.mode == commit_mode::none) return status::ok;
  if (durable_.load(std::memory_order_acquire) >= ticket) return status::ok;
  if (options_.mode == commit_mode::async) return failed_.load(std::memory_order_acquire) ? status::io_error : status::ok;
  {
    std::lock_guard lock(buffer_mutex_);
    if (ticket > appended_) return status::invalid_argument;  // never issued: would wait forever
  }
  // A fast device (tmpfs, a battery-backed cache) syncs in microseconds: look a few times,
  // giving the processor to the flusher meanwhile, before paying for a sleep and a wakeup.
  for (int spin = 0; spin < wait_spins; ++spin) {
    if (durable_.load(std::memory_order_acquire) >= ticket) return status::ok;
    std::this_thread::yield();
  }
  std::unique_lock lock(durable_mutex_);
  durable_changed_.wait(lock, [&] {
    return durable_.load(std::memory_order_acquire) >= ticket || failed_.load(std::memory_order_acquire);
  });
  return durable_.load(std::memory_order_acquire) >= ticket ? status::ok : status::io_error;
}

status log_manager::flush() {
  if (options_.mode == commit_mode::none) return status::ok;
  std::uint64_t target;
  {
    std::lock_guard lock(buffer_mutex_);
    target = appended_;
    flush_target_ = std::max(flush_target_, target);
  }
  flusher_wakeup_.notify_one();
  std::unique_lock lock(durable_mutex_);
  durable_changed_.wait(lock, [&] {
    return durable_.load(std::memory_order_acquire) >= target || failed_.load(std::memory_order_acquire);
  });
  return durable_.load(std::memory_order_acquire) >= target ? status::ok : status::io_error;
}

void log_manager::flusher_loop() {
  batch writing;
  std::unique_lock lock(buffer_mutex_);
  auto deadline = std::chrono::steady_clock::now() + options_.async_interval;
  for (;;) {
    if (options_.mode == commit_mode::sync) {
      flusher_wakeup_.wait(lock, [&] { return stopping_ || !pending_.blocks.empty(); });
    } else {
      flusher_wakeup_.wait_until(lock, deadline, [&] {
        return stopping_ || pending_.bytes.size() >= async_wakeup_bytes ||
               (flush_target_ > durable_.load(std::memory_order_acquire) && !pending_.blocks.empty());
      });
      if (pending_.blocks.empty() && !stopping_) {
        deadline = std::chrono::steady_clock::now() + options_.async_interval;
        continue;
      }
    }
    if (pending_.blocks.empty()) break;  // stopping, and everything is written
    std::swap(pending_, writing);
    const std::uint64_t target = appended_;
    deadline = std::chrono::steady_clock::now() + options_.async_interval;
    lock.unlock();
    if (!failed_.load(std::memory_order_acquire)) {
      std::string message;
      if (write_batch(writing, message) == status::ok) {
        publish_durable(target);
      } else {
        fail(std::move(message));
      }
    }
    writing.bytes.clear();
    writing.blocks.clear();
    lock.lock();
  }
}

status log_manager::write_batch(const batch& pending, std::string& message) {
  std::size_t run_start = 0;
  std::size_t previous_end = 0;
  for (const block_end& block : pending.blocks) {
    const std::size_t size = block.end - previous_end;
    if (current_blocks_ > 0 && current_bytes_ + size > options_.segment_bytes) {
      const std::span<const std::byte> run(pending.bytes.data() + run_start, previous_end - run_start);
      if (status s = write_run(run, message); s != status::ok) return s;
      if (status s = roll_over(message); s != status::ok) return s;
      run_start = previous_end;
    }
    current_bytes_ += size;
    ++current_blocks_;
    current_max_ts_ = std::max(current_max_ts_, block.commit_ts);
    previous_end = block.end;
  }
  const std::span<const std::byte> run(pending.bytes.data() + run_start, previous_end - run_start);
  if (status s = write_run(run, message); s != status::ok) return s;
  if (status s = detail::sync_data(current_file_.get(), segment_path(current_number_), message); s != status::ok) return s;
  fsyncs_.fetch_add(1, std::memory_order_relaxed);
  return status::ok;
}

status log_manager::write_run(std::span<const std::byte> bytes, std::string& message) {
  if (bytes.empty()) return status::ok;
  return detail::write_all(current_file_.get(), bytes, segment_path(current_number_), message);
}

status log_manager::roll_over(std::string& message) {
  if (status s = detail::sync_data(current_file_.get(), segment_path(current_number_), message); s != status::ok) return s;
  fsyncs_.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard lock(segments_mutex_);
    closed_.push_back({current_number_, current_max_ts_});
  }
  current_file_.reset();
  return start_segment(current_number_ + 1, message);
}

void log_manager::publish_durable(std::uint64_t position) {
  durable_.store(position, std::memory_order_release);
  { std::lock_guard lock(durable_mutex_); }
  durable_changed_.notify_all();
}

void log_manager::fail(std::string message) {
  {
    std::lock_guard lock(durable_mutex_);
    failure_ = std::move(message);
    failed_.store(true, std::memory_order_release);
  }
  durable_changed_.notify_all();
}

std::string log_manager::failure_message() const {
  std::lock_guard lock(durable_mutex_);
  return failure_;
}

status log_manager::truncate_through(std::uint64_t checkpoint_ts) {
  if (options_.mode == commit_mode::none) return status::ok;
  std::lock_guard lock(segments_mutex_);
  bool removed = false;
  std::string message;
  while (!closed_.empty() && closed_.front().max_commit_ts <= checkpoint_ts) {
    if (detail::remove_file(segment_path(closed_.front().number), message) != status::ok) return status::io_error;
    closed_.pop_front();
    removed = true;
  }
  if (removed) return detail::sync_directory(options_.directory, message);
  return status::ok;
}

log_stats log_manager::stats() const noexcept {
  return {commits_.load(std::memory_order_relaxed), bytes_.load(std::memory_order_relaxed),
          fsyncs_.load(std::memory_order_relaxed)};
}

status replay_log(const std::filesystem::path& directory, std::uint64_t after_ts,
                  const std::function<void(const log_record_view&)>& visit, replay_report& report) {
  report = replay_report{};
  const auto deliver = [&](const detail::scanned_block& block) {
    report.max_commit_ts = std::max(report.max_commit_ts, block.commit_ts);
    if (block.commit_ts <= after_ts) return;
    ++report.blocks;
    report.records += block.record_count;
    if (!visit) return;
    detail::for_each_record(block.payload, block.record_count, [&](const detail::decoded_record& record) {
      visit(log_record_view{block.commit_ts, record.op, record.table_id, record.oid, record.key, record.value});
    });
  };
  const auto scanned = [](const segment_file&, const detail::segment_scan&) {};
  bool torn = false;
  std::string message;
  const status result = scan_log(directory, deliver, scanned, torn, message);
  report.torn_tail = torn;
  report.message = std::move(message);
  return result;
}

}  // namespace braid::txn
