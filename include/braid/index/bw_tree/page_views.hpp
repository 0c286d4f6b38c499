// What a Bw-tree page holds, read from its head record: the newest delta about a key decides,
// then the base node. Plain functions of the records (no suspension, no prefetch), used by the
// writers (is the key present where the delta goes), consolidation and the scan.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "braid/index/bw_tree/records.hpp"

namespace braid::detail::bw_tree {

// Whether a leaf page, from its head record, holds `key` (the newest delta about it decides).
template <class Key, class Value>
inline bool leaf_holds(const record_header<Key>* head, Key key) noexcept {
  const record_header<Key>* current = head;
  for (; !current->is_base(); current = current->next) {
    if (current->kind == record_kind::leaf_upsert) {
      if (static_cast<const upsert_delta<Key, Value>*>(current)->key == key) return true;
    } else if (current->kind == record_kind::leaf_remove) {
      if (static_cast<const remove_delta<Key>*>(current)->key == key) return false;
    }
  }
  const auto* base = static_cast<const base_node<Key, Value>*>(current);
  return std::binary_search(base->keys(), base->keys() + base->count, key);
}

// The live (key, value) pairs of a leaf page, in key order, from its head record.
template <class Key, class Value>
void merged_leaf(const record_header<Key>* head, std::vector<std::pair<Key, Value>>& out) {
  struct change {
    Key key;
    Value value;
    bool present;
    std::uint32_t age;  // 0 for the newest delta
  };
  std::vector<change> changes;
  changes.reserve(head->chain_length);
  const record_header<Key>* current = head;
  std::uint32_t age = 0;
  while (!current->is_base()) {
    if (current->kind == record_kind::leaf_upsert) {
      changes.push_back({static_cast<const upsert_delta<Key, Value>*>(current)->key, static_cast<const upsert_delta<Key, Value>*>(current)->value, true, age++});
    } else if (current->kind == record_kind::leaf_remove) {
      changes.push_back({static_cast<const remove_delta<Key>*>(current)->key, Value{}, false, age++});
    }
    current = current->next;
  }
  // The newest change of each key wins.
  std::sort(changes.begin(), changes.end(),
            [](const change& a, const change& b) { return a.key != b.key ? a.key < b.key : a.age < b.age; });
  const base_node<Key, Value>* base = static_cast<const base_node<Key, Value>*>(current);
  out.clear();
  std::uint32_t from_base = 0;
  for (std::size_t from_changes = 0; from_changes < changes.size();) {
    const change& newest = changes[from_changes];
    while (from_base < base->count && base->keys()[from_base] < newest.key) {
      out.emplace_back(base->keys()[from_base], base->payloads()[from_base]);
      ++from_base;
    }
    if (from_base < base->count && base->keys()[from_base] == newest.key) ++from_base;
    if (newest.present) out.emplace_back(newest.key, newest.value);
    while (from_changes < changes.size() && changes[from_changes].key == newest.key) ++from_changes;
  }
  for (; from_base < base->count; ++from_base) out.emplace_back(base->keys()[from_base], base->payloads()[from_base]);
  // Keys the page no longer holds (they moved to the right sibling with a split).
  if (head->has_high) {
    std::erase_if(out, [&](const std::pair<Key, Value>& entry) { return entry.first >= head->high; });
  }
}

// The (separator, child) entries of an inner page, in key order, from its head record (an
// index entry and the base never name the same separator; if they did, the entry would win).
template <class Key>
void merged_inner(const record_header<Key>* head, std::vector<std::pair<Key, page_id>>& out) {
  struct entry {
    Key separator;
    std::uint32_t age;  // deltas newest first, then the base
    page_id child;
  };
  std::vector<entry> entries;
  const record_header<Key>* current = head;
  std::uint32_t age = 0;
  while (!current->is_base()) {
    if (current->kind == record_kind::inner_entry) {
      entries.push_back({static_cast<const entry_delta<Key>*>(current)->separator, age++, static_cast<const entry_delta<Key>*>(current)->child});
    }
    current = current->next;
  }
  const base_node<Key, page_id>* base = static_cast<const base_node<Key, page_id>*>(current);
  for (std::uint32_t index = 0; index < base->count; ++index) {
    entries.push_back({base->keys()[index], age, base->payloads()[index]});
  }
  std::sort(entries.begin(), entries.end(), [](const entry& a, const entry& b) {
    return a.separator != b.separator ? a.separator < b.separator : a.age < b.age;
  });
  out.clear();
  for (const entry& e : entries) {
    if (head->has_high && e.separator >= head->high) break;  // moved to the right sibling
    if (out.empty() || out.back().first != e.separator) out.emplace_back(e.separator, e.child);
  }
}

}  // namespace braid::detail::bw_tree
