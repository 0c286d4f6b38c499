// add_counters: the operator+= of a struct of counters, written once. Adds each member that
// `Counters` names (pointers to members) of `other` into `self`; returns `self`.
//
//   worker_statistics& operator+=(const worker_statistics& other) noexcept {
//     return add_counters<&worker_statistics::executed, &worker_statistics::refills>(*this, other);
//   }
//
// Cost: one addition per named member, no loop at run time.
#pragma once

namespace braid::detail {

template <auto... Counters, class Struct>
constexpr Struct& add_counters(Struct& self, const Struct& other) noexcept {
  ((self.*Counters += other.*Counters), ...);
  return self;
}

}  // namespace braid::detail
