// The argument checks of every public batch lookup of an index (multi_find, multi_scan and the
// hand-written comparators): the output holds a result per key, and the group is at least 1.
// A violation throws std::invalid_argument naming the entry point ("sorted_array::find_amac").
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace braid::detail {

inline void check_batch_arguments(std::size_t keys, std::size_t results, std::size_t group, const std::string& entry) {
  if (results < keys) {
    throw std::invalid_argument(entry + ": output holds " + std::to_string(results) + " results for " +
                                std::to_string(keys) + " keys");
  }
  if (group == 0) throw std::invalid_argument(entry + ": group size must be at least 1");
}

}  // namespace braid::detail
