// What the B-link tree tests share: the benchmark driver's requests and results (the driver
// runs the tree's thread and task forms), and the node layer under the names the tests use.
#pragma once

#include "blink_tree_driver.hpp"
#include "tasks/task_test_support.hpp"

namespace braid::tasks::testing {

namespace blink = braid::bench::blink_bench;
namespace nodes = braid::detail::blink_tree;
using blink::key_type;
using blink::operation_result;
using blink::operation_status;
using blink::request;
using blink::request_kind;
using blink::value_type;

}  // namespace braid::tasks::testing
