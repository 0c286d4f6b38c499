// txn-frame-sizes: the coroutine frames of the transaction engine's operations (CoroBase
// §5.10: flattened read / update / insert frames of 232 / 200 / 312 bytes; a fully nested read
// keeps a chain of at least five frames, 808 bytes). Each operation is created and suspended
// (interleaved mode), then destroyed alone: the frames it held go to the head of their size
// classes' free lists in braid's frame pool, and counting what each list gained gives the
// frames and their bytes (the pool's classes: 64-byte steps up to 1 KiB, powers of two above,
// so a frame's bytes are rounded up to its class). Operations are measured at their first
// suspension (the nested get: inside its index probe). A compiler may place a child
// coroutine's frame inside its parent's (heap allocation elision), so the nested get can hold
// fewer frames than it has coroutine levels; the rows count what is really allocated.
//
// Rows, one per operation: frames, frame_bytes, bytes_per_frame. Options: --technique (the
// operations).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/core/detail/asan.hpp"
#include "braid/core/frame_pool.hpp"
#include "braid/txn/database.hpp"
#include "braid/txn/transaction_scheduler.hpp"
#include "experiment.hpp"
#include "figures.hpp"

namespace braid::bench {
namespace {

using txn::status;

struct frames_seen {
  std::int64_t frames = 0;
  std::size_t bytes = 0;
};

// The bytes a frame of size class `index` takes.
constexpr std::size_t class_bytes_of(std::size_t index) noexcept {
  return index < detail::small_frame_class_count ? (index + 1) * frame_pool::alignment
                                                 : std::size_t{1} << (index - detail::small_frame_class_count + 11);
}

// The frames `destroy()` returns to the calling thread's pool: what each class's free list
// gained on top of `heads` (the lists' heads before).
template <class Destroy>
frames_seen frames_freed_by(Destroy destroy) {
  auto& lists = detail::frame_pool_state.lists;
  const auto heads = lists;
  destroy();
  frames_seen seen;
  for (std::size_t index = 0; index < lists.size(); ++index) {
    for (detail::free_frame* frame = lists[index]; frame != heads[index];) {
      ++seen.frames;
      seen.bytes += class_bytes_of(index);
      BRAID_UNPOISON(frame, sizeof(detail::free_frame));  // free frames are poisoned under ASan
      detail::free_frame* next = frame->next;
      BRAID_POISON(frame, sizeof(detail::free_frame));
      frame = next;
    }
  }
  return seen;
}

// A database with enough records for a Masstree of a few levels.
struct small_database {
  small_database() {
    std::string message;
    if (txn::database::open({}, db, message) != status::ok || db->create_table("t", table) != status::ok) {
      throw std::runtime_error("txn-frame-sizes: cannot open an in-memory database: " + message);
    }
    txn::transaction tx = db->begin();
    for (int k = 0; k < 5000; ++k) {
      if (tx.insert(table, key(k), "value") != status::ok) throw std::runtime_error("txn-frame-sizes: load failed");
    }
    if (tx.commit() != status::ok) throw std::runtime_error("txn-frame-sizes: load failed");
  }
  static std::string key(int k) { return "key" + std::to_string(100000 + k); }

  std::unique_ptr<txn::database> db;
  txn::table_handle table;
};

// An operation in flight with the transaction and strings it uses (destroyed operation first).
template <class Operation>
struct in_flight {
  txn::transaction tx;
  std::string key;
  std::string value;
  Operation operation;
};

// Starts an operation with start(flight), suspended, and counts the frames it holds.
template <class Operation, class Start>
frames_seen frames_of(small_database& data, Start start) {
  in_flight<Operation> flight;
  flight.tx = data.db->begin();
  flight.key = small_database::key(4321);
  flight.operation = start(flight);
  if (flight.operation.done()) throw std::logic_error("txn-frame-sizes: an operation finished before it was measured");
  return frames_freed_by([&] { flight.operation.reset(); });
}

frames_seen measure(const std::string& operation, small_database& data) {
  using flat = coro<status>;
  const txn::table_handle t = data.table;
  if (operation == "get") {
    return frames_of<flat>(data, [&](auto& f) { return f.tx.template get<interleaved>(t, f.key, f.value); });
  }
  if (operation == "update") {
    return frames_of<flat>(data, [&](auto& f) { return f.tx.template update<interleaved>(t, f.key, "new"); });
  }
  if (operation == "insert") {
    return frames_of<flat>(data, [&](auto& f) { return f.tx.template insert<interleaved>(t, "absent key", "new"); });
  }
  if (operation == "scan") {
    return frames_of<flat>(data, [&](auto& f) {
      return f.tx.template scan<interleaved>(t, f.key, 10, [](std::string_view, std::string_view) {});
    });
  }
  return frames_of<task<status>>(data, [&](auto& f) {  // get-nested: started (lazy), inside its probe
    task<status> read = f.tx.template get_nested<interleaved>(t, f.key, f.value);
    read.resume();
    return read;
  });
}

void run_txn_frames(run_context& context) {
  small_database data;
  for (const std::string operation : {"get", "update", "insert", "scan", "get-nested"}) {
    if (!context.selected(operation)) continue;
    const frames_seen seen = measure(operation, data);
    if (seen.frames <= 0) throw std::logic_error("txn-frame-sizes: " + operation + " allocated no frame");
    result_row row;
    row.set("structure", "braid-txn")
        .set("technique", operation)
        .set("frames", seen.frames)
        .set("frame_bytes", static_cast<std::int64_t>(seen.bytes))
        .set("bytes_per_frame", static_cast<double>(seen.bytes) / static_cast<double>(seen.frames));
    context.emit(std::move(row));
  }
}

const registration txn_frames{experiment{
    .name = "txn-frame-sizes",
    .reproduces = "CoroBase §5.10 (coroutine frame sizes: flattened 232/200/312 B, fully nested 808 B per read)",
    .summary = "frames and bytes the engine's operation coroutines hold while suspended: get, update, insert, scan, "
               "and the fully nested get",
    .techniques = {"get", "update", "insert", "scan", "get-nested"},
    .accepted = accepts_technique,
    .run = run_txn_frames,
}};

const std::string frame_source = "CoroBase §5.10";
const std::string frame_caveat = "ours: 64-byte size classes of braid's frame pool; the paper's exact frame sizes";

const figure_registration frames_figure{txn_frames, figure{
    .name = "corobase-frame-sizes",
    .reproduces = "CoroBase §5.10 (coroutine frame sizes)",
    .summary = "bytes of the coroutine frames a suspended operation holds, flattened and fully nested",
    .panels = {{.label = "frames", .arguments = {}, .quick_arguments = {}}},
    .axes = {.x = "technique", .y = "frame_bytes", .series = {"structure"}, .x_label = "operation",
             .y_label = "bytes of coroutine frames"},
    .paper = {paper_claim(frame_source, "flattened read frame 232 bytes", {{"technique", "get"}}, statistic::maximum,
                          232, 232, shape_rule::within_factor(2), frame_caveat, "frame_bytes"),
              paper_claim(frame_source, "flattened update frame 200 bytes", {{"technique", "update"}},
                          statistic::maximum, 200, 200, shape_rule::within_factor(2), frame_caveat, "frame_bytes"),
              paper_claim(frame_source, "flattened insert frame 312 bytes", {{"technique", "insert"}},
                          statistic::maximum, 312, 312, shape_rule::within_factor(2), frame_caveat, "frame_bytes"),
              paper_claim(frame_source, "a fully nested read: at least five frames, 808 bytes",
                          {{"technique", "get-nested"}}, statistic::maximum, 808, 808,
                          shape_rule::within_factor(2), frame_caveat, "frame_bytes")},
}};

}  // namespace
}  // namespace braid::bench
