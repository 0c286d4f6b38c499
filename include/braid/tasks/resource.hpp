// Data objects of the task runtime ("resources") and how they are synchronized.
//
// A task touches one data object; the object says, once, at creation, how it is used:
//
//   isolation           exclusive_writer (readers in parallel, writers alone), exclusive (one
//                       task at a time), none (no synchronization needed)
//   access_frequency    excessive, high, normal, unused: how hot the object is
//   read_write_ratio    heavy_read ... heavy_written
//   protocol            optional: a primitive chosen by hand, overriding the matrix
//
// From these the runtime picks the synchronization primitive (`select_primitive`, the matrix of
// MxTasking's dissertation §4.3) and an owner worker (round robin, weighted by frequency).
// Both are packed into the object's 64-bit `resource_ptr` next to its address, so dispatching a
// task needs only shifts on the pointer it already holds, never a lookup or a miss on the
// object itself.
//
// `resource` is the base class every annotated object derives from (first base, so that the
// object's address is the resource's): it carries the latch word and the optimistic version
// that the primitives use. 16 bytes; reclamation bookkeeping lives with the retiring worker,
// not in every object.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

namespace braid::tasks {

enum class isolation : std::uint8_t {
  exclusive_writer,  // readers run in parallel with each other, writers exclusively
  exclusive,         // every access is exclusive
  none,              // no synchronization (immutable or privately owned data)
};

enum class access_frequency : std::uint8_t { excessive, high, normal, unused };

enum class read_write_ratio : std::uint8_t { heavy_read, mostly_read, balanced, mostly_written, heavy_written };

// The synchronization primitives the worker wraps around a task. Four bits in resource_ptr.
enum class primitive : std::uint8_t {
  none,                 // run as is
  exclusive_latch,      // spinlock around every task
  reader_writer_latch,  // shared latch for readers, exclusive for writers
  schedule_all,         // every task runs on the owner worker: serialized by dispatching
  schedule_writer,      // writers run on the owner (serialized); readers optimistic, except on the owner
  olfit,                // optimistic readers; writers take the version word as a latch (CAS)
  transactional,        // hardware transaction, spinlock fallback (only where the CPU has RTM);
                        // see worker_statistics for what commits. A task run in a transaction
                        // must not execute what aborts one: system calls, page faults on first
                        // touch, and on Intel VZEROUPPER, which compilers emit after vector code
                        // (compile such tasks with -mno-vzeroupper, as braid's B-link tree is)
  batched,              // a task squad: tasks wait in the squad until it is flushed to its owner
};

const char* to_string(primitive value) noexcept;
std::optional<primitive> parse_primitive(const std::string& text);

// Whether this CPU executes restricted transactional memory (cpuid leaf 7, EBX bit 11).
bool hardware_transactions_supported() noexcept;

// The matrix: isolation x read/write ratio x access frequency -> primitive. Where the matrix
// prefers a hardware transaction and the CPU has none, the matrix's fallback is returned and
// the runtime says so once on stderr.
primitive select_primitive(isolation isolation_level, read_write_ratio ratio, access_frequency frequency);

// What a transactional primitive falls back to on a CPU without RTM, for these annotations.
primitive transactional_fallback(isolation isolation_level, read_write_ratio ratio, access_frequency frequency);

// Prints "hardware transactions not supported on this CPU; using <fallback>" once per process.
void report_missing_transactions_once(primitive fallback);

struct resource_annotation {
  isolation isolation_level = isolation::exclusive_writer;
  access_frequency frequency = access_frequency::normal;
  read_write_ratio ratio = read_write_ratio::balanced;
  std::optional<primitive> protocol{};   // an explicit primitive overrides the matrix
  std::optional<std::uint16_t> owner{};  // an explicit owner worker overrides the round robin
};

// Base of every object tasks are annotated with.
//
// Invariants: the version is even while no writer is inside, odd while one is (optimistic
// primitives); the latch word is 0 when free (spinlock: 1 = held; reader/writer latch: the
// writer bit plus the number of readers).
class resource {
 public:
  resource() noexcept = default;
  resource(const resource&) = delete;
  resource& operator=(const resource&) = delete;

  // ---- the optimistic version, for code that synchronizes outside the runtime ----------
  // (threads using optimistic lock coupling on the same objects; tests). Tasks never call
  // these: the worker wraps the object's primitive around them.

  // The version once no writer is inside (spins while it is odd). Acquire.
  [[nodiscard]] std::uint64_t stable_version() const noexcept {
    std::uint64_t seen = version_.load(std::memory_order_acquire);
    while ((seen & 1) != 0) {
      pause();
      seen = version_.load(std::memory_order_acquire);
    }
    return seen;
  }
  // Whether no writer entered since `seen` was read: the reads in between were consistent.
  [[nodiscard]] bool validate(std::uint64_t seen) const noexcept {
    std::atomic_thread_fence(std::memory_order_acquire);
    return version_.load(std::memory_order_relaxed) == seen;
  }
  // Enters as the writer if the version is still `seen` (even).
  [[nodiscard]] bool try_lock_version(std::uint64_t seen) noexcept {
    if ((seen & 1) != 0) return false;
    if (!version_.compare_exchange_strong(seen, seen + 1, std::memory_order_acquire, std::memory_order_relaxed)) {
      return false;
    }
    std::atomic_thread_fence(std::memory_order_release);  // the odd version precedes the writer's stores
    return true;
  }
  void lock_version() noexcept {
    while (!try_lock_version(stable_version())) pause();
  }
  // Leaves as the writer: the version becomes even and larger than any a reader saw before.
  void unlock_version() noexcept { version_.fetch_add(1, std::memory_order_release); }

 private:
  static void pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

  friend class worker;
  friend class runtime;
  friend struct resource_access;

  std::atomic<std::uint64_t> version_{0};
  std::atomic<std::uint32_t> latch_{0};
  std::uint32_t reserved_ = 0;
};
static_assert(sizeof(resource) == 16);

// Tagged pointer to a resource: bits 0-47 the address (user-space x86-64 addresses fit in 47),
// bits 48-59 the owner worker, bits 60-63 the primitive.
class resource_ptr {
 public:
  static constexpr unsigned max_workers = 1u << 12;

  constexpr resource_ptr() noexcept = default;
  resource_ptr(resource* object, std::uint16_t owner, primitive protocol) noexcept
      : bits_(reinterpret_cast<std::uintptr_t>(object) | (std::uint64_t{owner} << owner_shift) |
              (std::uint64_t{static_cast<std::uint8_t>(protocol)} << primitive_shift)) {}

  // Storage form, for tagged pointers kept in atomics (tree nodes' child pointers).
  [[nodiscard]] static constexpr resource_ptr from_bits(std::uint64_t bits) noexcept {
    resource_ptr pointer;
    pointer.bits_ = bits;
    return pointer;
  }
  [[nodiscard]] constexpr std::uint64_t bits() const noexcept { return bits_; }

  [[nodiscard]] resource* get() const noexcept {
    return reinterpret_cast<resource*>(static_cast<std::uintptr_t>(bits_ & address_mask));
  }
  template <class T>
  [[nodiscard]] T* as() const noexcept {
    return static_cast<T*>(get());
  }
  [[nodiscard]] constexpr std::uint16_t owner() const noexcept {
    return static_cast<std::uint16_t>((bits_ >> owner_shift) & (max_workers - 1));
  }
  [[nodiscard]] constexpr primitive protocol() const noexcept {
    return static_cast<primitive>(bits_ >> primitive_shift);
  }
  constexpr explicit operator bool() const noexcept { return (bits_ & address_mask) != 0; }
  friend constexpr bool operator==(resource_ptr a, resource_ptr b) noexcept { return a.bits_ == b.bits_; }

 private:
  static constexpr unsigned owner_shift = 48;
  static constexpr unsigned primitive_shift = 60;
  static constexpr std::uint64_t address_mask = (std::uint64_t{1} << owner_shift) - 1;

  std::uint64_t bits_ = 0;
};
static_assert(sizeof(resource_ptr) == 8);

}  // namespace braid::tasks
