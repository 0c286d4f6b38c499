// The peer baselines braid-bench compares against are available and behave as maps.
#include <gtest/gtest.h>

#include <absl/container/btree_map.h>
#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <map>

#include "workloads.hpp"

namespace braid::bench {
namespace {

TEST(PeerBaselines, AbseilContainersAgreeWithStdMap) {
  absl::flat_hash_map<std::uint64_t, std::uint64_t> hash;
  absl::btree_map<std::uint64_t, std::uint64_t> tree;
  std::map<std::uint64_t, std::uint64_t> oracle;
  random_source random(1);
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t key = random.below(3000);
    hash[key] = key * 3;
    tree[key] = key * 3;
    oracle[key] = key * 3;
  }
  EXPECT_EQ(hash.size(), oracle.size());
  EXPECT_EQ(tree.size(), oracle.size());
  for (const auto& [key, value] : oracle) {
    EXPECT_EQ(hash.at(key), value);
    EXPECT_EQ(tree.at(key), value);
  }
  EXPECT_EQ(tree.lower_bound(1500)->first, oracle.lower_bound(1500)->first);
}

}  // namespace
}  // namespace braid::bench
