// Dispatching by annotation: tagged resource pointers, the primitive matrix, owner assignment,
// and where a spawned task runs (explicit target, object owner for scheduled objects and
// writers, local otherwise, forwarding when a target disagrees with an owner).
// braid-test: concurrent
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <memory>

#include "tasks/task_test_support.hpp"

namespace braid::tasks::testing {
namespace {

TEST(ResourcePointer, PacksAddressOwnerAndPrimitive) {
  auto object = std::make_unique<counter_pair>();
  const resource_ptr pointer(object.get(), 4095, primitive::olfit);
  EXPECT_EQ(pointer.get(), object.get());
  EXPECT_EQ(pointer.as<counter_pair>(), object.get());
  EXPECT_EQ(pointer.owner(), 4095);
  EXPECT_EQ(pointer.protocol(), primitive::olfit);
  EXPECT_TRUE(static_cast<bool>(pointer));
  EXPECT_EQ(resource_ptr::from_bits(pointer.bits()), pointer);
  EXPECT_FALSE(static_cast<bool>(resource_ptr{}));
  for (primitive each : {primitive::none, primitive::exclusive_latch, primitive::reader_writer_latch,
                         primitive::schedule_all, primitive::schedule_writer, primitive::olfit,
                         primitive::transactional, primitive::batched}) {
    EXPECT_EQ(resource_ptr(object.get(), 7, each).protocol(), each);
    EXPECT_EQ(resource_ptr(object.get(), 7, each).owner(), 7);
    EXPECT_EQ(parse_primitive(to_string(each)), each);
  }
}

TEST(PrimitiveMatrix, FollowsTheDissertationsChoices) {
  using enum access_frequency;
  const auto shared = isolation::exclusive_writer;
  EXPECT_EQ(select_primitive(shared, read_write_ratio::heavy_read, excessive), primitive::schedule_writer);
  EXPECT_EQ(select_primitive(shared, read_write_ratio::heavy_read, unused), primitive::schedule_writer);
  EXPECT_EQ(select_primitive(shared, read_write_ratio::mostly_read, high), primitive::schedule_writer);
  EXPECT_EQ(select_primitive(shared, read_write_ratio::mostly_read, normal), primitive::olfit);
  EXPECT_EQ(select_primitive(shared, read_write_ratio::balanced, excessive), primitive::olfit);
  EXPECT_EQ(select_primitive(shared, read_write_ratio::mostly_written, normal), primitive::reader_writer_latch);
  EXPECT_EQ(select_primitive(shared, read_write_ratio::heavy_written, high), primitive::schedule_all);
  EXPECT_EQ(select_primitive(shared, read_write_ratio::heavy_written, unused), primitive::reader_writer_latch);
  EXPECT_EQ(select_primitive(isolation::exclusive, read_write_ratio::balanced, excessive), primitive::schedule_all);
  EXPECT_EQ(select_primitive(isolation::none, read_write_ratio::balanced, normal), primitive::none);
  // Exclusive, not hot: a hardware transaction where the CPU has one, else its spinlock fallback.
  EXPECT_EQ(select_primitive(isolation::exclusive, read_write_ratio::balanced, normal),
            hardware_transactions_supported() ? primitive::transactional : primitive::exclusive_latch);
}

TEST(PrimitiveMatrix, AnExplicitProtocolOverridesTheMatrix) {
  runtime tasks(test_config(1));
  counter_pair object;
  EXPECT_EQ(tasks.annotate(&object, {.ratio = read_write_ratio::heavy_read, .protocol = primitive::exclusive_latch})
                .protocol(),
            primitive::exclusive_latch);
  const resource_ptr transactional = tasks.annotate(&object, {.protocol = primitive::transactional});
  EXPECT_EQ(transactional.protocol(),
            hardware_transactions_supported() ? primitive::transactional : primitive::olfit)
      << "without RTM: the matrix's choice for the annotations (exclusive_writer, balanced, normal)";
  EXPECT_THROW((void)tasks.annotate(&object, {.protocol = primitive::batched}), std::invalid_argument);
  EXPECT_THROW((void)tasks.annotate(&object, {.owner = 1}), std::invalid_argument);
}

TEST(OwnerAssignment, RoundRobinThatAvoidsWorkersOwningHotObjects) {
  runtime tasks(test_config(4));
  std::array<int, 4> owned{};
  for (int index = 0; index < 8; ++index) ++owned[tasks.assign_owner(access_frequency::normal)];
  EXPECT_EQ(owned, (std::array<int, 4>{2, 2, 2, 2}));
  const std::uint16_t hot = tasks.assign_owner(access_frequency::excessive);
  for (int index = 0; index < 30; ++index) {
    EXPECT_NE(tasks.assign_owner(access_frequency::normal), hot) << "the owner of an excessive object is skipped";
  }
}

// Records the worker each run happened on. The record is an effect: an optimistic reader that
// a concurrent writer invalidates runs again, and only its validated run may count.
struct where_task : annotated_task<where_task> {
  where_task(std::atomic<int>* runs_on, completion* done) noexcept : runs_on_worker(runs_on), finished(done) {}
  task_result execute(worker& self) {
    self.when_validated([](task_descriptor& task, worker& on) {
      auto& self_task = static_cast<where_task&>(task);
      self_task.runs_on_worker[on.id()].fetch_add(1);
      self_task.finished->done(on);
    });
    return task_result::remove();
  }
  std::atomic<int>* runs_on_worker;
  completion* finished;
};

// Spawns `make(index)` tasks from inside a task on worker `from`; returns runs per worker.
template <class Annotate>
std::array<int, 2> run_from_worker(std::uint16_t from, int count, Annotate annotate, std::uint64_t* forwarded = nullptr) {
  runtime tasks(test_config(2));
  std::array<std::atomic<int>, 2> runs_on{};
  completion finished(count);
  auto* spawner = tasks.allocate_lambda([&](worker& self) {
    for (int index = 0; index < count; ++index) {
      auto* task = self.allocate<where_task>(runs_on.data(), &finished);
      annotate(tasks, *task, index);
      self.spawn(*task);
    }
  });
  spawner->annotate_worker(from);
  tasks.spawn(*spawner);
  tasks.run();
  if (forwarded != nullptr) *forwarded = tasks.statistics().tasks.forwarded;
  return {runs_on[0].load(), runs_on[1].load()};
}

TEST(Dispatch, UnannotatedTasksRunWhereTheyWereSpawned) {
  EXPECT_EQ(run_from_worker(1, 20, [](runtime&, where_task&, int) {}), (std::array<int, 2>{0, 20}));
}

TEST(Dispatch, AnExplicitTargetWins) {
  EXPECT_EQ(run_from_worker(0, 20, [](runtime&, where_task& task, int) { task.annotate_worker(1); }),
            (std::array<int, 2>{0, 20}));
}

counter_pair shared_object;

TEST(Dispatch, SerializedObjectsRunOnTheirOwnerForReadersAndWriters) {
  auto annotate = [](runtime& tasks, where_task& task, int index) {
    const resource_ptr object = tasks.annotate(&shared_object, {.protocol = primitive::schedule_all, .owner = 1});
    task.annotate(object, index % 2 == 0 ? access_intent::readonly : access_intent::write);
  };
  EXPECT_EQ(run_from_worker(0, 20, annotate), (std::array<int, 2>{0, 20}));
}

TEST(Dispatch, ScheduledWritersGoToTheOwnerWhileReadersStayLocal) {
  auto annotate = [](runtime& tasks, where_task& task, int index) {
    const resource_ptr object = tasks.annotate(&shared_object, {.protocol = primitive::schedule_writer, .owner = 1});
    task.annotate(object, index < 5 ? access_intent::write : access_intent::readonly);
  };
  EXPECT_EQ(run_from_worker(0, 20, annotate), (std::array<int, 2>{15, 5}));
}

TEST(Dispatch, LatchedAndOptimisticObjectsRunLocally) {
  for (primitive protocol : {primitive::olfit, primitive::exclusive_latch, primitive::reader_writer_latch}) {
    auto annotate = [protocol](runtime& tasks, where_task& task, int index) {
      const resource_ptr object = tasks.annotate(&shared_object, {.protocol = protocol, .owner = 1});
      task.annotate(object, index % 2 == 0 ? access_intent::write : access_intent::readonly);
    };
    EXPECT_EQ(run_from_worker(0, 20, annotate), (std::array<int, 2>{20, 0})) << to_string(protocol);
  }
}

TEST(Dispatch, ATargetThatDisagreesWithTheOwnerIsForwarded) {
  std::uint64_t forwarded = 0;
  auto annotate = [](runtime& tasks, where_task& task, int) {
    const resource_ptr object = tasks.annotate(&shared_object, {.protocol = primitive::schedule_all, .owner = 1});
    task.annotate(object, access_intent::write);
    task.annotate_worker(0);
  };
  EXPECT_EQ(run_from_worker(1, 10, annotate, &forwarded), (std::array<int, 2>{0, 10}));
  EXPECT_EQ(forwarded, 10u);
}

TEST(Dispatch, ATargetBeyondTheWorkersIsAnError) {
  runtime tasks(test_config(2));
  auto* task = tasks.allocate_lambda([](worker&) { return task_result::stop(); });
  task->annotate_worker(5);
  EXPECT_THROW(tasks.spawn(*task), std::logic_error);
  tasks.free(*task);
}

}  // namespace
}  // namespace braid::tasks::testing
