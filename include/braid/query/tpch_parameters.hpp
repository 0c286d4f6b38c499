// tpch_parameters: the substitution parameters of TPC-H Q1, Q3, Q5, Q6, Q10, Q12, Q14 and Q19,
// defaulting to the specification's validation values (clause 2.4.x.3), shared by the
// task-based plans and the row-at-a-time reference so both answer the same question.
//
// Output rules beyond the specification, so that two correct engines return identical rows:
//  - ORDER BY is completed by the remaining output columns, left to right, ascending, so the
//    order (and a LIMIT's cut) is total: Q3 orders by revenue desc, o_orderdate, then
//    l_orderkey, o_shippriority; Q10 by revenue desc, then c_custkey, c_name, ...;
//  - Q5 and Q10 with no qualifying rows return no rows; Q1 likewise; Q6, Q14 and Q19 return one
//    row (Q6 / Q19 revenue 0.0000 when nothing qualifies; Q14 throws std::domain_error then,
//    as its ratio divides by zero);
//  - scales: see result.hpp (products add scales; averages scale + 2; Q14 promo_revenue scale 2).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>

namespace braid::query {

inline constexpr std::array<int, 8> tpch_query_numbers = {1, 3, 5, 6, 10, 12, 14, 19};

struct tpch_parameters {
  // Q1: l_shipdate <= 1998-12-01 - delta days.
  int q1_delta_days = 90;
  // Q3: c_mktsegment = segment; o_orderdate < date; l_shipdate > date. LIMIT 10.
  std::string q3_segment = "BUILDING";
  std::chrono::sys_days q3_date{std::chrono::year{1995} / 3 / 15};
  // Q5: r_name = region; date <= o_orderdate < date + 1 year.
  std::string q5_region = "ASIA";
  std::chrono::sys_days q5_date{std::chrono::year{1994} / 1 / 1};
  // Q6: date <= l_shipdate < date + 1 year; discount +- 0.01 (hundredths); l_quantity < quantity.
  std::chrono::sys_days q6_date{std::chrono::year{1994} / 1 / 1};
  std::int64_t q6_discount_hundredths = 6;
  std::int64_t q6_quantity = 24;
  // Q10: date <= o_orderdate < date + 3 months; l_returnflag = 'R'. LIMIT 20.
  std::chrono::sys_days q10_date{std::chrono::year{1993} / 10 / 1};
  // Q12: l_shipmode in (mode1, mode2); date <= l_receiptdate < date + 1 year.
  std::string q12_shipmode1 = "MAIL";
  std::string q12_shipmode2 = "SHIP";
  std::chrono::sys_days q12_date{std::chrono::year{1994} / 1 / 1};
  // Q14: date <= l_shipdate < date + 1 month.
  std::chrono::sys_days q14_date{std::chrono::year{1995} / 9 / 1};
  // Q19: the three brands and quantities of its three disjuncts.
  std::array<std::string, 3> q19_brands = {"Brand#12", "Brand#23", "Brand#34"};
  std::array<std::int64_t, 3> q19_quantities = {1, 10, 20};
};

}  // namespace braid::query
