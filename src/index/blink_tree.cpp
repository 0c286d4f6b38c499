#include "braid/index/blink_tree/tree.hpp"

#include <algorithm>
#include <array>
#include <sstream>
#include <stdexcept>

namespace braid {

using namespace detail::blink_tree;
using tasks::access_frequency;
using tasks::isolation;
using tasks::prefetch_descriptor;
using tasks::prefetch_temporality;
using tasks::read_write_ratio;
using tasks::resource_annotation;
using tasks::resource_ptr;

const char* to_string(blink_tree_node_part part) noexcept {
  using node_part = blink_tree_node_part;
  switch (part) {
    case node_part::none: return "none";
    case node_part::header: return "header";
    case node_part::half_keys: return "half-keys";
    case node_part::all_keys: return "all-keys";
    case node_part::whole_node: return "whole-node";
  }
  return "?";
}

prefetch_descriptor blink_tree_prefetch(blink_tree_node_part part, prefetch_temporality temporality) noexcept {
  using node_part = blink_tree_node_part;
  switch (part) {
    case node_part::none: return {};
    case node_part::header: return prefetch_descriptor::bytes(sizeof(node_header), temporality);
    case node_part::half_keys:
      return prefetch_descriptor::bytes(sizeof(node_header) + inner_node::capacity / 2 * sizeof(key_type), temporality);
    case node_part::all_keys:
      return prefetch_descriptor::bytes(sizeof(node_header) + leaf_node::capacity * sizeof(key_type), temporality);
    case node_part::whole_node: return prefetch_descriptor::bytes(node_bytes, temporality);
  }
  return {};
}

std::string blink_tree::consistency_report::describe() const {
  std::ostringstream text;
  text << (ok ? "consistent" : "INCONSISTENT") << ": " << keys << " keys, nodes per level (leaves first):";
  for (std::size_t count : nodes_per_level) text << ' ' << count;
  for (const std::string& problem : problems) text << "\n  " << problem;
  return text.str();
}

namespace {

inline void store(std::atomic<std::uint64_t>& target, std::uint64_t value) noexcept {
  target.store(value, std::memory_order_relaxed);
}
inline std::uint64_t load(const std::atomic<std::uint64_t>& source) noexcept {
  return source.load(std::memory_order_relaxed);
}

resource_annotation leaf_annotation(const blink_tree_options& options) {
  return {.isolation_level = isolation::exclusive_writer,
          .frequency = access_frequency::normal,
          .ratio = read_write_ratio::balanced,
          .protocol = options.leaf_protocol};
}
resource_annotation inner_annotation(const blink_tree_options& options, bool root) {
  return {.isolation_level = isolation::exclusive_writer,
          .frequency = root ? access_frequency::excessive : access_frequency::high,
          .ratio = read_write_ratio::heavy_read,
          .protocol = options.inner_protocol};
}

// Unlocks a node's version latch when it leaves scope (thread form).
class version_unlock {
 public:
  explicit version_unlock(resource_ptr node) noexcept : node_(node) {}
  version_unlock(const version_unlock&) = delete;
  version_unlock& operator=(const version_unlock&) = delete;
  ~version_unlock() {
    if (node_) node_.get()->unlock_version();
  }
  void release_now() noexcept {
    if (node_) std::exchange(node_, resource_ptr{}).get()->unlock_version();
  }
  void adopt(resource_ptr node) noexcept { node_ = node; }

 private:
  resource_ptr node_;
};

}  // namespace

blink_tree::blink_tree(tasks::runtime& owner, blink_tree_options options) : runtime_(&owner), options_(options) {
  resource_ptr first = make_leaf();
  root_.store(first.bits(), std::memory_order_release);
}

blink_tree::~blink_tree() = default;  // nodes are trivially destructible; the arenas go

std::string blink_tree::describe_pages() const {
  return arenas_.empty() ? "none" : arenas_.front().describe_pages();
}

namespace {
// Arenas grow from 2 MiB to 64 MiB: small trees stay small, big ones take few mappings.
std::size_t arena_bytes(std::size_t arenas_so_far) {
  return std::min<std::size_t>(std::size_t{2} << (20 + std::min<std::size_t>(arenas_so_far, 5)), std::size_t{64} << 20);
}
}  // namespace

void* blink_tree::allocate_node() {
  std::lock_guard lock(arena_mutex_);
  if (arenas_.empty() || arena_used_ + node_bytes > arenas_[current_arena_].size()) {
    if (!arenas_.empty()) ++current_arena_;
    if (current_arena_ == arenas_.size()) arenas_.emplace_back(arena_bytes(arenas_.size()), page_size::huge_2m);
    arena_used_ = 0;
  }
  void* node = arenas_[current_arena_].data() + arena_used_;
  arena_used_ += node_bytes;
  nodes_.fetch_add(1, std::memory_order_relaxed);
  return node;
}

void blink_tree::reserve(std::size_t nodes) {
  std::lock_guard lock(arena_mutex_);
  std::size_t capacity = 0;
  for (const huge_buffer& arena : arenas_) capacity += arena.size() / node_bytes;
  while (capacity < nodes) {
    arenas_.emplace_back(arena_bytes(arenas_.size()), page_size::huge_2m);
    capacity += arenas_.back().size() / node_bytes;
  }
}

void blink_tree::clear() {
  {
    std::lock_guard lock(arena_mutex_);
    current_arena_ = 0;
    arena_used_ = 0;
    nodes_.store(0, std::memory_order_relaxed);
  }
  root_.store(make_leaf().bits(), std::memory_order_release);
}

resource_ptr blink_tree::make_leaf() {
  auto* leaf = ::new (allocate_node()) leaf_node();
  return runtime_->annotate(leaf, leaf_annotation(options_));
}

resource_ptr blink_tree::make_inner(std::uint8_t level) {
  auto* inner = ::new (allocate_node()) inner_node(level == 1 ? node_kind::branch : node_kind::inner, level);
  return runtime_->annotate(inner, inner_annotation(options_, false));
}

// ---- structure changes (the caller holds the node exclusively) ------------------------------

blink_tree::leaf_write blink_tree::leaf_insert(resource_ptr leaf_pointer, key_type key, value_type value,
                                               if_present present) {
  auto& leaf = *leaf_pointer.as<leaf_node>();
  const unsigned count = leaf.entries();
  const unsigned position = leaf.lower_bound(key);
  if (position < count && leaf.keys[position].load(std::memory_order_relaxed) == key) {
    if (present == if_present::assign) leaf.values[position].store(value, std::memory_order_relaxed);
    return {};
  }
  if (count < leaf_node::capacity) {
    for (unsigned index = count; index > position; --index) {
      store(leaf.keys[index], load(leaf.keys[index - 1]));
      store(leaf.values[index], load(leaf.values[index - 1]));
    }
    store(leaf.keys[position], key);
    store(leaf.values[position], value);
    leaf.count.store(static_cast<std::uint16_t>(count + 1), std::memory_order_relaxed);
    return {.inserted = true};
  }
  // Full: the 61 entries (the new one in place) split 30 | 31. The right leaf is filled
  // while private, then linked: readers that reach it see it complete.
  std::array<key_type, leaf_node::capacity + 1> keys{};
  std::array<value_type, leaf_node::capacity + 1> values{};
  for (unsigned index = 0, from = 0; index <= leaf_node::capacity; ++index) {
    if (index == position) {
      keys[index] = key;
      values[index] = value;
    } else {
      keys[index] = load(leaf.keys[from]);
      values[index] = load(leaf.values[from]);
      ++from;
    }
  }
  constexpr unsigned left_count = (leaf_node::capacity + 1) / 2;
  constexpr unsigned right_count = leaf_node::capacity + 1 - left_count;
  const resource_ptr right_pointer = make_leaf();
  auto& right = *right_pointer.as<leaf_node>();
  for (unsigned index = 0; index < right_count; ++index) {
    store(right.keys[index], keys[left_count + index]);
    store(right.values[index], values[left_count + index]);
  }
  right.count.store(static_cast<std::uint16_t>(right_count), std::memory_order_relaxed);
  right.high_key.store(leaf.high_key.load(std::memory_order_relaxed), std::memory_order_relaxed);
  store(right.right, load(leaf.right));
  for (unsigned index = position; index < left_count; ++index) {
    store(leaf.keys[index], keys[index]);
    store(leaf.values[index], values[index]);
  }
  leaf.count.store(static_cast<std::uint16_t>(left_count), std::memory_order_relaxed);
  leaf.high_key.store(keys[left_count], std::memory_order_relaxed);
  store(leaf.right, right_pointer.bits());
  return {.inserted = true, .grown = {keys[left_count], right_pointer}};
}

bool blink_tree::leaf_update(resource_ptr leaf_pointer, unsigned index_hint, key_type key, value_type value) {
  auto& leaf = *leaf_pointer.as<leaf_node>();
  unsigned index = index_hint;
  if (index >= leaf.entries() || leaf.keys[index].load(std::memory_order_relaxed) != key) index = leaf.find(key);
  if (index == leaf_node::capacity) return false;
  leaf.values[index].store(value, std::memory_order_relaxed);
  return true;
}

bool blink_tree::leaf_erase(resource_ptr leaf_pointer, key_type key) {
  auto& leaf = *leaf_pointer.as<leaf_node>();
  const unsigned index = leaf.find(key);
  if (index == leaf_node::capacity) return false;
  const unsigned count = leaf.entries();
  for (unsigned at = index; at + 1 < count; ++at) {
    store(leaf.keys[at], load(leaf.keys[at + 1]));
    store(leaf.values[at], load(leaf.values[at + 1]));
  }
  leaf.count.store(static_cast<std::uint16_t>(count - 1), std::memory_order_relaxed);
  return true;
}

blink_tree::split blink_tree::inner_insert(resource_ptr inner_pointer, key_type separator, resource_ptr child) {
  auto& inner = *inner_pointer.as<inner_node>();
  const unsigned count = inner.entries();
  const unsigned position = inner.child_index(separator);  // the key goes at `position`, the child right of it
  if (count < inner_node::capacity) {
    for (unsigned index = count; index > position; --index) {
      store(inner.keys[index], load(inner.keys[index - 1]));
      store(inner.children[index + 1], load(inner.children[index]));
    }
    store(inner.keys[position], separator);
    store(inner.children[position + 1], child.bits());
    inner.count.store(static_cast<std::uint16_t>(count + 1), std::memory_order_relaxed);
    return {};
  }
  // Full: 60 keys and 61 children; the left keeps 29 keys, the middle key goes up, the
  // right takes the other 30.
  std::array<key_type, inner_node::capacity + 1> keys{};
  std::array<std::uint64_t, inner_node::capacity + 2> children{};
  children[0] = load(inner.children[0]);
  for (unsigned index = 0, from = 0; index <= inner_node::capacity; ++index) {
    if (index == position) {
      keys[index] = separator;
      children[index + 1] = child.bits();
    } else {
      keys[index] = load(inner.keys[from]);
      children[index + 1] = load(inner.children[from + 1]);
      ++from;
    }
  }
  constexpr unsigned left_count = inner_node::capacity / 2;                // 29 keys, 30 children
  constexpr unsigned right_count = inner_node::capacity - left_count;      // 30 keys, 31 children
  const key_type up = keys[left_count];
  const resource_ptr right_pointer = make_inner(inner.level);
  auto& right = *right_pointer.as<inner_node>();
  for (unsigned index = 0; index < right_count; ++index) store(right.keys[index], keys[left_count + 1 + index]);
  for (unsigned index = 0; index <= right_count; ++index) store(right.children[index], children[left_count + 1 + index]);
  right.count.store(static_cast<std::uint16_t>(right_count), std::memory_order_relaxed);
  right.high_key.store(inner.high_key.load(std::memory_order_relaxed), std::memory_order_relaxed);
  store(right.right, load(inner.right));
  for (unsigned index = position; index < left_count; ++index) store(inner.keys[index], keys[index]);
  for (unsigned index = position + 1; index <= left_count; ++index) store(inner.children[index], children[index]);
  inner.count.store(static_cast<std::uint16_t>(left_count), std::memory_order_relaxed);
  inner.high_key.store(up, std::memory_order_relaxed);
  store(inner.right, right_pointer.bits());
  return {up, right_pointer};
}

bool blink_tree::grow_root(resource_ptr node_pointer, const split& grown) {
  if (root().get() != node_pointer.get()) return false;
  const auto& old_root = *node_pointer.as<node_header>();
  auto* top = ::new (allocate_node()) inner_node(old_root.level == 0 ? node_kind::branch : node_kind::inner,
                                                 static_cast<std::uint8_t>(old_root.level + 1));
  store(top->keys[0], grown.separator);
  store(top->children[0], node_pointer.bits());
  store(top->children[1], grown.right.bits());
  top->count.store(1, std::memory_order_relaxed);
  const resource_ptr top_pointer = runtime_->annotate(top, inner_annotation(options_, true));
  root_.store(top_pointer.bits(), std::memory_order_release);
  return true;
}

// ---- thread form ----------------------------------------------------------------------------

std::optional<value_type> blink_tree::find(key_type key) const {
  resource_ptr current = root();
  for (;;) {
    const auto& node = *current.as<const node_header>();
    const std::uint64_t version = node.stable_version();
    if (const resource_ptr hop = next_hop(node, key)) {
      if (node.validate(version)) current = hop;
      continue;
    }
    const auto& leaf = static_cast<const leaf_node&>(node);
    const unsigned index = leaf.find(key);
    const value_type value = index == leaf_node::capacity ? 0 : leaf.values[index].load(std::memory_order_relaxed);
    if (!node.validate(version)) continue;
    if (index == leaf_node::capacity) return std::nullopt;
    return value;
  }
}

// Descends optimistically and returns the leaf for `key`, latched, with the key in its range;
// path[level] is the node each level was left from (the parent candidates).
resource_ptr blink_tree::locked_leaf_for(key_type key, level_path& path) {
  resource_ptr current = root();
  for (;;) {
    const auto& node = *current.as<node_header>();
    const std::uint64_t version = node.stable_version();
    if (node.is_leaf()) {
      if (!current.get()->try_lock_version(version)) continue;
      if (node.must_move_right(key)) {
        const resource_ptr next = node.right_sibling();
        current.get()->unlock_version();
        current = next;
        continue;
      }
      return current;
    }
    const bool moves_right = node.must_move_right(key);
    const resource_ptr hop = next_hop(node, key);
    if (!node.validate(version)) continue;
    if (!moves_right) path[node.level] = current;
    current = hop;
  }
}

void blink_tree::insert_separator_locked(level_path& path, unsigned level, split grown) {
  for (;;) {
    resource_ptr parent = level < path.size() ? path[level] : resource_ptr{};
    if (parent && parent.as<node_header>()->level != level) parent = resource_ptr{};
    if (!parent) {
      // The tree grew above where this descent started: find the level's node from the root.
      parent = root();
      if (parent.as<node_header>()->level < level) throw std::logic_error("blink_tree: no parent level for a split");
      while (parent.as<node_header>()->level > level) {
        const auto& node = *parent.as<node_header>();
        const std::uint64_t version = node.stable_version();
        const resource_ptr hop = next_hop(node, grown.separator);
        if (node.validate(version)) parent = hop;
      }
    }
    parent.get()->lock_version();
    while (parent.as<node_header>()->must_move_right(grown.separator)) {
      const resource_ptr next = parent.as<node_header>()->right_sibling();
      next.get()->lock_version();  // left to right, bottom up: no cycle of waits
      parent.get()->unlock_version();
      parent = next;
    }
    version_unlock unlock(parent);
    const split above = inner_insert(parent, grown.separator, grown.right);
    if (!above || grow_root(parent, above)) return;
    unlock.release_now();
    grown = above;
    ++level;
  }
}

// Both inserts: the leaf that covers `key` is latched (its version word) before the key is
// looked for, so deciding "absent" and adding the key are one critical section; a concurrent
// insert of the same key waits for the latch and then finds it.
bool blink_tree::insert_locked(key_type key, value_type value, if_present present) {
  level_path path{};
  const resource_ptr leaf = locked_leaf_for(key, path);
  version_unlock unlock(leaf);
  const leaf_write written = leaf_insert(leaf, key, value, present);
  if (!written.grown || grow_root(leaf, written.grown)) return written.inserted;
  unlock.release_now();
  insert_separator_locked(path, 1, written.grown);
  return written.inserted;
}

bool blink_tree::insert(key_type key, value_type value) { return insert_locked(key, value, if_present::keep); }

bool blink_tree::insert_or_assign(key_type key, value_type value) {
  return insert_locked(key, value, if_present::assign);
}

bool blink_tree::update(key_type key, value_type value) {
  level_path path{};
  const resource_ptr leaf = locked_leaf_for(key, path);
  version_unlock unlock(leaf);
  return leaf_update(leaf, leaf_node::capacity, key, value);
}

bool blink_tree::erase(key_type key) {
  level_path path{};
  const resource_ptr leaf = locked_leaf_for(key, path);
  version_unlock unlock(leaf);
  return leaf_erase(leaf, key);
}

blink_tree::scan_summary blink_tree::scan(key_type from, std::uint32_t limit,
                                          std::vector<std::pair<key_type, value_type>>* out) const {
  scan_summary summary;
  if (limit == 0) return summary;
  resource_ptr current = root();
  std::array<std::pair<key_type, value_type>, leaf_node::capacity> seen{};
  for (;;) {
    const auto& node = *current.as<const node_header>();
    const std::uint64_t version = node.stable_version();
    if (!node.is_leaf()) {
      const resource_ptr hop = next_hop(node, from);
      if (node.validate(version)) current = hop;
      continue;
    }
    // One leaf: copy what qualifies, validate, then take it.
    const auto& leaf = static_cast<const leaf_node&>(node);
    const bool beyond = node.must_move_right(from);
    const resource_ptr next = node.right_sibling();
    unsigned taken = 0;
    if (!beyond) {
      const unsigned count = leaf.entries();
      for (unsigned index = leaf.lower_bound(from); index < count && summary.count + taken < limit; ++index) {
        seen[taken++] = {leaf.keys[index].load(std::memory_order_relaxed), leaf.values[index].load(std::memory_order_relaxed)};
      }
    }
    if (!node.validate(version)) continue;
    for (unsigned index = 0; index < taken; ++index) {
      summary.checksum += seen[index].second;
      if (out != nullptr) out->push_back(seen[index]);
    }
    summary.count += taken;
    if (summary.count == limit || !next) return summary;
    if (taken > 0) {
      if (seen[taken - 1].first == ~key_type{0}) return summary;
      from = seen[taken - 1].first + 1;
    }
    current = next;
  }
}

// ---- consistency ------------------------------------------------------------------------------

blink_tree::consistency_report blink_tree::check(bool every_key_reachable) const {
  consistency_report report;
  auto problem = [&](const std::string& text) {
    report.ok = false;
    if (report.problems.size() < 20) report.problems.push_back(text);
  };
  const resource_ptr top = root();
  const unsigned levels = top.as<node_header>()->level + 1u;
  report.nodes_per_level.assign(levels, 0);

  // Every level left to right, from its leftmost node (child 0 of the leftmost node above).
  std::vector<std::vector<resource_ptr>> chains(levels);
  resource_ptr leftmost = top;
  for (int level = static_cast<int>(levels) - 1; level >= 0; --level) {
    std::vector<resource_ptr>& chain = chains[static_cast<std::size_t>(level)];
    std::optional<key_type> low;  // the previous node's high key
    for (resource_ptr current = leftmost; current; current = current.as<node_header>()->right_sibling()) {
      const auto& node = *current.as<node_header>();
      chain.push_back(current);
      std::ostringstream where;
      where << "level " << level << " node " << chain.size() - 1 << ": ";
      if (node.level != level) problem(where.str() + "level field " + std::to_string(node.level));
      const node_kind expected = level == 0 ? node_kind::leaf : level == 1 ? node_kind::branch : node_kind::inner;
      if (node.kind != expected) problem(where.str() + "wrong node kind for its level");
      const bool has_right = static_cast<bool>(node.right_sibling());
      const key_type high = node.high_key.load();
      if (has_right && low && high <= *low) problem(where.str() + "high key not above the left sibling's");
      const std::atomic<key_type>* keys = nullptr;
      unsigned count = 0;
      if (node.is_leaf()) {
        const auto& leaf = static_cast<const leaf_node&>(node);
        keys = leaf.keys;
        count = node.count.load();
        if (count > leaf_node::capacity) problem(where.str() + "count above capacity");
        count = std::min(count, leaf_node::capacity);
        report.keys += count;
      } else {
        const auto& inner = static_cast<const inner_node&>(node);
        keys = inner.keys;
        count = node.count.load();
        if (count > inner_node::capacity) problem(where.str() + "count above capacity");
        count = std::min(count, inner_node::capacity);
      }
      for (unsigned index = 0; index < count; ++index) {
        const key_type key = keys[index].load();
        if (index > 0 && key <= keys[index - 1].load()) problem(where.str() + "keys not strictly ascending");
        if (has_right && key >= high) problem(where.str() + "key at or above the high key");
        if (low && key < *low) problem(where.str() + "key below the left sibling's high key");
      }
      low = has_right ? std::optional<key_type>(high) : std::nullopt;
      if (!has_right && current.as<node_header>()->right.load() != 0) problem(where.str() + "right link broken");
    }
    report.nodes_per_level[static_cast<std::size_t>(level)] = chain.size();
    if (level > 0) leftmost = leftmost.as<inner_node>()->child(0);
  }

  // Parent entries: the children of a level, in order, are exactly the chain below, and each
  // child's high key is its parent's bound for it.
  for (unsigned level = 1; level < levels; ++level) {
    std::vector<resource_ptr> children;
    for (const resource_ptr& parent : chains[level]) {
      const auto& inner = *parent.as<inner_node>();
      const unsigned count = inner.entries();
      for (unsigned index = 0; index <= count; ++index) {
        const resource_ptr child = inner.child(index);
        children.push_back(child);
        const auto& below = *child.as<node_header>();
        const bool last_of_level = index == count && !inner.right_sibling();
        if (index < count) {
          if (below.high_key.load() != inner.keys[index].load() || !below.right_sibling()) {
            problem("level " + std::to_string(level) + ": a child's high key is not its separator");
          }
        } else if (!last_of_level && below.high_key.load() != inner.high_key.load()) {
          problem("level " + std::to_string(level) + ": a last child's high key is not its parent's");
        }
      }
    }
    const std::vector<resource_ptr>& below = chains[level - 1];
    if (children.size() != below.size() || !std::equal(children.begin(), children.end(), below.begin())) {
      problem("level " + std::to_string(level) + ": children (" + std::to_string(children.size()) +
              ") differ from the sibling chain below (" + std::to_string(below.size()) + " nodes)");
    }
  }

  if (every_key_reachable) {
    for (const resource_ptr& leaf_pointer : chains[0]) {
      const auto& leaf = *leaf_pointer.as<leaf_node>();
      for (unsigned index = 0; index < leaf.entries(); ++index) {
        const key_type key = leaf.keys[index].load();
        const std::optional<value_type> found = find(key);
        if (!found || *found != leaf.values[index].load()) {
          problem("key " + std::to_string(key) + " is not reachable from the root");
        }
      }
    }
  }
  return report;
}

}  // namespace braid
