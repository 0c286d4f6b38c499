// Write a lookup once, run it sequentially and interleaved: the README's example, compiled.
#include <braid/core/all.hpp>

#include <cstdio>
#include <vector>

struct node { int key; int value; const node* next; };

template <braid::execution_mode M>             // sequential: a plain load; interleaved: prefetch + suspend
braid::coro<int> find(const std::vector<const node*>& buckets, int key) {
  const node* n = buckets[static_cast<unsigned>(key) % buckets.size()];
  while (n != nullptr) {
    const node& current = co_await braid::fetch<M>(n);   // the one line that marks a likely miss
    if (current.key == key) co_return current.value;
    n = current.next;
  }
  co_return -1;
}

int main() {
  std::vector<node> nodes(1 << 16);
  std::vector<const node*> buckets(1 << 12, nullptr);
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    auto& head = buckets[static_cast<unsigned>(i) % buckets.size()];
    nodes[static_cast<std::size_t>(i)] = {i, i * 10, head};
    head = &nodes[static_cast<std::size_t>(i)];
  }
  std::vector<int> keys = {5, 70000, 123, 65535};
  auto plain = braid::run(braid::sequential_scheduler{}, keys,
                          [&](int k) { return find<braid::sequential>(buckets, k); });
  auto braided = braid::run(braid::interleaved_scheduler{16}, keys,
                            [&](int k) { return find<braid::interleaved>(buckets, k); });
  for (std::size_t i = 0; i < keys.size(); ++i) std::printf("%d -> %d / %d\n", keys[i], plain[i], braided[i]);
  return plain == braided ? 0 : 1;
}
