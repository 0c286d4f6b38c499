#include "braid/index/blink_tree/tasks.hpp"

namespace braid {

using namespace detail::blink_tree;
using tasks::access_intent;
using tasks::prefetch_descriptor;
using tasks::prefetch_temporality;
using tasks::resource_ptr;
using tasks::task_descriptor;
using tasks::task_result;
using tasks::worker;
using operation_status = blink_tree_operation_status;

namespace {

constexpr prefetch_temporality temporality_of_value_read = prefetch_temporality::non_temporal;

prefetch_descriptor value_line(unsigned index, prefetch_temporality temporality) {
  return prefetch_descriptor::lines(std::uint64_t{1} << leaf_node::value_line(index), temporality);
}

// Reading a leaf's whole content: scans take the keys and the values.
const prefetch_descriptor whole_leaf = prefetch_descriptor::bytes(node_bytes, prefetch_temporality::temporal);

}  // namespace

void detail::blink_tree::start_at_root(task_descriptor& task, const ::braid::blink_tree& tree, bool writes) {
  const resource_ptr root = tree.root();
  if (writes && root.as<node_header>()->is_leaf()) {
    task.annotate(root, access_intent::write, tree.options().insert_prefetch);
  } else {
    task.annotate(root, access_intent::readonly, tree.options().traversal_prefetch);
  }
}

// ---- lookup -----------------------------------------------------------------------------------

task_result blink_tree_lookup_task::execute(worker& self) {
  const auto& node = *object_as<const node_header>();
  if (const resource_ptr hop = next_hop(node, key_)) {
    annotate(hop, access_intent::readonly, tree_->options().traversal_prefetch);
    return task_result::succeed(*this);
  }
  const auto& leaf = static_cast<const leaf_node&>(node);
  if (value_step_) {
    // The slot found by the search step, unless a writer moved the key meanwhile.
    unsigned index = index_;
    if (index >= leaf.entries() || leaf.keys[index].load(std::memory_order_relaxed) != key_) index = leaf.find(key_);
    if (index != leaf_node::capacity) {
      value_ = leaf.values[index].load(std::memory_order_relaxed);
      status_ = operation_status::found;
    } else {
      status_ = operation_status::absent;
    }
    self.when_validated(&deliver);
    return task_result::remove();
  }
  const unsigned index = leaf.find(key_);
  if (index == leaf_node::capacity) {
    status_ = operation_status::absent;
    self.when_validated(&deliver);
    return task_result::remove();
  }
  if (!tree_->options().value_step) {
    value_ = leaf.values[index].load(std::memory_order_relaxed);
    status_ = operation_status::found;
    self.when_validated(&deliver);
    return task_result::remove();
  }
  value_step_ = true;
  index_ = static_cast<std::uint16_t>(index);
  annotate(object(), access_intent::readonly, value_line(index, temporality_of_value_read));
  return task_result::succeed(*this);
}

// ---- insert, update, erase --------------------------------------------------------------------

task_result blink_tree_write_task::execute(worker& self) {
  const auto& node = *object_as<const node_header>();
  const blink_tree_options& options = tree_->options();
  if (node.must_move_right(key_)) {
    // Same level, same role: a leaf writer stays a writer on the right leaf.
    annotate(node.right_sibling(), intent(), is_reader() ? options.traversal_prefetch : options.insert_prefetch);
    return task_result::succeed(*this);
  }
  if (!node.is_leaf()) {
    const resource_ptr child = static_cast<const inner_node&>(node).child_for(key_);
    const bool child_is_leaf = node.kind == node_kind::branch;
    if (child_is_leaf) parent_ = object();
    if (child_is_leaf && (operation_ != kind::update || !options.value_step)) {
      annotate(child, access_intent::write, options.insert_prefetch);  // decided here, one level up
    } else {
      annotate(child, access_intent::readonly, options.traversal_prefetch);
    }
    return task_result::succeed(*this);
  }
  if (is_reader()) {
    // A reader at a leaf: the update's search step, or a write that met a leaf root.
    if (operation_ == kind::update && options.value_step) {
      const unsigned index = static_cast<const leaf_node&>(node).find(key_);
      if (index == leaf_node::capacity) {
        status_ = operation_status::absent;
        self.when_validated(&deliver);
        return task_result::remove();
      }
      value_step_ = true;
      index_ = static_cast<std::uint16_t>(index);
      annotate(object(), access_intent::write, value_line(index, prefetch_temporality::write));
      return task_result::succeed(*this);
    }
    annotate(object(), access_intent::write, options.insert_prefetch);
    return task_result::succeed(*this);
  }
  return write_leaf(self);
}

task_result blink_tree_write_task::write_leaf(worker& self) {
  const resource_ptr leaf = object();
  switch (operation_) {
    case kind::update:
      status_ = tree_->leaf_update(leaf, value_step_ ? index_ : leaf_node::capacity, key_, value_)
                    ? operation_status::updated
                    : operation_status::absent;
      break;
    case kind::erase:
      status_ = tree_->leaf_erase(leaf, key_) ? operation_status::erased : operation_status::absent;
      break;
    case kind::insert:
    case kind::insert_or_assign: {
      const bool assign = operation_ == kind::insert_or_assign;
      const blink_tree::leaf_write written =
          tree_->leaf_insert(leaf, key_, value_, assign ? blink_tree::if_present::assign : blink_tree::if_present::keep);
      status_ = written.inserted ? operation_status::inserted
                : assign         ? operation_status::updated
                                 : operation_status::present;
      if (written.grown && !tree_->grow_root(leaf, written.grown)) {
        const bool parent_known = parent_ && parent_.as<node_header>()->level == 1;
        tree_->separator_started();
        self.spawn(*self.allocate<blink_tree_separator_task>(*tree_, std::uint8_t{1}, written.grown.separator,
                                                             written.grown.right, parent_known ? parent_ : tree_->root()));
      }
      break;
    }
  }
  // After the run, like a reader's: a writer's run is never repeated, but under the
  // transactional primitive it runs inside a hardware transaction, and the sink is code of its
  // own (a system call, or the VZEROUPPER compilers emit after vector code, aborts an Intel RTM
  // transaction every time).
  self.when_validated(&deliver);
  return task_result::remove();
}

// ---- separators ---------------------------------------------------------------------------------

blink_tree_separator_task::blink_tree_separator_task(blink_tree& tree, std::uint8_t level, key_type separator, resource_ptr right,
                               resource_ptr start) noexcept
    : tree_(&tree), separator_(separator), right_(right), level_(level) {
  const bool at_level = start.as<node_header>()->level == level;
  annotate(start, at_level ? access_intent::write : access_intent::readonly,
           at_level ? tree.options().insert_prefetch : tree.options().traversal_prefetch);
}

task_result blink_tree_separator_task::execute(worker& self) {
  const auto& node = *object_as<const node_header>();
  const blink_tree_options& options = tree_->options();
  if (node.level < level_) {
    annotate(tree_->root(), access_intent::readonly, options.traversal_prefetch);  // started too low: from the top
    return task_result::succeed(*this);
  }
  if (node.level > level_) {
    const bool moves_right = node.must_move_right(separator_);
    const resource_ptr hop = next_hop(node, separator_);
    const bool reaches_level = !moves_right && node.level - 1 == level_;
    annotate(hop, reaches_level ? access_intent::write : access_intent::readonly,
             reaches_level ? options.insert_prefetch : options.traversal_prefetch);
    return task_result::succeed(*this);
  }
  if (is_reader()) {
    annotate(object(), access_intent::write, options.insert_prefetch);
    return task_result::succeed(*this);
  }
  if (node.must_move_right(separator_)) {
    annotate(node.right_sibling(), access_intent::write, options.insert_prefetch);
    return task_result::succeed(*this);
  }
  const blink_tree::split above = tree_->inner_insert(object(), separator_, right_);
  if (above && !tree_->grow_root(object(), above)) {
    tree_->separator_started();
    self.spawn(*self.allocate<blink_tree_separator_task>(*tree_, static_cast<std::uint8_t>(level_ + 1), above.separator,
                                                         above.right, tree_->root()));
  }
  tree_->separator_finished();
  return task_result::remove();
}

// ---- scans --------------------------------------------------------------------------------------

task_result blink_tree_scan_task::execute(worker& self) {
  const auto& node = *object_as<const node_header>();
  if (!node.is_leaf() || node.must_move_right(from_)) {
    annotate(next_hop(node, from_), access_intent::readonly, node.is_leaf() ? whole_leaf : tree_->options().traversal_prefetch);
    return task_result::succeed(*this);
  }
  const auto& leaf = static_cast<const leaf_node&>(node);
  const unsigned count = leaf.entries();
  key_type last = 0;
  bool took = false;
  for (unsigned index = leaf.lower_bound(from_); index < count && count_ < limit_; ++index) {
    last = leaf.keys[index].load(std::memory_order_relaxed);
    checksum_ += leaf.values[index].load(std::memory_order_relaxed);
    ++count_;
    took = true;
  }
  const resource_ptr next = leaf.right_sibling();
  if (count_ == limit_ || !next || (took && last == ~key_type{0})) {
    self.when_validated(&deliver);
    return task_result::remove();
  }
  if (took) from_ = last + 1;
  annotate(next, access_intent::readonly, whole_leaf);
  return task_result::succeed(*this);
}

}  // namespace braid
