// How a step of a generated IMLP kernel (braid/index/generated/<kernel>.hpp) holds the fields
// of its context: a small trivially copyable field (a key, a pointer, an index) is copied into
// a local when the step begins and written back when it suspends, so the compiler keeps it in
// a register across the step's loops instead of storing every change to the context (it must,
// through a reference, whenever the field's type may alias the data the step reads: a
// std::size_t index and the std::int64_t keys it searches); any other field is used in place
// through a reference. An input (an Arg no statement writes) is const and never written back.
//
// Known limit: a field's address taken inside a step is the local's, valid until the step
// returns: a kernel must not keep it across a Yield.
#pragma once

#include <type_traits>

namespace braid::detail {

template <class T>
inline constexpr bool imlp_in_register = std::is_trivially_copyable_v<T> && sizeof(T) <= 16;

// The type of the step's name for a context field of type T: T itself, or T&.
template <class T>
using imlp_local_t = std::conditional_t<imlp_in_register<T>, T, T&>;

// The same for an input of the kernel (an Arg no statement writes): const.
template <class T>
using imlp_input_t = std::conditional_t<imlp_in_register<T>, const T, const T&>;

// Writes a step's local back into the context field it came from (nothing for a reference).
template <class T>
[[gnu::always_inline]] inline void imlp_write_back(T& field, const imlp_local_t<T>& local) {
  if constexpr (imlp_in_register<T>) field = local;
}

}  // namespace braid::detail
