// Optimistic readers: a read that a writer overlapped is re-run from the descriptor's saved
// bytes; what the failed run spawned is destroyed without running, its effects are dropped;
// the successful run's follow-ups are dispatched after validation. The overlap is made
// deterministic: the reader's first run passes a writer through the object's version.
// braid-test: concurrent
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tasks/task_test_support.hpp"

namespace braid::tasks::testing {
namespace {

struct observations {
  int runs = 0;
  int runs_that_saw_dirty_state = 0;
  int effects = 0;
  int children_run = 0;
  lifetime_counter children;
};

struct child_task : annotated_task<child_task> {
  explicit child_task(observations* seen) noexcept : log(seen) { ++log->children.constructed; }
  ~child_task() { ++log->children.destroyed; }
  task_result execute(worker&) {
    ++log->children_run;
    return task_result::stop();
  }
  observations* log;
};

struct probing_reader : annotated_task<probing_reader> {
  probing_reader(observations* seen, counter_pair* pair) noexcept : log(seen), object(pair) {}
  task_result execute(worker& self) {
    ++log->runs;
    if (scratch != 0 || task_priority() != priority::normal) ++log->runs_that_saw_dirty_state;
    scratch = 42;
    annotate(priority::low);  // descriptor state, annotations included, must come back
    self.spawn(*self.allocate<child_task>(log));
    self.when_validated([](task_descriptor& task, worker&) { ++static_cast<probing_reader&>(task).log->effects; });
    if (log->runs == 1) {  // a writer passes through while this read runs
      object->lock_version();
      object->unlock_version();
    }
    return task_result::remove();
  }
  observations* log;
  counter_pair* object;
  int scratch = 0;
};

TEST(OptimisticReaders, AFailedValidationRestoresTheDescriptorAndDiscardsTheRun) {
  for (primitive protocol : {primitive::olfit, primitive::schedule_writer}) {
    observations seen;
    counter_pair pair;
    {
      runtime tasks(test_config(2));
      // schedule_writer readers validate only away from the owner: own the object by worker 1.
      const resource_ptr object = tasks.annotate(&pair, {.protocol = protocol, .owner = 1});
      auto* reader = tasks.allocate<probing_reader>(&seen, &pair);
      reader->annotate(object, access_intent::readonly);
      reader->annotate_worker(0);
      tasks.spawn(*reader);
      tasks.run();
      EXPECT_EQ(tasks.statistics().tasks.optimistic_retries, 1u) << to_string(protocol);
    }
    EXPECT_EQ(seen.runs, 2) << to_string(protocol);
    EXPECT_EQ(seen.runs_that_saw_dirty_state, 0) << to_string(protocol) << ": the re-run saw the failed run's state";
    EXPECT_EQ(seen.effects, 1) << to_string(protocol) << ": only the validated run's effect";
    EXPECT_EQ(seen.children_run, 1) << to_string(protocol) << ": only the validated run's follow-up";
    EXPECT_EQ(seen.children.constructed.load(), 2);
    EXPECT_EQ(seen.children.destroyed.load(), 2) << "the failed run's follow-up was destroyed";
  }
}

TEST(OptimisticReaders, AReaderOnTheOwnerOfAScheduledObjectIsNotValidated) {
  observations seen;
  counter_pair pair;
  runtime tasks(test_config(2));
  const resource_ptr object = tasks.annotate(&pair, {.protocol = primitive::schedule_writer, .owner = 0});
  auto* reader = tasks.allocate<probing_reader>(&seen, &pair);
  reader->annotate(object, access_intent::readonly);
  reader->annotate_worker(0);
  tasks.spawn(*reader);
  tasks.run();
  EXPECT_EQ(seen.runs, 1) << "writers of the object only run on its owner: no overlap is possible there";
  EXPECT_EQ(tasks.statistics().tasks.optimistic_retries, 0u);
}

struct not_restorable : annotated_task<not_restorable> {
  task_result execute(worker&) { return task_result::stop(); }
  std::string owned = "a member with its own heap state";
};

TEST(OptimisticReaders, ATaskThatCannotBeRestoredIsRefusedWithAClearError) {
  counter_pair pair;
  runtime tasks(test_config(1));
  auto* reader = tasks.allocate<not_restorable>();
  reader->annotate(tasks.annotate(&pair, {.protocol = primitive::olfit}), access_intent::readonly);
  tasks.spawn(*reader);
  try {
    tasks.run();
    FAIL() << "expected a logic_error";
  } catch (const std::logic_error& error) {
    EXPECT_NE(std::string(error.what()).find("not trivially copyable"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace braid::tasks::testing
