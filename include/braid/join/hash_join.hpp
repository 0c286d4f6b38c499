// no_partition_join: the no-partition hash join — one hash table built from the build relation
// R, probed by every tuple of the probe relation S (Blanas et al., SIGMOD 2011; the "NPO" join
// of Balkesen et al., ICDE 2013) — with its build and its probe each runnable plain or
// interleaved (the probe is the hash probe of "Killer Nanoseconds" §3.1 and of Cimple).
//
//   braid::join::no_partition_options options{.build_technique = braid::technique::amac,
//                                             .probe_technique = braid::technique::coro,
//                                             .group = 16, .threads = 2};
//   braid::join::join_output out = braid::join::no_partition_join(r, s, options);
//   out.result();  // {matches, checksum}: exactly what the naive join returns
//
// Layout (Balkesen's NPO bucket, widened to 16-byte tuples): an array of 64-byte buckets, each
// one cache line holding a tuple count, an overflow pointer and up to three tuples inline.
// A probe that finds its bucket without overflow costs one line, the miss every technique
// hides; buckets of nodes (one tuple per line) would cost a line per tuple of a chain. A full
// bucket gets overflow buckets of the same shape, carved from page-backed chunks (never one
// allocation per bucket) and linked right after the head: the head's `next` is the newest
// overflow bucket, which is where the next tuple of a full bucket goes.
// Bucket count: the power of two >= |R| / 2 (at least 2), so a bucket holds 1 to 2 tuples on
// average (Balkesen sizes |R| / tuples-per-bucket; one slot to spare keeps overflow rare:
// uniform keys overflow about one bucket in seven at the fullest). Bucket of a key: the top
// bits of Murmur3's fmix64 of the key (any key distribution, 0 and 2^64-1 included, spreads).
// The bucket array and overflow chunks of 2 MiB and more ask for 2 MiB pages (huge_buffer).
//
// Techniques, for the build (insert every tuple of R) and the probe (emit every match of
// every tuple of S) alike:
//   naive  the plain loop, one tuple after another (the oracle of the others);
//   gp     group prefetching: groups of `group` tuples, stage by stage (bucket heads first,
//          then the chains in lock step; a group costs as many rounds as its longest chain);
//   amac   a ring of `group` hand-written state machines, a finished slot refilled at once;
//   coro   insert_stream<M> / probe_stream<M>, written once over `fetch<M>` at the bucket and
//          along the chain: `group` coroutines on an interleaved_scheduler, each taking the next
//          tuple from a shared cursor when it finishes one (a frame per in-flight slot, not per
//          tuple: with a coroutine per probe tuple, coro probed a 1 GiB table in 66 ns per tuple
//          against AMAC's 48 at group 16; as a stream in 54 against 58, on a shared machine).
//          Instantiated `sequential`, a stream is the plain loop.
// Any other technique is refused with std::invalid_argument naming the four. The interleaved
// builds keep one invariant under interleaving: a tuple is placed without a suspension between
// reading a bucket's count and writing it; an insert that suspended on an overflow bucket
// re-reads the head's `next` when it resumes (a peer may have linked a newer one meanwhile).
//
// Complexity: build O(|R|), probe O(|S| + matches) expected (chains of O(1) buckets for keys
// that are not heavily repeated; a key repeated d times in R makes a chain of d / 3 buckets,
// which every probe of that key walks). Memory: 32-64 bytes per build tuple plus overflow.
// Every match (r, s) with r.key == s.key is emitted, duplicates on both sides included.
//
// Known limits: the build is single-threaded and the table never shrinks or rehashes (a table
// given more tuples than it was sized for keeps its buckets and grows its chains); a key
// repeated many times in R makes one long chain. A table larger than the TLB's reach pays an
// address translation per probe besides the miss, which interleaving overlaps less well.
//
// Threads: the build runs on the calling thread; the probe can be split across a
// thread_runner (probe_in_parallel: contiguous chunks of S, one join_output per worker,
// merged with absorb in worker order). The table is not changed by a probe, so any number of
// threads may probe it at once; build may not run concurrently with anything.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/huge_buffer.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/core/thread_runner.hpp"
#include "braid/index/detail/lookup_techniques.hpp"
#include "braid/index/detail/murmur_hash.hpp"
#include "braid/index/technique.hpp"
#include "braid/join/relation.hpp"

namespace braid::join {

// The techniques the build and the probe run, in the order error messages list them.
inline constexpr technique hash_join_techniques[] = {technique::naive, technique::gp, technique::amac,
                                                     technique::coro};

namespace detail {

// Throws std::invalid_argument unless `how` is one of hash_join_techniques and group >= 1.
inline void check_hash_join_arguments(technique how, std::size_t group, const char* phase) {
  if (std::find(std::begin(hash_join_techniques), std::end(hash_join_techniques), how) ==
      std::end(hash_join_techniques)) {
    throw std::invalid_argument(std::string("no_partition_join: ") + phase + " technique '" +
                                std::string(to_string(how)) + "' is not implemented (it has naive, gp, amac, coro)");
  }
  if (group == 0) throw std::invalid_argument(std::string("no_partition_join: ") + phase + " group must be at least 1");
}

}  // namespace detail

class no_partition_hash_table {
 public:
  static constexpr std::size_t tuples_per_bucket = 3;
  // Interleaved builds prefetch for writing (the bucket is written); probes prefetch into
  // every cache level (NTA was no faster in alternating runs of join-no-partition, 1 GiB).
  static constexpr prefetch_hint build_prefetch_hint = prefetch_hint::write;
  static constexpr prefetch_hint probe_prefetch_hint = prefetch_hint::t0;

  struct alignas(cache_line_bytes) bucket {
    std::uint32_t count;  // tuples in use, at most tuples_per_bucket
    std::uint32_t unused;
    bucket* next;         // the newest overflow bucket (of a head) or the next older one
    tuple tuples[tuples_per_bucket];
  };
  static_assert(sizeof(bucket) == cache_line_bytes);

  // A table sized for `build_tuples` tuples (it takes more, in longer chains).
  explicit no_partition_hash_table(std::size_t build_tuples, page_size pages = page_size::huge_2m)
      : pages_(pages),
        buckets_(bucket_count_for(build_tuples), pages_for(bucket_count_for(build_tuples) * sizeof(bucket))),
        shift_(64 - std::countr_zero(buckets_.size())),
        next_chunk_buckets_(std::max<std::size_t>(minimum_chunk_buckets, buckets_.size() / 8)) {}

  [[nodiscard]] static std::size_t bucket_count_for(std::size_t build_tuples) noexcept {
    return std::bit_ceil(std::max<std::size_t>(2, (build_tuples + 1) / 2));
  }

  // ---- build ---------------------------------------------------------------------------------

  // Inserts every tuple of `relation` with technique `how` and `group` inserts in flight.
  void build(std::span<const tuple> relation, technique how, std::size_t group) {
    detail::check_hash_join_arguments(how, group, "build");
    switch (how) {
      case technique::gp: build_group_prefetching<build_prefetch_hint>(relation, group); return;
      case technique::amac: build_amac<build_prefetch_hint>(relation, group); return;
      case technique::coro: {
        std::size_t cursor = 0;
        interleaved_scheduler{group}.run(
            std::min(group, relation.size()),
            [&](std::size_t) { return insert_stream<interleaved_with<build_prefetch_hint>>(relation, cursor); },
            [](std::size_t) {});
        return;
      }
      default:
        for (const tuple& r : relation) insert(r);
        return;
    }
  }

  // The plain insert: into the head bucket when it has room, else beyond it.
  void insert(const tuple& r) {
    bucket& head = buckets_[bucket_of(r.key)];
    if (head.count < tuples_per_bucket) {
      place(head, r);
    } else {
      place_beyond_full_head(head, r);
    }
  }

  // The inserts of a stream of tuples as one coroutine: it takes the next tuple of `relation`
  // at `cursor` until none is left and inserts it, `co_await fetch<M>` at the head and, when
  // the head is full, at its newest overflow bucket, re-read after every resumption until it
  // holds still (a peer may link a newer one meanwhile). `group` of them on an
  // interleaved_scheduler keep `group` inserts in flight without a frame per tuple; over a
  // span of one tuple it is a coroutine per insert.
  template <execution_mode M>
  coro<void> insert_stream(std::span<const tuple> relation, std::size_t& cursor) {
    while (cursor < relation.size()) {
      const tuple r = relation[cursor++];
      bucket& head = co_await fetch<M>(&buckets_[bucket_of(r.key)]);
      if (head.count < tuples_per_bucket) {
        place(head, r);
        continue;
      }
      for (const bucket* seen = nullptr; head.next != nullptr && head.next != seen;) {
        seen = head.next;
        co_await fetch<M>(seen);
      }
      place_beyond_full_head(head, r);
    }
  }

  // Group prefetching: stage 1 prefetches every head of the group; stage 2 places each tuple
  // whose head has room and prefetches the first overflow bucket of the others; stage 3 places
  // those beyond their (full) heads.
  template <prefetch_hint Hint>
  void build_group_prefetching(std::span<const tuple> relation, std::size_t group) {
    detail::check_hash_join_arguments(technique::gp, group, "build");
    struct member {
      bucket* head;
      bool beyond;  // the head was full: the tuple goes beyond it in stage 3
    };
    braid::detail::scratch_array<member> members(std::min(group, relation.size()));
    for (std::size_t first = 0; first < relation.size(); first += group) {
      const std::size_t count = std::min(group, relation.size() - first);
      const tuple* r = relation.data() + first;
      for (std::size_t i = 0; i < count; ++i) {
        members[i].head = &buckets_[bucket_of(r[i].key)];
        prefetch<Hint>(members[i].head);
      }
      for (std::size_t i = 0; i < count; ++i) {
        bucket& head = *members[i].head;
        members[i].beyond = head.count == tuples_per_bucket;
        if (!members[i].beyond) {
          place(head, r[i]);
        } else if (head.next != nullptr) {
          prefetch<Hint>(head.next);
        }
      }
      for (std::size_t i = 0; i < count; ++i) {
        if (members[i].beyond) place_beyond_full_head(*members[i].head, r[i]);
      }
    }
  }

  // AMAC: each state places its tuple in the head when it has room, else prefetches the head's
  // first overflow bucket and, once head.next holds still across that prefetch, places it
  // beyond the head.
  template <prefetch_hint Hint>
  void build_amac(std::span<const tuple> relation, std::size_t group) {
    detail::check_hash_join_arguments(technique::amac, group, "build");
    struct state {
      bucket* head;
      const bucket* seen;
      tuple r;
    };
    braid::detail::run_state_machines<state>(
        relation.size(), group,
        [&](state& s, std::size_t index) {
          s.r = relation[index];
          s.head = &buckets_[bucket_of(s.r.key)];
          s.seen = nullptr;
          prefetch<Hint>(s.head);
          return true;
        },
        [&](state& s) {
          if (s.head->count < tuples_per_bucket) {
            place(*s.head, s.r);
            return false;
          }
          if (s.head->next != nullptr && s.head->next != s.seen) {
            s.seen = s.head->next;
            prefetch<Hint>(s.seen);
            return true;
          }
          place_beyond_full_head(*s.head, s.r);
          return false;
        });
  }

  // ---- probe ---------------------------------------------------------------------------------

  // Emits every match of every tuple of `relation` into `out`, `group` probes in flight.
  void probe(std::span<const tuple> relation, join_output& out, technique how, std::size_t group) const {
    detail::check_hash_join_arguments(how, group, "probe");
    switch (how) {
      case technique::gp: probe_group_prefetching<probe_prefetch_hint>(relation, out, group); return;
      case technique::amac: probe_amac<probe_prefetch_hint>(relation, out, group); return;
      case technique::coro: {
        std::size_t cursor = 0;
        interleaved_scheduler{group}.run(
            std::min(group, relation.size()),
            [&](std::size_t) { return probe_stream<interleaved_with<probe_prefetch_hint>>(relation, cursor, out); },
            [](std::size_t) {});
        return;
      }
      default:
        for (const tuple& s : relation) probe_tuple(s, out);
        return;
    }
  }

  // The plain probe of one tuple: every bucket of its chain, every match.
  void probe_tuple(const tuple& s, join_output& out) const {
    for (const bucket* current = &buckets_[bucket_of(s.key)]; current != nullptr; current = current->next) {
      emit_matches(*current, s, out);
    }
  }

  // The probes of a stream of tuples as one coroutine: it takes the next tuple of `relation` at
  // `cursor` until none is left and probes it, `co_await fetch<M>` at the head and at every
  // overflow bucket. `group` of them on an interleaved_scheduler keep `group` probes in flight
  // without a frame per tuple; over a span of one tuple it is a coroutine per probe.
  template <execution_mode M>
  coro<void> probe_stream(std::span<const tuple> relation, std::size_t& cursor, join_output& out) const {
    while (cursor < relation.size()) {
      const tuple s = relation[cursor++];
      const bucket* current = &co_await fetch<M>(&buckets_[bucket_of(s.key)]);
      while (true) {
        emit_matches(*current, s, out);
        if (current->next == nullptr) break;
        current = &co_await fetch<M>(current->next);
      }
    }
  }

  // Group prefetching: stage 1 prefetches every head of the group, then every round reads each
  // unfinished probe's bucket and prefetches the next one of its chain.
  template <prefetch_hint Hint>
  void probe_group_prefetching(std::span<const tuple> relation, join_output& out, std::size_t group) const {
    detail::check_hash_join_arguments(technique::gp, group, "probe");
    braid::detail::scratch_array<const bucket*> current(std::min(group, relation.size()));
    for (std::size_t first = 0; first < relation.size(); first += group) {
      const std::size_t members = std::min(group, relation.size() - first);
      const tuple* s = relation.data() + first;
      for (std::size_t i = 0; i < members; ++i) {
        current[i] = &buckets_[bucket_of(s[i].key)];
        prefetch<Hint>(current[i]);
      }
      for (std::size_t unfinished = members; unfinished > 0;) {
        for (std::size_t i = 0; i < members; ++i) {
          if (current[i] == nullptr) continue;  // finished: a no-op slot until the group ends
          emit_matches(*current[i], s[i], out);
          current[i] = current[i]->next;
          if (current[i] == nullptr) {
            --unfinished;
          } else {
            prefetch<Hint>(current[i]);
          }
        }
      }
    }
  }

  // AMAC: a state is a probe tuple and the bucket it reads next (prefetched when it was set).
  template <prefetch_hint Hint>
  void probe_amac(std::span<const tuple> relation, join_output& out, std::size_t group) const {
    detail::check_hash_join_arguments(technique::amac, group, "probe");
    struct state {
      const bucket* current;
      tuple s;
    };
    braid::detail::run_state_machines<state>(
        relation.size(), group,
        [&](state& st, std::size_t index) {
          st.s = relation[index];
          st.current = &buckets_[bucket_of(st.s.key)];
          prefetch<Hint>(st.current);
          return true;
        },
        [&](state& st) {
          emit_matches(*st.current, st.s, out);
          st.current = st.current->next;
          if (st.current == nullptr) return false;
          prefetch<Hint>(st.current);
          return true;
        });
  }

  // ---- facts ---------------------------------------------------------------------------------

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t bucket_count() const noexcept { return buckets_.size(); }
  [[nodiscard]] std::size_t overflow_buckets() const noexcept { return overflow_used_; }
  // Bytes of the bucket array and the overflow buckets in use (what a probe may touch).
  [[nodiscard]] std::size_t memory_bytes() const noexcept {
    return (buckets_.size() + overflow_used_) * sizeof(bucket);
  }
  // The page size backing the bucket array, as the kernel granted it.
  [[nodiscard]] std::string describe_pages() const { return buckets_.buffer().describe_pages(); }

 private:
  static constexpr std::size_t minimum_chunk_buckets = 64;

  // 2 MiB pages for arrays of at least one such page when asked for, small pages otherwise.
  [[nodiscard]] page_size pages_for(std::size_t bytes) const noexcept {
    return bytes >= huge_buffer::huge_page_bytes ? pages_ : page_size::small_4k;
  }

  [[nodiscard]] std::size_t bucket_of(std::uint64_t key) const noexcept {
    return static_cast<std::size_t>(braid::detail::murmur3_fmix64(key) >> shift_);
  }

  static void emit_matches(const bucket& visited, const tuple& s, join_output& out) {
    for (std::uint32_t i = 0; i < visited.count; ++i) {
      if (visited.tuples[i].key == s.key) out.emit(s.key, visited.tuples[i].payload, s.payload);
    }
  }

  // Precondition: target.count < tuples_per_bucket.
  void place(bucket& target, const tuple& r) noexcept {
    target.tuples[target.count++] = r;
    ++size_;
  }

  // Into the head's newest overflow bucket when it has room, else into a fresh one linked
  // right after the head. Precondition: head is full.
  void place_beyond_full_head(bucket& head, const tuple& r) {
    bucket* newest = head.next;
    if (newest != nullptr && newest->count < tuples_per_bucket) {
      place(*newest, r);
      return;
    }
    bucket* fresh = allocate_overflow();
    fresh->next = newest;
    head.next = fresh;
    place(*fresh, r);
  }

  bucket* allocate_overflow() {
    if (chunks_.empty() || used_in_last_chunk_ == chunks_.back().size()) {
      chunks_.emplace_back(next_chunk_buckets_, pages_for(next_chunk_buckets_ * sizeof(bucket)));
      next_chunk_buckets_ *= 2;
      used_in_last_chunk_ = 0;
    }
    ++overflow_used_;
    return &chunks_.back()[used_in_last_chunk_++];  // zero-filled: count 0, next null
  }

  page_size pages_;
  huge_array<bucket> buckets_;
  int shift_;  // 64 - log2(bucket count), in [1, 63]
  std::vector<huge_array<bucket>> chunks_;
  std::size_t next_chunk_buckets_;
  std::size_t used_in_last_chunk_ = 0;
  std::size_t overflow_used_ = 0;
  std::size_t size_ = 0;
};

// ---- probes across threads and the whole join ------------------------------------------------

// Probes `relation` on every worker of `runner` (contiguous chunks of S, one join_output per
// worker, absorbed into the result in worker order). `group` probes in flight per worker.
inline join_output probe_in_parallel(const no_partition_hash_table& table, std::span<const tuple> relation,
                                     technique how, std::size_t group, thread_runner& runner, bool materialize) {
  detail::check_hash_join_arguments(how, group, "probe");
  std::vector<join_output> outputs(runner.size(), join_output(materialize));
  runner.run([&](unsigned worker) {
    const chunk mine = chunk_of(relation.size(), runner.size(), worker);
    table.probe(relation.subspan(mine.begin, mine.end - mine.begin), outputs[worker], how, group);
  });
  join_output merged(materialize);
  for (join_output& output : outputs) merged.absorb(std::move(output));
  return merged;
}

struct no_partition_options {
  technique build_technique = technique::naive;
  technique probe_technique = technique::naive;
  std::size_t group = 16;    // inserts / probes in flight (per thread)
  unsigned threads = 1;      // threads of the probe (the build runs on the caller)
  bool materialize = false;  // keep the joined tuples, not only count and checksum
  page_size pages = page_size::huge_2m;
};

// R ⋈ S on key: builds the table from `build` and probes it with `probe`. Throws
// std::invalid_argument for a technique the join lacks, a group of 0 or 0 threads.
inline join_output no_partition_join(std::span<const tuple> build, std::span<const tuple> probe,
                                     const no_partition_options& options) {
  detail::check_hash_join_arguments(options.build_technique, options.group, "build");
  detail::check_hash_join_arguments(options.probe_technique, options.group, "probe");
  if (options.threads == 0) throw std::invalid_argument("no_partition_join: threads must be at least 1");
  no_partition_hash_table table(build.size(), options.pages);
  table.build(build, options.build_technique, options.group);
  if (options.threads == 1) {
    join_output out(options.materialize);
    table.probe(probe, out, options.probe_technique, options.group);
    return out;
  }
  thread_runner runner(options.threads);
  return probe_in_parallel(table, probe, options.probe_technique, options.group, runner, options.materialize);
}

}  // namespace braid::join
