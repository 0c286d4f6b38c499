// Counts the program's global heap allocations: replaces the global operator new (every form)
// and delete to count calls in `global_allocations`. Include it in one file of a test
// executable only (the replacements are the program's). ThreadSanitizer's runtime defines
// operator new itself: under TSan nothing is replaced, BRAID_COUNTS_GLOBAL_ALLOCATIONS is 0
// and the count stays 0.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_THREAD__)
#define BRAID_COUNTS_GLOBAL_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BRAID_COUNTS_GLOBAL_ALLOCATIONS 0
#endif
#endif
#ifndef BRAID_COUNTS_GLOBAL_ALLOCATIONS
#define BRAID_COUNTS_GLOBAL_ALLOCATIONS 1
#endif

inline std::atomic<std::size_t> global_allocations{0};

#if BRAID_COUNTS_GLOBAL_ALLOCATIONS

// GCC inlines these replacements into a caller that allocates and frees in one function and
// then takes the free() of what the replaced operator new returned for a mismatch
// (-Wmismatched-new-delete): both halves are these, malloc and free.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t bytes) {
  global_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* memory = std::malloc(bytes == 0 ? 1 : bytes)) return memory;
  throw std::bad_alloc();
}
void* operator new[](std::size_t bytes) { return ::operator new(bytes); }
void* operator new(std::size_t bytes, std::align_val_t alignment) {
  global_allocations.fetch_add(1, std::memory_order_relaxed);
  const auto align = static_cast<std::size_t>(alignment);
  if (void* memory = std::aligned_alloc(align, (bytes + align - 1) / align * align)) return memory;
  throw std::bad_alloc();
}
void* operator new[](std::size_t bytes, std::align_val_t alignment) { return ::operator new(bytes, alignment); }
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void* memory) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete(void* memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t, std::align_val_t) noexcept { std::free(memory); }

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif
