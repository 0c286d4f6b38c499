// result_slot<T>: where a finished operation keeps what it returned or threw, until its
// owner takes it. Lives inside a promise (or a fiber's state record).
#pragma once

#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace braid::detail {

template <class T>
class result_slot {
  static_assert(!std::is_reference_v<T>,
                "braid operations return values; return a pointer to refer to an object");

 public:
  result_slot() noexcept {}
  result_slot(const result_slot&) = delete;
  result_slot& operator=(const result_slot&) = delete;
  ~result_slot() {
    if (has_value_) std::destroy_at(std::launder(reinterpret_cast<T*>(storage_)));
  }

  template <class U>
  void set_value(U&& value) noexcept(std::is_nothrow_constructible_v<T, U&&>) {
    std::construct_at(reinterpret_cast<T*>(storage_), std::forward<U>(value));
    has_value_ = true;
  }
  void set_exception(std::exception_ptr exception) noexcept { exception_ = std::move(exception); }

  // Moves the value out, or rethrows what the operation threw. Call at most once.
  T take() {
    if (exception_) std::rethrow_exception(std::exchange(exception_, nullptr));
    return std::move(*std::launder(reinterpret_cast<T*>(storage_)));
  }

 private:
  std::exception_ptr exception_;
  bool has_value_ = false;
  alignas(T) unsigned char storage_[sizeof(T)];
};

template <>
class result_slot<void> {
 public:
  void set_exception(std::exception_ptr exception) noexcept { exception_ = std::move(exception); }
  void take() {
    if (exception_) std::rethrow_exception(std::exchange(exception_, nullptr));
  }

 private:
  std::exception_ptr exception_;
};

// The promise half that receives co_return: return_value for T, return_void for void.
template <class Derived, class T>
struct returns {
  template <class U = T>
    requires std::is_constructible_v<T, U&&>
  void return_value(U&& value) noexcept(std::is_nothrow_constructible_v<T, U&&>) {
    static_cast<Derived*>(this)->result.set_value(std::forward<U>(value));
  }
};

template <class Derived>
struct returns<Derived, void> {
  void return_void() noexcept {}
};

}  // namespace braid::detail
