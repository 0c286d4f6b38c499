// Masstree's optimistic descent of one layer, and its right-link step, as steps between node
// fetches: the flat get (one coroutine frame) and the nested get (one task per helper) run
// these same steps and differ only in where they suspend.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "braid/index/masstree/node.hpp"

namespace braid::detail::masstree {

// One layer's optimistic descent, from its root to the border node responsible for `slice`,
// as steps between node fetches: the flat and the nested get run the same steps and differ
// only in where they suspend. The caller fetches next() and calls step() until next() is
// null; then border() is the border node, read at version(). A root that split is climbed
// from; an interior node that split under the read restarts the descent at the layer's root.
//
// Every step reads next() as the child of node_ (read at version_); the layer's root is read
// as the child of no_parent, a node that never changes, so the first step takes the same
// path as the others: a branch on "first step?" mispredicted once per descent (a third of
// the plain get's mispredicted branches on 8-byte keys, by callgrind's branch simulation).
class layer_descent {
 public:
  layer_descent(const node_base* layer, std::uint64_t slice) noexcept : layer_(layer), next_(layer), slice_(slice) {}

  [[nodiscard]] const node_base* next() const noexcept { return next_; }
  // The bytes of next() to prefetch: its parent's hint says whether its suffix bag is inline.
  [[nodiscard]] std::size_t next_bytes() const noexcept { return next_bytes_; }
  [[nodiscard]] const border_node* border() const noexcept { return as_border(node_); }
  [[nodiscard]] node_version::word version() const noexcept { return version_; }

  // Reads the node just fetched (next()) and chooses the next one.
  [[gnu::always_inline]] void step() noexcept {
    const node_version::word child_version = next_->version.stable();
    if (node_->version.has_changed(version_)) [[unlikely]] {
      if (!revalidate()) return;
    } else if ((~child_version & root_expected_) != 0) [[unlikely]] {
      next_ = parent_of(next_).load(std::memory_order_acquire);  // the root split since it was recorded
      next_bytes_ = prefetched_bytes;
      return;
    } else {
      node_ = next_;
      version_ = child_version;
      root_expected_ = 0;
    }
    seek_child();
  }

 private:
  // Sets next_ to the child to fetch, or to null at the border node.
  [[gnu::always_inline]] void seek_child() noexcept {
    while (!node_version::is_border(version_)) {
      const interior_node* interior = as_interior(node_);
      const node_base* child = interior->child_for(slice_);
      if (child != nullptr) [[likely]] {
        next_ = child;
        next_bytes_ = interior->child_prefetch_bytes();
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
      node_ = &no_parent;
      version_ = 0;
      root_expected_ = node_version::root_bit;
      next_ = layer_;
      next_bytes_ = prefetched_bytes;
      return false;
    }
    version_ = now;
    return true;
  }

  static constinit inline const node_base no_parent{0};

  const node_base* layer_;
  const node_base* next_;
  const node_base* node_ = &no_parent;
  std::uint64_t slice_;
  std::size_t next_bytes_ = prefetched_bytes;
  node_version::word version_ = 0;
  node_version::word root_expected_ = node_version::root_bit;  // root_bit while node_ is no_parent, else 0
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
