// point_probe: Masstree's get as a state machine that its caller drives node by node, so that
// an operation coroutine of another layer (a transaction's get) can inline the index probe
// into its own frame and suspend at every node fetch (CoroBase's flattening) instead of
// calling a nested coroutine. masstree::lookup<M> runs the same probe, so there is one get.
//
//   braid::masstree<std::uint64_t>::point_probe probe(tree, key);
//   while (const void* node = probe.next()) {
//     co_await tree.fetch_node<M>(node, probe.next_bytes());   // prefetch (+ suspend if M interleaves)
//     probe.step();
//   }
//   std::optional<std::uint64_t> oid = probe.result();
//
// The probe pins the tree's epoch for its lifetime (keep it in the frame while it runs; it
// must be destroyed on the thread that created it). Each step reads the node fetched last:
// a layer's descent, the border node's optimistic read, a right-link walk after a split, the
// move to the next layer, or a restart of the layer after a deleted border node — exactly
// the steps of the flat get; and, when the key's slot keeps its rest in the leaf's suffix bag,
// a fetch of that bag before the leaf is read. The tree's puts and removes run the same probe with their own
// action at the border node (Action; the get's by default). Complexity: O(L · log₁₅ n)
// steps for a key of L slices.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>
#include <string_view>

#include "braid/core/prefetch.hpp"
#include "braid/index/masstree/descent.hpp"
#include "braid/index/masstree/node.hpp"

namespace braid::detail::masstree {

template <class Tree, class Action = void>
class point_probe {
  using value_type = typename Tree::mapped_type;
  // What the probe does at the key's border node: the get's optimistic read, or (the tree's
  // own writes) a change under the node's lock.
  using action_type = std::conditional_t<std::is_void_v<Action>, typename Tree::lookup_action, Action>;

 public:
  // fetch_suffixes: whether a key's suffix bag is a fetch of its own (for callers that
  // interleave; the plain operations read it at once).
  explicit point_probe(const Tree& tree, std::string_view key, action_type action = {}, bool fetch_suffixes = true)
      : action_(action),
        fetch_suffixes_(fetch_suffixes),
        guard_(tree.domain_.pin()),
        layer_(tree.root_.load(std::memory_order_acquire)),
        cursor_(key, 0),
        descent_(layer_, cursor_.slice),
        next_(descent_.next()) {}

  // The node to fetch before the next step; null once the result is known.
  [[nodiscard]] const void* next() const noexcept { return next_; }
  // The bytes of next() to prefetch (a suffix bag's lines; a node's, with its inline bag's
  // when the node likely has one).
  [[nodiscard]] std::size_t next_bytes() const noexcept { return next_bytes_; }
  [[nodiscard]] std::optional<value_type> result() const noexcept { return result_; }

  [[gnu::always_inline]] void step() noexcept {
    const std::size_t fetched = next_bytes_;
    switch (stage_) {
      case stage::descending:
        descent_.step();
        if (descent_.next() != nullptr) {
          next_ = descent_.next();
          next_bytes_ = descent_.next_bytes();
          return;
        }
        leaf_ = descent_.border();
        version_ = descent_.version();
        break;
      case stage::walking_right:
        leaf_ = static_cast<const border_node*>(next_);
        version_ = leaf_->version.stable();
        if (const border_node* right = responsible_right(leaf_, version_, cursor_.slice)) {
          next_ = right;
          next_bytes_ = right_prefetch_bytes(*leaf_);
          return;
        }
        stage_ = stage::descending;
        break;
      case stage::suffix:  // the leaf's suffix bag has been fetched
        stage_ = stage::descending;
        return at_leaf();
    }
    if (const void* bag = suffix_to_fetch(fetched)) {
      stage_ = stage::suffix;
      next_ = bag;
      next_bytes_ = suffix_bag::prefetched_bytes;
      return;
    }
    at_leaf();
  }

 private:
  using outcome_kind = typename Tree::leaf_outcome::kind;

  // The leaf's suffix bag if the key goes on past this layer's slice and the leaf has one that
  // its fetch (of `leaf_fetch_bytes`) did not bring along inline: fetched before the leaf is
  // read, so that comparing the suffix does not miss while nothing else is in flight. (A key
  // that goes on in a layer below fetches it in vain; telling the two apart would search the
  // leaf twice.) Null otherwise. The plain operations do not suspend for it, but prefetch it
  // here, as soon as the leaf's header is read, so that its miss overlaps the leaf's search
  // (and a put's locking) instead of following them: on 10 M decimal keys, plain gets 0-8 %
  // faster in back-to-back runs, puts within the noise.
  [[nodiscard]] const void* suffix_to_fetch(std::size_t leaf_fetch_bytes) const noexcept {
    if (cursor_.rank != long_key_with_suffix) return nullptr;
    const suffix_bag* bag = leaf_->suffixes.load(std::memory_order_acquire);
    if (bag == nullptr || (bag == leaf_->inline_bag() && leaf_fetch_bytes >= prefetched_bytes_with_bag)) return nullptr;
    if (fetch_suffixes_) return bag;
    prefetch_lines<suffix_bag::prefetched_bytes>(bag);
    return nullptr;
  }

  void restart_layer() noexcept {
    descent_ = layer_descent(layer_, cursor_.slice);
    next_ = descent_.next();
    next_bytes_ = descent_.next_bytes();
  }

  // At the border node: read it, re-reading while it changes, until the result, the next
  // layer, a right neighbour to fetch, or a restart.
  void at_leaf() noexcept {
    for (;;) {
      if (node_version::is_deleted(version_)) return restart_layer();
      const auto outcome = action_.at_leaf(*leaf_, version_, cursor_);
      if (outcome.what == outcome_kind::done) {
        result_ = outcome.result;
        next_ = nullptr;
        return;
      }
      if (outcome.what == outcome_kind::next_layer) {
        layer_ = outcome.layer;
        cursor_.descend();
        return restart_layer();
      }
      if (outcome.what == outcome_kind::restart) return restart_layer();  // a writer found it deleted
      const node_version::word before = version_;
      version_ = leaf_->version.stable();
      if (!node_version::split_between(before, version_)) continue;
      if (const border_node* right = responsible_right(leaf_, version_, cursor_.slice)) {
        stage_ = stage::walking_right;
        next_ = right;
        next_bytes_ = right_prefetch_bytes(*leaf_);
        return;
      }
    }
  }

  [[no_unique_address]] action_type action_;
  bool fetch_suffixes_;
  typename Tree::epoch_guard guard_;
  const node_base* layer_;
  key_cursor cursor_;
  layer_descent descent_;
  const void* next_;
  std::size_t next_bytes_ = prefetched_bytes;
  const border_node* leaf_ = nullptr;
  node_version::word version_ = 0;
  enum class stage : std::uint8_t { descending, walking_right, suffix };
  stage stage_ = stage::descending;
  std::optional<value_type> result_{};
};

}  // namespace braid::detail::masstree
