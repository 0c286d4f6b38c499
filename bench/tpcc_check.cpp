// TPC-C's consistency conditions 1-4, row counts and a digest of the whole state (tpcc.hpp),
// each read at one snapshot: a read-only transaction scanning whole tables.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "tpcc.hpp"

namespace braid::bench::tpcc {
namespace {

using txn::status;

// Calls visit(key, value) for every row of `table` in key order.
template <class Visit>
void scan_all(txn::transaction& tx, txn::table_handle table, Visit visit) {
  const status s = tx.scan(table, "", std::numeric_limits<std::size_t>::max(), visit);
  if (s != status::ok) throw std::runtime_error(std::string("tpcc: scanning a table: ") + txn::describe(s));
}

// What the conditions need of one district.
struct district_facts {
  std::int64_t ytd = 0;
  std::uint32_t next_o_id = 0;
  std::uint32_t max_o_id = 0;
  std::uint64_t order_lines_expected = 0;  // sum of O_OL_CNT
  std::uint64_t order_lines = 0;
  std::uint64_t new_orders = 0;
  std::uint32_t min_new_order = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t max_new_order = 0;
};

class district_table {
 public:
  explicit district_table(std::uint32_t warehouses) : facts_(std::size_t{warehouses} * districts_per_warehouse) {}
  // The district of a key that starts with (w, d); nullptr for one outside the population.
  district_facts* of(std::string_view key) {
    const std::uint32_t w = key_field(key, 0, 2), d = key_field(key, 2, 1);
    if (w == 0 || d == 0 || d > districts_per_warehouse) return nullptr;
    const std::size_t index = std::size_t{w - 1} * districts_per_warehouse + (d - 1);
    return index < facts_.size() ? &facts_[index] : nullptr;
  }
  district_facts& at(std::uint32_t w, std::uint32_t d) { return facts_[std::size_t{w - 1} * districts_per_warehouse + (d - 1)]; }

 private:
  std::vector<district_facts> facts_;
};

district_table gather(store& shop, txn::transaction& tx, std::vector<std::int64_t>& warehouse_ytd) {
  const table_set& t = shop.tables();
  district_table districts(shop.warehouses());
  warehouse_ytd.assign(shop.warehouses() + 1, 0);
  scan_all(tx, t.warehouse, [&](std::string_view key, std::string_view value) {
    warehouse_row row;
    const std::uint32_t w = key_field(key, 0, 2);
    if (decode(value, row) && w >= 1 && w <= shop.warehouses()) warehouse_ytd[w] = row.ytd;
  });
  scan_all(tx, t.district, [&](std::string_view key, std::string_view value) {
    district_row row;
    if (district_facts* facts = districts.of(key); facts != nullptr && decode(value, row)) {
      facts->ytd = row.ytd;
      facts->next_o_id = row.next_o_id;
    }
  });
  scan_all(tx, t.order, [&](std::string_view key, std::string_view value) {
    order_row row;
    if (district_facts* facts = districts.of(key); facts != nullptr && decode(value, row)) {
      facts->max_o_id = std::max(facts->max_o_id, row.o_id);
      facts->order_lines_expected += row.ol_cnt;
    }
  });
  scan_all(tx, t.new_order, [&](std::string_view key, std::string_view) {
    if (district_facts* facts = districts.of(key)) {
      const std::uint32_t o = key_field(key, 3, 4);
      ++facts->new_orders;
      facts->min_new_order = std::min(facts->min_new_order, o);
      facts->max_new_order = std::max(facts->max_new_order, o);
    }
  });
  scan_all(tx, t.order_line, [&](std::string_view key, std::string_view) {
    if (district_facts* facts = districts.of(key)) ++facts->order_lines;
  });
  return districts;
}

void check_district(std::uint32_t w, std::uint32_t d, const district_facts& facts, consistency_report& report) {
  const std::string where = "warehouse " + std::to_string(w) + " district " + std::to_string(d) + ": ";
  auto fail = [&](const std::string& what) { report.violations.push_back(what); };
  if (facts.next_o_id - 1 != facts.max_o_id) {
    fail("condition 2, " + where + "D_NEXT_O_ID - 1 = " + std::to_string(facts.next_o_id - 1) + " but max(O_ID) = " +
         std::to_string(facts.max_o_id));
  }
  if (facts.new_orders > 0 && facts.max_new_order != facts.max_o_id) {
    fail("condition 2, " + where + "max(NO_O_ID) = " + std::to_string(facts.max_new_order) + " but max(O_ID) = " +
         std::to_string(facts.max_o_id));
  }
  if (facts.new_orders > 0 && facts.max_new_order - facts.min_new_order + 1 != facts.new_orders) {
    fail("condition 3, " + where + std::to_string(facts.new_orders) + " NEW-ORDER rows but max - min + 1 = " +
         std::to_string(facts.max_new_order - facts.min_new_order + 1));
  }
  if (facts.order_lines != facts.order_lines_expected) {
    fail("condition 4, " + where + "sum(O_OL_CNT) = " + std::to_string(facts.order_lines_expected) + " but " +
         std::to_string(facts.order_lines) + " ORDER-LINE rows");
  }
}

std::uint64_t hash_bytes(std::uint64_t h, std::string_view bytes) {
  for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
  return h;
}

std::array<txn::table_handle, 12> all_tables(const table_set& t) {
  return {t.warehouse, t.district, t.customer, t.history, t.new_order, t.order,
          t.order_line, t.item,    t.stock,    t.region,  t.nation,    t.supplier};
}

}  // namespace

consistency_report check_consistency(store& shop) {
  txn::transaction tx = shop.db().begin(txn::isolation::snapshot, txn::access::read_only);
  std::vector<std::int64_t> warehouse_ytd;
  district_table districts = gather(shop, tx, warehouse_ytd);
  consistency_report report;
  for (std::uint32_t w = 1; w <= shop.warehouses(); ++w) {
    std::int64_t sum = 0;
    for (std::uint32_t d = 1; d <= districts_per_warehouse; ++d) sum += districts.at(w, d).ytd;
    if (sum != warehouse_ytd[w]) {
      report.violations.push_back("condition 1, warehouse " + std::to_string(w) + ": W_YTD = " +
                                  std::to_string(warehouse_ytd[w]) + " but sum(D_YTD) = " + std::to_string(sum));
    }
    for (std::uint32_t d = 1; d <= districts_per_warehouse; ++d) check_district(w, d, districts.at(w, d), report);
  }
  tx.commit();
  return report;
}

std::uint64_t row_count(store& shop, txn::table_handle table) {
  txn::transaction tx = shop.db().begin(txn::isolation::snapshot, txn::access::read_only);
  std::uint64_t count = 0;
  scan_all(tx, table, [&](std::string_view, std::string_view) { ++count; });
  tx.commit();
  return count;
}

std::array<std::uint64_t, 12> row_counts(store& shop) {
  txn::transaction tx = shop.db().begin(txn::isolation::snapshot, txn::access::read_only);
  std::array<std::uint64_t, 12> counts{};
  const std::array<txn::table_handle, 12> tables = all_tables(shop.tables());
  for (std::size_t i = 0; i < tables.size(); ++i) {
    scan_all(tx, tables[i], [&](std::string_view, std::string_view) { ++counts[i]; });
  }
  tx.commit();
  return counts;
}

std::uint64_t state_digest(store& shop) {
  txn::transaction tx = shop.db().begin(txn::isolation::snapshot, txn::access::read_only);
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (const txn::table_handle table : all_tables(shop.tables())) {
    h = hash_bytes(h, "|table|");
    scan_all(tx, table, [&](std::string_view key, std::string_view value) {
      h = hash_bytes(hash_bytes(h, key), value);
    });
  }
  tx.commit();
  return h;
}

}  // namespace braid::bench::tpcc
