// The query layer's runs shared by `braid-bench query` and the TPC-H experiments: which
// columns the plans read, where the .tbl files come from, and one timed query.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/query/tpch_queries.hpp"
#include "braid/query/tpch_schema.hpp"
#include "braid/tasks/runtime.hpp"

namespace braid::bench {

// A TPC-H query (1, 3, 5, 6, 10, 12, 14, 19) or one of the task-granularity queries of MxTasks
// Fig. 7.13 ("sum-quantity": sum(l_quantity); "q1-unfiltered": Q1 without its filter).
struct query_choice {
  std::string label;  // "q6", "sum-quantity"
  std::optional<int> number;
  query::micro_query micro = query::micro_query::sum_quantity;
};
// "1,6,sum-quantity" or "all" (the eight TPC-H queries); "q6" is also accepted. usage_error
// for anything else or an empty list.
std::vector<query_choice> parse_query_choices(std::string_view list);

// What the chosen queries' plans read (query::tpch_query_columns), and nothing else: loading
// is the slow part, and the unused text columns (comments) would take most of the memory.
query::tpch_database_options query_columns(const std::vector<query_choice>& choices, std::size_t tuples_per_fragment);

// .tbl files of the given directory, or generated at `scale` (and `seed`) into a temporary
// directory removed with this object.
class tpch_files {
 public:
  tpch_files(std::optional<std::filesystem::path> directory, double scale, std::uint64_t seed);
  tpch_files(const tpch_files&) = delete;
  tpch_files& operator=(const tpch_files&) = delete;
  ~tpch_files();
  [[nodiscard]] const std::filesystem::path& directory() const noexcept { return directory_; }
  [[nodiscard]] bool generated() const noexcept { return generated_; }

 private:
  std::filesystem::path directory_;
  bool generated_ = false;
};

struct timed_query {
  query::query_run run;
  double seconds = 0;
  std::uint64_t prefetches = 0;  // data prefetches the runtime's workers issued during the run
  std::uint64_t tasks = 0;       // tasks the workers executed
};
timed_query run_timed_query(const query_choice& choice, const query::tpch_database& data, tasks::runtime& runtime,
                            const query::execution_options& options);

}  // namespace braid::bench
