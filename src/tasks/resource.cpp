#include "braid/tasks/resource.hpp"

#include <array>
#include <atomic>
#include <cstdio>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace braid::tasks {

const char* to_string(primitive value) noexcept {
  switch (value) {
    case primitive::none: return "none";
    case primitive::exclusive_latch: return "spinlock";
    case primitive::reader_writer_latch: return "rw-latch";
    case primitive::schedule_all: return "schedule-all";
    case primitive::schedule_writer: return "schedule-writer";
    case primitive::olfit: return "olfit";
    case primitive::transactional: return "htm";
    case primitive::batched: return "batched";
  }
  return "?";
}

std::optional<primitive> parse_primitive(const std::string& text) {
  for (primitive candidate : {primitive::none, primitive::exclusive_latch, primitive::reader_writer_latch,
                              primitive::schedule_all, primitive::schedule_writer, primitive::olfit,
                              primitive::transactional, primitive::batched}) {
    if (text == to_string(candidate)) return candidate;
  }
  return std::nullopt;
}

bool hardware_transactions_supported() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  static const bool supported = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_max(0, nullptr) < 7) return false;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    return (ebx & (1u << 11)) != 0;  // RTM
  }();
  return supported;
#else
  return false;
#endif
}

namespace {

using p = primitive;
// [isolation exclusive_writer][ratio][frequency: excessive, high, normal, unused]
constexpr std::array<std::array<primitive, 4>, 5> shared_matrix = {{
    {p::schedule_writer, p::schedule_writer, p::schedule_writer, p::schedule_writer},        // heavy_read
    {p::schedule_writer, p::schedule_writer, p::olfit, p::olfit},                            // mostly_read
    {p::olfit, p::olfit, p::olfit, p::olfit},                                                // balanced
    {p::olfit, p::olfit, p::reader_writer_latch, p::reader_writer_latch},                   // mostly_written
    {p::schedule_all, p::schedule_all, p::reader_writer_latch, p::reader_writer_latch},     // heavy_written
}};

// Exclusive access: hot objects are serialized by scheduling; colder ones take a hardware
// transaction where the CPU has one, else a spinlock (the transaction's own fallback).
primitive exclusive_choice(access_frequency frequency) noexcept {
  if (frequency == access_frequency::excessive || frequency == access_frequency::high) return p::schedule_all;
  return p::transactional;
}

}  // namespace

primitive transactional_fallback(isolation isolation_level, read_write_ratio ratio, access_frequency frequency) {
  switch (isolation_level) {
    case isolation::none: return p::none;
    case isolation::exclusive: return p::exclusive_latch;
    case isolation::exclusive_writer:
      return shared_matrix[static_cast<std::size_t>(ratio)][static_cast<std::size_t>(frequency)];
  }
  return p::exclusive_latch;
}

void report_missing_transactions_once(primitive fallback) {
  static std::atomic<bool> reported{false};
  if (!reported.exchange(true)) {
    std::fprintf(stderr, "braid tasks: hardware transactions not supported on this CPU; using %s\n", to_string(fallback));
  }
}

primitive select_primitive(isolation isolation_level, read_write_ratio ratio, access_frequency frequency) {
  primitive chosen = p::none;
  switch (isolation_level) {
    case isolation::none: return p::none;
    case isolation::exclusive: chosen = exclusive_choice(frequency); break;
    case isolation::exclusive_writer:
      chosen = shared_matrix[static_cast<std::size_t>(ratio)][static_cast<std::size_t>(frequency)];
      break;
  }
  if (chosen == p::transactional && !hardware_transactions_supported()) {
    chosen = transactional_fallback(isolation_level, ratio, frequency);
    report_missing_transactions_once(chosen);
  }
  return chosen;
}

}  // namespace braid::tasks
