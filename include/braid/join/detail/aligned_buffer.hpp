// aligned_buffer<T>: an uninitialized array of trivially copyable T whose first element sits at
// a chosen power-of-two alignment (a cache line, a micro fragment). The partitioners write
// every element they hand out before reading it, so the buffer never pays for zeroing; pages
// are faulted in when first written. Growing (ensure) keeps nothing: the old contents are
// dropped, which is what reusing an output buffer across runs wants.
#pragma once

#include <cstddef>
#include <new>
#include <stdexcept>
#include <type_traits>

namespace braid::join::detail {

template <class T>
class aligned_buffer {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  aligned_buffer() noexcept = default;
  aligned_buffer(std::size_t count, std::size_t alignment) { ensure(count, alignment); }
  aligned_buffer(aligned_buffer&& other) noexcept
      : data_(other.data_), capacity_(other.capacity_), alignment_(other.alignment_) {
    other.data_ = nullptr;
    other.capacity_ = 0;
  }
  aligned_buffer& operator=(aligned_buffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = other.data_;
      capacity_ = other.capacity_;
      alignment_ = other.alignment_;
      other.data_ = nullptr;
      other.capacity_ = 0;
    }
    return *this;
  }
  aligned_buffer(const aligned_buffer&) = delete;
  aligned_buffer& operator=(const aligned_buffer&) = delete;
  ~aligned_buffer() { release(); }

  // Room for at least `count` elements at `alignment` (a power of two, at least alignof(T)).
  void ensure(std::size_t count, std::size_t alignment) {
    if (alignment < alignof(T) || (alignment & (alignment - 1)) != 0) {
      throw std::invalid_argument("aligned_buffer: alignment must be a power of two of at least alignof(T)");
    }
    if (count <= capacity_ && alignment <= alignment_ && data_ != nullptr) return;
    release();
    const std::size_t elements = count == 0 ? 1 : count;
    data_ = static_cast<T*>(::operator new(elements * sizeof(T), std::align_val_t{alignment}));
    capacity_ = elements;
    alignment_ = alignment;
  }

  [[nodiscard]] T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return data_ == nullptr ? 0 : capacity_; }
  T& operator[](std::size_t index) const noexcept { return data_[index]; }

 private:
  void release() noexcept {
    if (data_ != nullptr) ::operator delete(data_, std::align_val_t{alignment_});
    data_ = nullptr;
    capacity_ = 0;
  }

  T* data_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t alignment_ = 64;
};

}  // namespace braid::join::detail
