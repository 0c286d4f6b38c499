// The registries of braid-bench: experiments, figure presets and headline entries register
// themselves at static-initialization time into one list per type, kept sorted (by name, or by
// the order the caller gives) and searched by name. Registration happens before main; the
// lists are only read afterwards, so no locking is needed.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace braid::bench {

// Every registered definition of this type.
template <typename Definition>
std::vector<Definition>& registered() {
  static std::vector<Definition> all;
  return all;
}

// Adds a definition, keeping the list sorted by `before` (by name unless given).
template <typename Definition, typename Before>
void register_sorted(Definition definition, Before before) {
  std::vector<Definition>& all = registered<Definition>();
  all.push_back(std::move(definition));
  std::sort(all.begin(), all.end(), before);
}

template <typename Definition>
void register_sorted(Definition definition) {
  register_sorted(std::move(definition), [](const Definition& a, const Definition& b) { return a.name < b.name; });
}

// The registered definition with this name, or nullptr.
template <typename Definition>
const Definition* find_registered(const std::string& name) {
  for (const Definition& candidate : registered<Definition>()) {
    if (candidate.name == name) return &candidate;
  }
  return nullptr;
}

}  // namespace braid::bench
