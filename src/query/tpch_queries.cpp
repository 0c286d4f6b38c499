#include "braid/query/tpch_queries.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "braid/query/operators.hpp"
#include "braid/query/plan.hpp"

namespace braid::query {
namespace {

constexpr std::int64_t lowest = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t highest = std::numeric_limits<std::int64_t>::max();

std::int64_t day_number(std::chrono::sys_days day) { return day.time_since_epoch().count(); }
// The same day of the month `months` later, clamped to that month's last day.
std::int64_t plus_months(std::chrono::sys_days day, int months) {
  const std::chrono::year_month_day start{day};
  const std::chrono::year_month target = std::chrono::year_month{start.year(), start.month()} + std::chrono::months{months};
  const std::chrono::year_month_day_last last{target.year(), std::chrono::month_day_last{target.month()}};
  return day_number(std::chrono::sys_days{std::chrono::year_month_day{target.year(), target.month(), std::min(start.day(), last.day())}});
}

// Revenue terms: price (scale 2) x (1 - discount) (scale 2) = scale 4.
constexpr int128 discounted(std::int64_t price, std::int64_t discount) { return times_complement(price, discount, 100); }

// A query under construction on one runtime with one set of options.
class plan : public query_plan {
 public:
  plan(const tpch_database& data, tasks::runtime& runtime, const execution_options& options)
      : query_plan(runtime.workers(), options.bloom_filters), data_(data), runtime_(runtime), options_(options) {}

  const table& get(tpch_table which) const { return data_.get(which); }
  group_aggregate& aggregate(std::size_t sums) { return aggregate_sums(sums); }
  // Probes interleaved at a time (join_table::probe_batch).
  [[nodiscard]] std::size_t probe_group() const noexcept { return options_.probe_group; }
  execution_statistics run() { return query_plan::run(runtime_, {.prefetch = options_.prefetch, .finalize = options_.finalize}); }

 private:
  const tpch_database& data_;
  tasks::runtime& runtime_;
  execution_options options_;
};


std::uint64_t row_of(const table& source, std::size_t f, std::uint32_t r) { return source.header(f).first_row + r; }

// ---- Q1 and its unfiltered variant -------------------------------------------------------------

query_run pricing_summary(const tpch_database& data, tasks::runtime& runtime, const execution_options& options,
                          std::optional<std::int64_t> last_shipdate) {
  plan q(data, runtime, options);
  const table& lineitem = q.get(tpch_table::lineitem);
  const std::size_t l_quantity = lineitem.column_index("l_quantity");
  const std::size_t l_extendedprice = lineitem.column_index("l_extendedprice");
  const std::size_t l_discount = lineitem.column_index("l_discount");
  const std::size_t l_tax = lineitem.column_index("l_tax");
  const std::size_t l_returnflag = lineitem.column_index("l_returnflag");
  const std::size_t l_linestatus = lineitem.column_index("l_linestatus");
  const predicate* filter = last_shipdate ? q.keep(predicate::range(lineitem, "l_shipdate", lowest, *last_shipdate)) : nullptr;
  // sum_qty, sum_base_price, sum_disc_price, sum_charge, sum_disc, count
  group_aggregate& groups = q.aggregate(6);
  // (returnflag, linestatus) codes index a fragment-local array when there are few of them.
  constexpr std::size_t max_dense_groups = 16;
  const std::size_t status_codes = std::max<std::size_t>(1, lineitem.dictionary(l_linestatus).size());
  const std::size_t group_codes = lineitem.dictionary(l_returnflag).size() * status_codes;
  const std::size_t dense_groups = group_codes <= max_dense_groups ? group_codes : 0;
  q.scan("q1 lineitem", lineitem, filter, nullptr,
         {"l_quantity", "l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus"}, &groups,
         [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
           const auto* quantity = lineitem.column_data<std::int64_t>(f, l_quantity);
           const auto* price = lineitem.column_data<std::int64_t>(f, l_extendedprice);
           const auto* discount = lineitem.column_data<std::int64_t>(f, l_discount);
           const auto* tax = lineitem.column_data<std::int64_t>(f, l_tax);
           const auto* flag = lineitem.column_data<std::uint32_t>(f, l_returnflag);
           const auto* status = lineitem.column_data<std::uint32_t>(f, l_linestatus);
           auto add_line = [&](int128* sums, std::uint32_t r) {
             const int128 disc_price = discounted(price[r], discount[r]);
             sums[0] += quantity[r];
             sums[1] += price[r];
             sums[2] += disc_price;
             sums[3] += times_sum(disc_price, tax[r], 100);
             sums[4] += discount[r];
             sums[5] += 1;
           };
           if (dense_groups == 0) {  // too many codes for a fragment-local array
             for (std::uint32_t i = 0; i < count; ++i) add_line(groups.accumulators(worker, (std::uint64_t{flag[rows[i]]} << 32) | status[rows[i]]), rows[i]);
             return;
           }
           // The codes are dense: sum the fragment into a local array, then once per group.
           std::array<int128, max_dense_groups * 6> local{};
           for (std::uint32_t i = 0; i < count; ++i) {
             const std::uint32_t r = rows[i];
             add_line(local.data() + (std::size_t{flag[r]} * status_codes + status[r]) * 6, r);
           }
           for (std::size_t g = 0; g < dense_groups; ++g) {
             const int128* part = local.data() + g * 6;
             if (part[5] == 0) continue;
             int128* sums = groups.accumulators(worker, (std::uint64_t{g / status_codes} << 32) | (g % status_codes));
             for (std::size_t a = 0; a < 6; ++a) sums[a] += part[a];
           }
         });
  query_run out;
  out.statistics = q.run();
  out.rows.columns = {"l_returnflag", "l_linestatus", "sum_qty", "sum_base_price", "sum_disc_price",
                      "sum_charge", "avg_qty", "avg_price", "avg_disc", "count_order"};
  const text_dictionary& flags = lineitem.dictionary(lineitem.column_index("l_returnflag"));
  const text_dictionary& statuses = lineitem.dictionary(lineitem.column_index("l_linestatus"));
  for (const auto& g : groups.groups()) {
    const auto& v = g.values;
    const auto count = static_cast<std::int64_t>(v[5]);
    out.rows.rows.push_back({cell::text(std::string(flags.text(static_cast<std::uint32_t>(g.key >> 32)))),
                             cell::text(std::string(statuses.text(static_cast<std::uint32_t>(g.key & 0xFFFFFFFFU)))),
                             cell::decimal(v[0], 2), cell::decimal(v[1], 2), cell::decimal(v[2], 4), cell::decimal(v[3], 6),
                             average(v[0], 2, count), average(v[1], 2, count), average(v[4], 2, count), cell::integer(count)});
  }
  order_rows(out.rows.rows, {{0, false}, {1, false}});
  return out;
}

// ---- Q3 ----------------------------------------------------------------------------------------

query_run shipping_priority(const tpch_database& data, tasks::runtime& runtime, const tpch_parameters& parameters,
                            const execution_options& options) {
  plan q(data, runtime, options);
  const table& customer = q.get(tpch_table::customer);
  const table& orders = q.get(tpch_table::orders);
  const table& lineitem = q.get(tpch_table::lineitem);
  const std::size_t c_custkey = customer.column_index("c_custkey");
  const std::size_t o_orderkey = orders.column_index("o_orderkey");
  const std::size_t o_custkey = orders.column_index("o_custkey");
  const std::size_t o_orderdate = orders.column_index("o_orderdate");
  const std::size_t o_shippriority = orders.column_index("o_shippriority");
  const std::size_t l_orderkey = lineitem.column_index("l_orderkey");
  const std::size_t l_extendedprice = lineitem.column_index("l_extendedprice");
  const std::size_t l_discount = lineitem.column_index("l_discount");
  const std::int64_t date = day_number(parameters.q3_date);

  join_table& customers = q.join(true);
  const auto build_customers = q.scan(
      "q3 customer", customer, q.keep(predicate::text_equals(customer, "c_mktsegment", parameters.q3_segment)), nullptr,
      {"c_custkey"}, &customers, [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
        const auto* key = customer.column_data<std::int64_t>(f, c_custkey);
        for (std::uint32_t i = 0; i < count; ++i) customers.insert(worker, static_cast<std::uint64_t>(key[rows[i]]), 0);
      });

  // Payload: o_orderdate << 32 | o_shippriority.
  join_table& qualifying_orders = q.join(true);
  const auto build_orders = q.scan(
      "q3 orders", orders, q.keep(predicate::range(orders, "o_orderdate", lowest, date - 1)), nullptr,
      {"o_orderkey", "o_custkey", "o_shippriority"}, &qualifying_orders,
      [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
        const auto* key = orders.column_data<std::int64_t>(f, o_orderkey);
        const auto* customer_key = orders.column_data<std::int64_t>(f, o_custkey);
        const auto* order_date = orders.column_data<std::int32_t>(f, o_orderdate);
        const auto* ship_priority = orders.column_data<std::int64_t>(f, o_shippriority);
        customers.probe_batch(
            count, q.probe_group(), [&](std::uint32_t i) { return static_cast<std::uint64_t>(customer_key[rows[i]]); },
            [&](std::uint32_t i, std::int64_t) {
              const std::uint32_t r = rows[i];
              const std::int64_t payload = (std::int64_t{order_date[r]} * (std::int64_t{1} << 32)) +
                                           static_cast<std::int64_t>(static_cast<std::uint32_t>(ship_priority[r]));
              qualifying_orders.insert(worker, static_cast<std::uint64_t>(key[r]), payload);
            });
      });
  q.after(build_orders, build_customers);

  group_aggregate& revenue = q.aggregate(1);
  const auto probe = q.scan(
      "q3 lineitem", lineitem, q.keep(predicate::range(lineitem, "l_shipdate", date + 1, highest)), nullptr,
      {"l_orderkey", "l_extendedprice", "l_discount"}, &revenue,
      [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
        const auto* key = lineitem.column_data<std::int64_t>(f, l_orderkey);
        const auto* price = lineitem.column_data<std::int64_t>(f, l_extendedprice);
        const auto* discount = lineitem.column_data<std::int64_t>(f, l_discount);
        qualifying_orders.probe_batch(
            count, q.probe_group(), [&](std::uint32_t i) { return static_cast<std::uint64_t>(key[rows[i]]); },
            [&](std::uint32_t i, std::int64_t payload) {
              const std::uint32_t r = rows[i];
              revenue.accumulators(worker, static_cast<std::uint64_t>(key[r]), payload)[0] += discounted(price[r], discount[r]);
            });
      });
  q.after(probe, build_orders);

  query_run out;
  out.statistics = q.run();
  out.rows.columns = {"l_orderkey", "revenue", "o_orderdate", "o_shippriority"};
  for (const auto& g : revenue.groups()) {
    const std::int64_t order_date = g.carried >> 32;
    const std::int64_t ship_priority = g.carried & 0xFFFFFFFF;
    out.rows.rows.push_back({cell::integer(static_cast<std::int64_t>(g.key)), cell::decimal(g.values[0], 4),
                             cell::date(order_date), cell::integer(static_cast<std::int32_t>(static_cast<std::uint32_t>(ship_priority)))});
  }
  order_rows(out.rows.rows, {{1, true}, {2, false}}, 10);
  return out;
}

// ---- Q5 ----------------------------------------------------------------------------------------

query_run local_supplier_volume(const tpch_database& data, tasks::runtime& runtime, const tpch_parameters& parameters,
                                const execution_options& options) {
  plan q(data, runtime, options);
  const table& region = q.get(tpch_table::region);
  const table& nation = q.get(tpch_table::nation);
  const table& supplier = q.get(tpch_table::supplier);
  const table& customer = q.get(tpch_table::customer);
  const table& orders = q.get(tpch_table::orders);
  const table& lineitem = q.get(tpch_table::lineitem);
  const std::size_t r_regionkey = region.column_index("r_regionkey");
  const std::size_t n_nationkey = nation.column_index("n_nationkey");
  const std::size_t n_regionkey = nation.column_index("n_regionkey");
  const std::size_t o_orderkey = orders.column_index("o_orderkey");
  const std::size_t o_custkey = orders.column_index("o_custkey");
  const std::size_t l_orderkey = lineitem.column_index("l_orderkey");
  const std::size_t l_suppkey = lineitem.column_index("l_suppkey");
  const std::size_t l_extendedprice = lineitem.column_index("l_extendedprice");
  const std::size_t l_discount = lineitem.column_index("l_discount");
  const std::int64_t from = day_number(parameters.q5_date);
  const std::int64_t until = plus_months(parameters.q5_date, 12);

  join_table& regions = q.join(true);
  const auto build_regions = q.scan(
      "q5 region", region, q.keep(predicate::text_equals(region, "r_name", parameters.q5_region)), nullptr, {"r_regionkey"},
      &regions, [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
        const auto* key = region.column_data<std::int64_t>(f, r_regionkey);
        for (std::uint32_t i = 0; i < count; ++i) regions.insert(worker, static_cast<std::uint64_t>(key[rows[i]]), 0);
      });

  // Nations of the region (nationkey -> nationkey).
  join_table& nations = q.join(true);
  const auto build_nations = q.scan("q5 nation", nation, nullptr, nullptr, {"n_nationkey", "n_regionkey"}, &nations,
                                    [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
                                      const auto* key = nation.column_data<std::int64_t>(f, n_nationkey);
                                      const auto* region_key = nation.column_data<std::int64_t>(f, n_regionkey);
                                      for (std::uint32_t i = 0; i < count; ++i) {
                                        const std::uint32_t r = rows[i];
                                        if (regions.find(static_cast<std::uint64_t>(region_key[r]))) {
                                          nations.insert(worker, static_cast<std::uint64_t>(key[r]), key[r]);
                                        }
                                      }
                                    });
  q.after(build_nations, build_regions);

  // suppkey / custkey -> nationkey, for the region's nations only.
  auto keyed_by_nation = [&](const table& source, std::string name, std::string_view key_column, std::string_view nation_column,
                             join_table& into) {
    return q.scan(std::move(name), source, nullptr, nullptr, {key_column, nation_column}, &into,
                  [&source, &nations, &into, key_index = source.column_index(key_column),
                   nation_index = source.column_index(nation_column)](unsigned worker, std::size_t f, const std::uint32_t* rows,
                                                                      std::uint32_t count) {
                    const auto* key = source.column_data<std::int64_t>(f, key_index);
                    const auto* nation_key = source.column_data<std::int64_t>(f, nation_index);
                    for (std::uint32_t i = 0; i < count; ++i) {
                      const std::uint32_t r = rows[i];
                      const auto n = static_cast<std::uint64_t>(nation_key[r]);
                      if (nations.may_contain(n) && nations.find(n)) into.insert(worker, static_cast<std::uint64_t>(key[r]), nation_key[r]);
                    }
                  });
  };
  join_table& suppliers = q.join(true);
  const auto build_suppliers = keyed_by_nation(supplier, "q5 supplier", "s_suppkey", "s_nationkey", suppliers);
  q.after(build_suppliers, build_nations);
  join_table& customers = q.join(true);
  const auto build_customers = keyed_by_nation(customer, "q5 customer", "c_custkey", "c_nationkey", customers);
  q.after(build_customers, build_nations);

  // orderkey -> the customer's nation.
  join_table& qualifying_orders = q.join(true);
  const auto build_orders = q.scan(
      "q5 orders", orders, q.keep(predicate::range(orders, "o_orderdate", from, until - 1)), nullptr, {"o_orderkey", "o_custkey"},
      &qualifying_orders, [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
        const auto* key = orders.column_data<std::int64_t>(f, o_orderkey);
        const auto* customer_key = orders.column_data<std::int64_t>(f, o_custkey);
        customers.probe_batch(
            count, q.probe_group(), [&](std::uint32_t i) { return static_cast<std::uint64_t>(customer_key[rows[i]]); },
            [&](std::uint32_t i, std::int64_t n) { qualifying_orders.insert(worker, static_cast<std::uint64_t>(key[rows[i]]), n); });
      });
  q.after(build_orders, build_customers);

  group_aggregate& revenue = q.aggregate(1);
  const auto probe = q.scan(
      "q5 lineitem", lineitem, nullptr, nullptr, {"l_orderkey", "l_suppkey", "l_extendedprice", "l_discount"}, &revenue,
      [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
        const auto* key = lineitem.column_data<std::int64_t>(f, l_orderkey);
        const auto* supplier_key = lineitem.column_data<std::int64_t>(f, l_suppkey);
        const auto* price = lineitem.column_data<std::int64_t>(f, l_extendedprice);
        const auto* discount = lineitem.column_data<std::int64_t>(f, l_discount);
        qualifying_orders.probe_batch(
            count, q.probe_group(), [&](std::uint32_t i) { return static_cast<std::uint64_t>(key[rows[i]]); },
            [&](std::uint32_t i, std::int64_t customer_nation) {
              const std::uint32_t r = rows[i];
              const auto s = static_cast<std::uint64_t>(supplier_key[r]);
              if (!suppliers.may_contain(s)) return;
              suppliers.for_each_match(s, [&](std::int64_t supplier_nation) {
                if (supplier_nation == customer_nation) {
                  revenue.accumulators(worker, static_cast<std::uint64_t>(customer_nation))[0] += discounted(price[r], discount[r]);
                }
              });
            });
      });
  q.after(probe, build_orders);
  q.after(probe, build_suppliers);

  query_run out;
  out.statistics = q.run();
  out.rows.columns = {"n_name", "revenue"};
  const std::size_t key_column = nation.column_index("n_nationkey");
  const std::size_t name_column = nation.column_index("n_name");
  for (const auto& g : revenue.groups()) {
    for (std::uint64_t row = 0; row < nation.rows(); ++row) {
      if (nation.at(row, key_column).number == static_cast<int128>(g.key)) {
        out.rows.rows.push_back({nation.at(row, name_column), cell::decimal(g.values[0], 4)});
        break;
      }
    }
  }
  order_rows(out.rows.rows, {{1, true}});
  return out;
}

// ---- Q6 ----------------------------------------------------------------------------------------

query_run forecasting_revenue_change(const tpch_database& data, tasks::runtime& runtime, const tpch_parameters& parameters,
                                     const execution_options& options) {
  plan q(data, runtime, options);
  const table& lineitem = q.get(tpch_table::lineitem);
  const std::size_t l_extendedprice = lineitem.column_index("l_extendedprice");
  const std::size_t l_discount = lineitem.column_index("l_discount");
  const std::int64_t from = day_number(parameters.q6_date);
  const std::int64_t until = plus_months(parameters.q6_date, 12);
  const predicate* shipped = q.keep(predicate::range(lineitem, "l_shipdate", from, until - 1));
  const predicate* filter = q.keep(predicate::all_of(
      {*shipped,
       predicate::range(lineitem, "l_discount", parameters.q6_discount_hundredths - 1, parameters.q6_discount_hundredths + 1),
       predicate::range(lineitem, "l_quantity", std::numeric_limits<std::int64_t>::min(), parameters.q6_quantity * 100 - 1)}));
  group_aggregate& revenue = q.aggregate(1);
  q.scan("q6 lineitem", lineitem, filter, shipped, {"l_extendedprice"}, &revenue,
         [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
           const auto* price = lineitem.column_data<std::int64_t>(f, l_extendedprice);
           const auto* discount = lineitem.column_data<std::int64_t>(f, l_discount);
           int128 sum = 0;
           for (std::uint32_t i = 0; i < count; ++i) sum += int128{price[rows[i]]} * discount[rows[i]];
           if (count != 0) revenue.accumulators(worker, 0)[0] += sum;
         });
  query_run out;
  out.statistics = q.run();
  out.rows.columns = {"revenue"};
  const int128 total = revenue.groups().empty() ? 0 : revenue.groups().front().values[0];
  out.rows.rows.push_back({cell::decimal(total, 4)});
  return out;
}

// ---- Q10 ---------------------------------------------------------------------------------------

query_run returned_item_reporting(const tpch_database& data, tasks::runtime& runtime, const tpch_parameters& parameters,
                                  const execution_options& options) {
  plan q(data, runtime, options);
  const table& customer = q.get(tpch_table::customer);
  const table& nation = q.get(tpch_table::nation);
  const table& orders = q.get(tpch_table::orders);
  const table& lineitem = q.get(tpch_table::lineitem);
  const std::size_t o_orderkey = orders.column_index("o_orderkey");
  const std::size_t o_custkey = orders.column_index("o_custkey");
  const std::size_t l_orderkey = lineitem.column_index("l_orderkey");
  const std::size_t l_extendedprice = lineitem.column_index("l_extendedprice");
  const std::size_t l_discount = lineitem.column_index("l_discount");
  const std::int64_t from = day_number(parameters.q10_date);
  const std::int64_t until = plus_months(parameters.q10_date, 3);

  // Row references for the output columns.
  auto row_index = [&q](const table& source, std::string name, std::string_view key_column, join_table& into) {
    return q.scan(std::move(name), source, nullptr, nullptr, {key_column}, &into,
                  [&source, &into, key_index = source.column_index(key_column)](unsigned worker, std::size_t f,
                                                                                const std::uint32_t* rows, std::uint32_t count) {
                    const auto* key = source.column_data<std::int64_t>(f, key_index);
                    for (std::uint32_t i = 0; i < count; ++i) {
                      into.insert(worker, static_cast<std::uint64_t>(key[rows[i]]), static_cast<std::int64_t>(row_of(source, f, rows[i])));
                    }
                  });
  };
  join_table& customer_rows = q.join(false);
  row_index(customer, "q10 customer", "c_custkey", customer_rows);
  join_table& nation_rows = q.join(false);
  row_index(nation, "q10 nation", "n_nationkey", nation_rows);

  join_table& qualifying_orders = q.join(true);  // orderkey -> custkey
  const auto build_orders = q.scan(
      "q10 orders", orders, q.keep(predicate::range(orders, "o_orderdate", from, until - 1)), nullptr, {"o_orderkey", "o_custkey"},
      &qualifying_orders, [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
        const auto* key = orders.column_data<std::int64_t>(f, o_orderkey);
        const auto* customer_key = orders.column_data<std::int64_t>(f, o_custkey);
        for (std::uint32_t i = 0; i < count; ++i) qualifying_orders.insert(worker, static_cast<std::uint64_t>(key[rows[i]]), customer_key[rows[i]]);
      });

  group_aggregate& revenue = q.aggregate(1);
  const auto probe = q.scan(
      "q10 lineitem", lineitem, q.keep(predicate::text_equals(lineitem, "l_returnflag", "R")), nullptr,
      {"l_orderkey", "l_extendedprice", "l_discount"}, &revenue,
      [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
        const auto* key = lineitem.column_data<std::int64_t>(f, l_orderkey);
        const auto* price = lineitem.column_data<std::int64_t>(f, l_extendedprice);
        const auto* discount = lineitem.column_data<std::int64_t>(f, l_discount);
        qualifying_orders.probe_batch(
            count, q.probe_group(), [&](std::uint32_t i) { return static_cast<std::uint64_t>(key[rows[i]]); },
            [&](std::uint32_t i, std::int64_t customer_key) {
              const std::uint32_t r = rows[i];
              revenue.accumulators(worker, static_cast<std::uint64_t>(customer_key))[0] += discounted(price[r], discount[r]);
            });
      });
  q.after(probe, build_orders);

  query_run out;
  out.statistics = q.run();
  out.rows.columns = {"c_custkey", "c_name", "revenue", "c_acctbal", "n_name", "c_address", "c_phone", "c_comment"};
  // c_custkey is unique, so (revenue desc, c_custkey) is already the total order: the top 20
  // groups are chosen on numbers, and only they are read as text.
  struct candidate {
    int128 revenue;
    std::uint64_t custkey;
    std::uint64_t customer_row;
    std::uint64_t nation_row;
  };
  std::vector<candidate> candidates;
  const std::size_t nation_key = customer.column_index("c_nationkey");
  for (const auto& g : revenue.groups()) {
    const auto c = customer_rows.find(g.key);
    if (!c) continue;  // an order whose customer is missing joins with nothing
    const auto row = static_cast<std::uint64_t>(*c);
    const auto n = nation_rows.find(static_cast<std::uint64_t>(customer.at(row, nation_key).number));
    if (!n) continue;
    candidates.push_back({g.values[0], g.key, row, static_cast<std::uint64_t>(*n)});
  }
  const auto top = std::min<std::size_t>(20, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(top), candidates.end(),
                    [](const candidate& a, const candidate& b) {
                      return a.revenue != b.revenue ? a.revenue > b.revenue : a.custkey < b.custkey;
                    });
  candidates.resize(top);
  for (const candidate& c : candidates) {
    const std::uint64_t row = c.customer_row;
    out.rows.rows.push_back({cell::integer(static_cast<std::int64_t>(c.custkey)), customer.at(row, customer.column_index("c_name")),
                             cell::decimal(c.revenue, 4), customer.at(row, customer.column_index("c_acctbal")),
                             nation.at(c.nation_row, nation.column_index("n_name")),
                             customer.at(row, customer.column_index("c_address")), customer.at(row, customer.column_index("c_phone")),
                             customer.at(row, customer.column_index("c_comment"))});
  }
  order_rows(out.rows.rows, {{2, true}}, 20);
  return out;
}

// ---- Q12 ---------------------------------------------------------------------------------------

query_run shipping_modes(const tpch_database& data, tasks::runtime& runtime, const tpch_parameters& parameters,
                         const execution_options& options) {
  plan q(data, runtime, options);
  const table& orders = q.get(tpch_table::orders);
  const table& lineitem = q.get(tpch_table::lineitem);
  const std::size_t o_orderkey = orders.column_index("o_orderkey");
  const std::size_t o_orderpriority = orders.column_index("o_orderpriority");
  const std::size_t l_orderkey = lineitem.column_index("l_orderkey");
  const std::size_t l_shipmode = lineitem.column_index("l_shipmode");
  const std::int64_t from = day_number(parameters.q12_date);
  const std::int64_t until = plus_months(parameters.q12_date, 12);

  // The build side is the qualifying lineitems (about 0.5 % of them: two ship modes, one year
  // of receipt dates, two date orders), orderkey -> ship mode code, one entry per line; the
  // orders then probe it, through its bloom filter, so the large side is only scanned.
  const predicate* received = q.keep(predicate::range(lineitem, "l_receiptdate", from, until - 1));
  const predicate* filter = q.keep(predicate::all_of(
      {*received, predicate::text_in(lineitem, "l_shipmode", {parameters.q12_shipmode1, parameters.q12_shipmode2}),
       predicate::column_less(lineitem, "l_commitdate", "l_receiptdate"), predicate::column_less(lineitem, "l_shipdate", "l_commitdate")}));
  join_table& lines = q.join(true);
  const auto build = q.scan("q12 lineitem", lineitem, filter, received, {"l_orderkey", "l_shipmode"}, &lines,
                            [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
                              const auto* key = lineitem.column_data<std::int64_t>(f, l_orderkey);
                              const auto* mode = lineitem.column_data<std::uint32_t>(f, l_shipmode);
                              for (std::uint32_t i = 0; i < count; ++i) {
                                lines.insert(worker, static_cast<std::uint64_t>(key[rows[i]]), mode[rows[i]]);
                              }
                            });

  // Per ship mode: lines of high-priority orders (1-URGENT, 2-HIGH), and of the others.
  const predicate* high = q.keep(predicate::text_in(orders, "o_orderpriority", {"1-URGENT", "2-HIGH"}));
  group_aggregate& counts = q.aggregate(2);
  const auto probe = q.scan("q12 orders", orders, nullptr, nullptr, {"o_orderkey", "o_orderpriority"}, &counts,
                            [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
                              const auto* key = orders.column_data<std::int64_t>(f, o_orderkey);
                              const auto* priority = orders.column_data<std::uint32_t>(f, o_orderpriority);
                              const std::uint8_t* is_high = high->code_bitmap().data();
                              lines.probe_batch(
                                  count, q.probe_group(), [&](std::uint32_t i) { return static_cast<std::uint64_t>(key[rows[i]]); },
                                  [&](std::uint32_t i, std::int64_t mode) {
                                    const int128 high_line = is_high[priority[rows[i]]];
                                    int128* sums = counts.accumulators(worker, static_cast<std::uint64_t>(mode));
                                    sums[0] += high_line;
                                    sums[1] += 1 - high_line;
                                  });
                            });
  q.after(probe, build);

  query_run out;
  out.statistics = q.run();
  out.rows.columns = {"l_shipmode", "high_line_count", "low_line_count"};
  const text_dictionary& modes = lineitem.dictionary(lineitem.column_index("l_shipmode"));
  for (const auto& g : counts.groups()) {
    out.rows.rows.push_back({cell::text(std::string(modes.text(static_cast<std::uint32_t>(g.key)))), cell::integer(g.values[0]),
                             cell::integer(g.values[1])});
  }
  order_rows(out.rows.rows, {{0, false}});
  return out;
}

// ---- Q14 ---------------------------------------------------------------------------------------

query_run promotion_effect(const tpch_database& data, tasks::runtime& runtime, const tpch_parameters& parameters,
                           const execution_options& options) {
  plan q(data, runtime, options);
  const table& part = q.get(tpch_table::part);
  const table& lineitem = q.get(tpch_table::lineitem);
  const std::size_t p_partkey = part.column_index("p_partkey");
  const std::size_t p_type = part.column_index("p_type");
  const std::size_t l_partkey = lineitem.column_index("l_partkey");
  const std::size_t l_extendedprice = lineitem.column_index("l_extendedprice");
  const std::size_t l_discount = lineitem.column_index("l_discount");
  const std::int64_t from = day_number(parameters.q14_date);
  const std::int64_t until = plus_months(parameters.q14_date, 1);

  const predicate* promo = q.keep(predicate::text_prefix(part, "p_type", "PROMO"));
  join_table& promotions = q.join(false);  // partkey -> 1 for PROMO%
  const auto build = q.scan("q14 part", part, nullptr, nullptr, {"p_partkey", "p_type"}, &promotions,
                            [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
                              const auto* key = part.column_data<std::int64_t>(f, p_partkey);
                              const auto* type = part.column_data<std::uint32_t>(f, p_type);
                              const std::uint8_t* is_promo = promo->code_bitmap().data();
                              for (std::uint32_t i = 0; i < count; ++i) {
                                promotions.insert(worker, static_cast<std::uint64_t>(key[rows[i]]), is_promo[type[rows[i]]]);
                              }
                            });
  group_aggregate& sums = q.aggregate(2);  // promo revenue, revenue
  const auto probe = q.scan("q14 lineitem", lineitem, q.keep(predicate::range(lineitem, "l_shipdate", from, until - 1)), nullptr,
                            {"l_partkey", "l_extendedprice", "l_discount"}, &sums,
                            [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
                              const auto* key = lineitem.column_data<std::int64_t>(f, l_partkey);
                              const auto* price = lineitem.column_data<std::int64_t>(f, l_extendedprice);
                              const auto* discount = lineitem.column_data<std::int64_t>(f, l_discount);
                              promotions.probe_batch(
                                  count, q.probe_group(), [&](std::uint32_t i) { return static_cast<std::uint64_t>(key[rows[i]]); },
                                  [&](std::uint32_t i, std::int64_t is_promo) {
                                    const std::uint32_t r = rows[i];
                                    int128* totals = sums.accumulators(worker, 0);
                                    const int128 revenue = discounted(price[r], discount[r]);
                                    totals[0] += is_promo != 0 ? revenue : 0;
                                    totals[1] += revenue;
                                  });
                            });
  q.after(probe, build);

  query_run out;
  out.statistics = q.run();
  out.rows.columns = {"promo_revenue"};
  const int128 promo_revenue = sums.groups().empty() ? 0 : sums.groups().front().values[0];
  const int128 revenue = sums.groups().empty() ? 0 : sums.groups().front().values[1];
  if (revenue == 0) throw std::domain_error("query Q14: no lineitem qualifies, promo_revenue divides by zero");
  out.rows.rows.push_back({ratio(100 * promo_revenue, revenue, 2)});
  return out;
}

// ---- Q19 ---------------------------------------------------------------------------------------

query_run discounted_revenue(const tpch_database& data, tasks::runtime& runtime, const tpch_parameters& parameters,
                             const execution_options& options) {
  plan q(data, runtime, options);
  const table& part = q.get(tpch_table::part);
  const table& lineitem = q.get(tpch_table::lineitem);
  const std::size_t p_partkey = part.column_index("p_partkey");
  const std::size_t l_partkey = lineitem.column_index("l_partkey");
  const std::size_t l_quantity = lineitem.column_index("l_quantity");
  const std::size_t l_extendedprice = lineitem.column_index("l_extendedprice");
  const std::size_t l_discount = lineitem.column_index("l_discount");
  const std::array<std::vector<std::string>, 3> containers = {
      std::vector<std::string>{"SM CASE", "SM BOX", "SM PACK", "SM PKG"},
      std::vector<std::string>{"MED BAG", "MED BOX", "MED PKG", "MED PACK"},
      std::vector<std::string>{"LG CASE", "LG BOX", "LG PACK", "LG PKG"}};
  const std::array<std::int64_t, 3> largest_size = {5, 10, 15};
  std::array<const predicate*, 3> part_terms{};
  for (std::size_t d = 0; d < 3; ++d) {
    part_terms[d] = q.keep(predicate::all_of({predicate::text_equals(part, "p_brand", parameters.q19_brands[d]),
                                              predicate::text_in(part, "p_container", containers[d]),
                                              predicate::range(part, "p_size", 1, largest_size[d])}));
  }
  const predicate* any_part = q.keep(predicate::any_of({*part_terms[0], *part_terms[1], *part_terms[2]}));

  // partkey -> the disjuncts (bits 0-2) whose part terms it meets.
  join_table& parts = q.join(true);
  const auto scratch = std::make_unique<selection_buffers>(q.workers(), part.tuples_per_fragment(), 2);
  const auto build = q.scan("q19 part", part, any_part, nullptr, {"p_partkey"}, &parts,
                            [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
                              const auto* key = part.column_data<std::int64_t>(f, p_partkey);
                              std::uint32_t* disjuncts = scratch->get(worker, 0);  // by position in the fragment
                              std::uint32_t* matched = scratch->get(worker, 1);
                              for (std::uint32_t i = 0; i < count; ++i) disjuncts[rows[i]] = 0;
                              for (std::uint32_t d = 0; d < 3; ++d) {
                                const std::uint32_t n = part_terms[d]->select(part, f, rows, count, matched);
                                for (std::uint32_t j = 0; j < n; ++j) disjuncts[matched[j]] |= 1U << d;
                              }
                              for (std::uint32_t i = 0; i < count; ++i) {
                                parts.insert(worker, static_cast<std::uint64_t>(key[rows[i]]), disjuncts[rows[i]]);
                              }
                            });

  const std::int64_t lowest_quantity = *std::min_element(parameters.q19_quantities.begin(), parameters.q19_quantities.end()) * 100;
  const std::int64_t highest_quantity = (*std::max_element(parameters.q19_quantities.begin(), parameters.q19_quantities.end()) + 10) * 100;
  const predicate* filter = q.keep(predicate::all_of({predicate::text_in(lineitem, "l_shipmode", {"AIR", "AIR REG"}),
                                                      predicate::text_equals(lineitem, "l_shipinstruct", "DELIVER IN PERSON"),
                                                      predicate::range(lineitem, "l_quantity", lowest_quantity, highest_quantity)}));
  group_aggregate& revenue = q.aggregate(1);
  const auto quantities = parameters.q19_quantities;
  const auto probe = q.scan(
      "q19 lineitem", lineitem, filter, nullptr, {"l_partkey", "l_extendedprice", "l_discount"}, &revenue,
      [&, quantities](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
        const auto* key = lineitem.column_data<std::int64_t>(f, l_partkey);
        const auto* quantity = lineitem.column_data<std::int64_t>(f, l_quantity);
        const auto* price = lineitem.column_data<std::int64_t>(f, l_extendedprice);
        const auto* discount = lineitem.column_data<std::int64_t>(f, l_discount);
        int128 sum = 0;
        parts.probe_batch(
            count, q.probe_group(), [&](std::uint32_t i) { return static_cast<std::uint64_t>(key[rows[i]]); },
            [&](std::uint32_t i, std::int64_t disjuncts) {
              const std::uint32_t r = rows[i];
              bool qualifies = false;
              for (std::size_t d = 0; d < 3; ++d) {
                const bool in_range = quantity[r] >= quantities[d] * 100 && quantity[r] <= (quantities[d] + 10) * 100;
                qualifies = qualifies || (((disjuncts >> d) & 1) != 0 && in_range);
              }
              if (qualifies) sum += discounted(price[r], discount[r]);
            });
        if (sum != 0) revenue.accumulators(worker, 0)[0] += sum;
      });
  q.after(probe, build);

  query_run out;
  out.statistics = q.run();
  out.rows.columns = {"revenue"};
  out.rows.rows.push_back({cell::decimal(revenue.groups().empty() ? 0 : revenue.groups().front().values[0], 4)});
  return out;
}

// ---- micro queries -----------------------------------------------------------------------------

query_run sum_quantity(const tpch_database& data, tasks::runtime& runtime, const execution_options& options) {
  plan q(data, runtime, options);
  const table& lineitem = q.get(tpch_table::lineitem);
  const std::size_t l_quantity = lineitem.column_index("l_quantity");
  group_aggregate& total = q.aggregate(1);
  q.scan("sum quantity", lineitem, nullptr, nullptr, {"l_quantity"}, &total,
         [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count) {
           const auto* quantity = lineitem.column_data<std::int64_t>(f, l_quantity);
           int128 sum = 0;
           for (std::uint32_t i = 0; i < count; ++i) sum += quantity[rows[i]];
           total.accumulators(worker, 0)[0] += sum;
         });
  query_run out;
  out.statistics = q.run();
  out.rows.columns = {"sum_quantity"};
  out.rows.rows.push_back({cell::decimal(total.groups().empty() ? 0 : total.groups().front().values[0], 2)});
  return out;
}

}  // namespace

namespace {
void check_options(const execution_options& options) {
  if (options.probe_group == 0 || options.probe_group > join_table::max_probe_group) {
    throw std::invalid_argument("query: probe group " + std::to_string(options.probe_group) + " is not in 1.." +
                                std::to_string(join_table::max_probe_group));
  }
}
}  // namespace

query_run run_tpch_query(int number, const tpch_database& data, tasks::runtime& runtime, const tpch_parameters& parameters,
                         const execution_options& options) {
  check_options(options);
  switch (number) {
    case 1: return pricing_summary(data, runtime, options, day_number(std::chrono::sys_days{std::chrono::year{1998} / 12 / 1}) - parameters.q1_delta_days);
    case 3: return shipping_priority(data, runtime, parameters, options);
    case 5: return local_supplier_volume(data, runtime, parameters, options);
    case 6: return forecasting_revenue_change(data, runtime, parameters, options);
    case 10: return returned_item_reporting(data, runtime, parameters, options);
    case 12: return shipping_modes(data, runtime, parameters, options);
    case 14: return promotion_effect(data, runtime, parameters, options);
    case 19: return discounted_revenue(data, runtime, parameters, options);
    default: break;
  }
  throw std::invalid_argument("query: TPC-H query " + std::to_string(number) +
                              " has no plan (plans: 1, 3, 5, 6, 10, 12, 14, 19)");
}

query_run run_micro_query(micro_query which, const tpch_database& data, tasks::runtime& runtime, const execution_options& options) {
  check_options(options);
  switch (which) {
    case micro_query::sum_quantity: return sum_quantity(data, runtime, options);
    case micro_query::q1_unfiltered: return pricing_summary(data, runtime, options, std::nullopt);
  }
  throw std::invalid_argument("query: unknown micro query");
}

}  // namespace braid::query

namespace braid::query {

table_columns tpch_query_columns(int number) {
  using enum tpch_table;
  switch (number) {
    case 1:
      return {{lineitem, {"l_quantity", "l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus",
                          "l_shipdate"}}};
    case 3:
      return {{customer, {"c_custkey", "c_mktsegment"}},
              {orders, {"o_orderkey", "o_custkey", "o_orderdate", "o_shippriority"}},
              {lineitem, {"l_orderkey", "l_extendedprice", "l_discount", "l_shipdate"}}};
    case 5:
      return {{region, {"r_regionkey", "r_name"}},
              {nation, {"n_nationkey", "n_name", "n_regionkey"}},
              {supplier, {"s_suppkey", "s_nationkey"}},
              {customer, {"c_custkey", "c_nationkey"}},
              {orders, {"o_orderkey", "o_custkey", "o_orderdate"}},
              {lineitem, {"l_orderkey", "l_suppkey", "l_extendedprice", "l_discount"}}};
    case 6:
      return {{lineitem, {"l_shipdate", "l_discount", "l_quantity", "l_extendedprice"}}};
    case 10:
      return {{nation, {"n_nationkey", "n_name"}},
              {customer, {"c_custkey", "c_name", "c_address", "c_nationkey", "c_phone", "c_acctbal", "c_comment"}},
              {orders, {"o_orderkey", "o_custkey", "o_orderdate"}},
              {lineitem, {"l_orderkey", "l_extendedprice", "l_discount", "l_returnflag"}}};
    case 12:
      return {{orders, {"o_orderkey", "o_orderpriority"}},
              {lineitem, {"l_orderkey", "l_shipmode", "l_commitdate", "l_receiptdate", "l_shipdate"}}};
    case 14:
      return {{part, {"p_partkey", "p_type"}}, {lineitem, {"l_partkey", "l_extendedprice", "l_discount", "l_shipdate"}}};
    case 19:
      return {{part, {"p_partkey", "p_brand", "p_size", "p_container"}},
              {lineitem, {"l_partkey", "l_quantity", "l_extendedprice", "l_discount", "l_shipinstruct", "l_shipmode"}}};
    default:
      throw std::invalid_argument("query: TPC-H query " + std::to_string(number) +
                                  " has no plan (plans: 1, 3, 5, 6, 10, 12, 14, 19)");
  }
}

table_columns micro_query_columns(micro_query which) {
  switch (which) {
    case micro_query::sum_quantity: return {{tpch_table::lineitem, {"l_quantity"}}};
    case micro_query::q1_unfiltered:
      return {{tpch_table::lineitem,
               {"l_quantity", "l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus"}}};
  }
  throw std::invalid_argument("query: unknown micro query");
}

table_columns merge_columns(const std::vector<table_columns>& queries) {
  std::array<std::optional<std::vector<std::string>>, tpch_table_count> merged;
  for (const table_columns& query : queries) {
    for (const auto& [which, columns] : query) {
      auto& kept = merged[static_cast<std::size_t>(which)];
      if (!kept) kept.emplace();
      for (const std::string& column : columns) {
        if (std::find(kept->begin(), kept->end(), column) == kept->end()) kept->push_back(column);
      }
    }
  }
  table_columns out;
  for (std::size_t t = 0; t < tpch_table_count; ++t) {
    if (merged[t]) out.emplace_back(static_cast<tpch_table>(t), std::move(*merged[t]));
  }
  return out;
}

}  // namespace braid::query
