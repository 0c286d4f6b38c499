// Masstree's optimistic descent of one layer, and its right-link step, as steps between node
// fetches: the flat get (one coroutine frame) and the nested get (one task per helper) run
// these same steps and differ only in where they suspend.
#pragma once

#include <atomic>
#include <cstdint>

#include "braid/index/masstree/node.hpp"

namespace braid::detail::masstree {

// One layer's optimistic descent, from its root to the border node responsible for `slice`,
// as steps between node fetches: the flat and the nested get run the same steps and differ
// only in where they suspend. The caller fetches next() and calls step() until next() is
// null; then border() is the border node, read at version(). A root that split is climbed
// from; an interior node that split under the read restarts the descent at the layer's root.
class layer_descent {
 public:
  layer_descent(const node_base* layer, std::uint64_t slice) noexcept : layer_(layer), next_(layer), slice_(slice) {}

  [[nodiscard]] const node_base* next() const noexcept { return next_; }
  [[nodiscard]] const border_node* border() const noexcept { return as_border(node_); }
  [[nodiscard]] node_version::word version() const noexcept { return version_; }

  // Reads the node just fetched (next()) and chooses the next one.
  void step() noexcept {
    if (climbing_) {
      node_ = next_;
      version_ = node_->version.stable();
      if (!node_version::is_root(version_)) {  // the layer's root split since it was recorded
        next_ = parent_of(node_).load(std::memory_order_acquire);
        return;
      }
      climbing_ = false;
    } else {  // next_ is the child of node_
      const node_version::word child_version = next_->version.stable();
      if (!node_->version.has_changed(version_)) {
        node_ = next_;
        version_ = child_version;
      } else if (!revalidate()) {
        return;
      }
    }
    seek_child();
  }

 private:
  // Sets next_ to the child to fetch, or to null at the border node.
  void seek_child() noexcept {
    while (!node_version::is_border(version_)) {
      const node_base* child = as_interior(node_)->child_for(slice_);
      if (child != nullptr) {
        next_ = child;
        return;
      }
      if (!revalidate()) return;
    }
    next_ = nullptr;
  }
  // node_ changed under the read: false (and a restart from the layer's root) if it split.
  bool revalidate() noexcept {
    const node_version::word now = node_->version.stable();
    if (node_version::split_between(version_, now)) {
      climbing_ = true;
      next_ = layer_;
      return false;
    }
    version_ = now;
    return true;
  }

  const node_base* layer_;
  const node_base* next_;
  const node_base* node_ = nullptr;
  std::uint64_t slice_;
  node_version::word version_ = 0;
  bool climbing_ = true;
};

// After a border node changed at `version`: its right neighbour if that is now responsible
// for `slice` (the node split), else null (it still is, or it was deleted).
inline const border_node* responsible_right(const border_node* leaf, node_version::word version,
                                            std::uint64_t slice) noexcept {
  if (node_version::is_deleted(version)) return nullptr;
  const border_node* next = leaf->next.load(std::memory_order_acquire);
  return next == nullptr || slice < next->low_slice ? nullptr : next;
}

}  // namespace braid::detail::masstree
