// TPC-C's initial population (clause 4.3.3.1), installed as committed rows through the
// engine's recovery hook (install_committed: no transactions, no log). Jobs — the items, one
// warehouse's stock with its warehouse and district rows, one district's customers, history
// and orders — each draw from a random source seeded by (seed, job), so the population does
// not depend on how many threads load it. OIDs are computed from the keys (dense per job,
// disjoint across jobs), so the jobs need no coordination.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/core/thread_runner.hpp"
#include "tpcc.hpp"

namespace braid::bench::tpcc {
namespace {

constexpr std::uint64_t load_date = 1;  // O_ENTRY_D, C_SINCE, H_DATE of the population

std::uint64_t district_index(std::uint32_t w, std::uint32_t d) { return std::uint64_t{w - 1} * districts_per_warehouse + (d - 1); }

template <class Row>
void install(store& shop, txn::table_handle table, std::uint64_t oid, const key_bytes& key, const Row& row) {
  const txn::status s = shop.db().install_committed(table.table->id, oid, key.view(), bytes_of(row), false, 1);
  if (s != txn::status::ok) throw std::runtime_error("tpcc: loading a row: " + std::string(txn::describe(s)));
}

// I_DATA / S_DATA: 26..50 characters, 10 % with "ORIGINAL" at a random position.
void random_data(random_source& random, char (&field)[50]) {
  const std::size_t length = random_text(random, field, sizeof field, 26, 50);
  if (random.below(10) == 0) std::memcpy(field + random.below(length - 8 + 1), "ORIGINAL", 8);
}

void random_address(random_source& random, address& where) {
  random_text(random, where.street_1, sizeof where.street_1, 10, 20);
  random_text(random, where.street_2, sizeof where.street_2, 10, 20);
  random_text(random, where.city, sizeof where.city, 10, 20);
  for (char& letter : where.state) letter = static_cast<char>('A' + random.below(26));
  random_digits(random, where.zip, 4);
  std::memcpy(where.zip + 4, "11111", 5);
}

void load_items(store& shop, random_source& random) {
  for (std::uint32_t i = 1; i <= item_count; ++i) {
    item_row row = blank_row<item_row>();
    row.i_id = i;
    row.im_id = uniform(random, 1, 10000);
    random_text(random, row.name, sizeof row.name, 14, 24);
    row.price = uniform(random, 100, 10000);
    random_data(random, row.data);
    install(shop, shop.tables().item, i, item_key(i), row);
  }
}

// TPC-CH's REGION, NATION and SUPPLIER (tpcc.hpp says how nations and suppliers are placed);
// texts at CH-benCHmark's lengths, comments random a-strings.
void load_ch_tables(store& shop, random_source& random) {
  for (std::uint32_t r = 0; r < region_count; ++r) {
    region_row region = blank_row<region_row>();
    region.r_regionkey = r;
    set_text(region.name, region_names[r]);
    random_text(random, region.comment, sizeof region.comment, 31, 115);
    install(shop, shop.tables().region, r + 1, region_key(r), region);
  }
  for (std::uint32_t n = 0; n < nation_count; ++n) {
    nation_row nation = blank_row<nation_row>();
    nation.n_nationkey = nation_code(n);
    nation.n_regionkey = nation_region(n);
    set_text(nation.name, "NATION-" + std::string(1, static_cast<char>(nation_code(n))));
    random_text(random, nation.comment, sizeof nation.comment, 31, 114);
    install(shop, shop.tables().nation, n + 1, nation_key(nation_code(n)), nation);
  }
  for (std::uint32_t su = 0; su < shop.suppliers(); ++su) {
    supplier_row supplier = blank_row<supplier_row>();
    supplier.su_suppkey = su;
    supplier.su_nationkey = nation_code(supplier_nation_number(su));
    char name[26];
    std::snprintf(name, sizeof name, "Supplier#%09u", su);
    set_text(supplier.name, name);
    random_text(random, supplier.address, sizeof supplier.address, 10, 40);
    // TPC-H's phone form: country code (10 + nation number) - 3 - 3 - 4 digits.
    char phone[24];
    std::snprintf(phone, sizeof phone, "%02u-%03u-%03u-%04u", 10 + supplier_nation_number(su), uniform(random, 100, 999),
                  uniform(random, 100, 999), uniform(random, 1000, 9999));
    set_text(supplier.phone, phone);
    supplier.acctbal = static_cast<std::int64_t>(uniform(random, 0, 1099998)) - 99999;
    random_text(random, supplier.comment, sizeof supplier.comment, 25, 100);
    install(shop, shop.tables().supplier, su + 1, supplier_key(su), supplier);
  }
}

// The warehouse row, its districts and its stock.
void load_warehouse(store& shop, std::uint32_t w, random_source& random) {
  warehouse_row house = blank_row<warehouse_row>();
  house.w_id = w;
  random_text(random, house.name, sizeof house.name, 6, 10);
  random_address(random, house.where);
  house.tax = static_cast<std::int32_t>(uniform(random, 0, 2000));
  house.ytd = initial_warehouse_ytd;
  install(shop, shop.tables().warehouse, w, warehouse_key(w), house);
  for (std::uint32_t d = 1; d <= districts_per_warehouse; ++d) {
    district_row district = blank_row<district_row>();
    district.d_id = d;
    district.w_id = w;
    random_text(random, district.name, sizeof district.name, 6, 10);
    random_address(random, district.where);
    district.tax = static_cast<std::int32_t>(uniform(random, 0, 2000));
    district.ytd = initial_district_ytd;
    district.next_o_id = orders_per_district + 1;
    install(shop, shop.tables().district, district_index(w, d) + 1, district_key(w, d), district);
  }
  for (std::uint32_t i = 1; i <= item_count; ++i) {
    stock_row stock = blank_row<stock_row>();
    stock.i_id = i;
    stock.w_id = w;
    stock.quantity = static_cast<std::int32_t>(uniform(random, 10, 100));
    for (auto& dist : stock.dist) random_text(random, dist, sizeof dist, 24, 24);
    random_data(random, stock.data);
    install(shop, shop.tables().stock, std::uint64_t{w - 1} * item_count + i, stock_key(w, i), stock);
  }
}

void load_customer(store& shop, std::uint32_t w, std::uint32_t d, std::uint32_t c, random_source& random) {
  customer_row row = blank_row<customer_row>();
  row.c_id = c;
  row.d_id = d;
  row.w_id = w;
  const std::uint32_t name = c <= 1000 ? c - 1 : nurand(random, 255, 0, 999, shop.constants().c_last_load);
  set_text(row.last, last_name(name));
  set_text(row.middle, "OE");
  random_text(random, row.first, sizeof row.first, 8, 16);
  random_address(random, row.where);
  random_digits(random, row.phone, sizeof row.phone);
  row.since = load_date;
  set_text(row.credit, random.below(10) == 0 ? "BC" : "GC");
  row.credit_lim = 5000000;
  row.discount = static_cast<std::int32_t>(uniform(random, 0, 5000));
  row.balance = -1000;
  row.ytd_payment = 1000;
  row.payment_cnt = 1;
  row.data_length = static_cast<std::uint32_t>(random_text(random, row.data, sizeof row.data, 300, 500));
  const std::uint64_t oid = district_index(w, d) * customers_per_district + c;
  install(shop, shop.tables().customer, oid, customer_key(w, d, c), row);
  history_row history = blank_row<history_row>();
  history.c_id = c;
  history.c_d_id = history.d_id = d;
  history.c_w_id = history.w_id = w;
  history.date = load_date;
  history.amount = 1000;
  random_text(random, history.data, sizeof history.data, 12, 24);
  install(shop, shop.tables().history, oid, history_key(w, d, c, 0), history);
}

void load_order(store& shop, std::uint32_t w, std::uint32_t d, std::uint32_t o, std::uint32_t c, random_source& random) {
  const bool delivered = o < first_new_order;
  order_row order = blank_row<order_row>();
  order.o_id = o;
  order.d_id = d;
  order.w_id = w;
  order.c_id = c;
  order.entry_d = load_date;
  order.carrier_id = delivered ? uniform(random, 1, 10) : 0;
  order.ol_cnt = uniform(random, 5, 15);
  order.all_local = 1;
  const std::uint64_t oid = district_index(w, d) * orders_per_district + o;
  install(shop, shop.tables().order, oid, order_key(w, d, o), order);
  if (!delivered) {
    new_order_row fresh = blank_row<new_order_row>();
    fresh.o_id = o;
    fresh.d_id = d;
    fresh.w_id = w;
    install(shop, shop.tables().new_order, oid, new_order_key(w, d, o), fresh);
  }
  for (std::uint32_t number = 1; number <= order.ol_cnt; ++number) {
    order_line_row line = blank_row<order_line_row>();
    line.o_id = o;
    line.d_id = d;
    line.w_id = w;
    line.number = number;
    line.i_id = uniform(random, 1, item_count);
    line.supply_w_id = w;
    line.delivery_d = delivered ? load_date : 0;
    line.quantity = 5;
    line.amount = delivered ? 0 : uniform(random, 1, 999999);
    random_text(random, line.dist_info, sizeof line.dist_info, 24, 24);
    install(shop, shop.tables().order_line, (oid - 1) * max_order_lines + number, order_line_key(w, d, o, number), line);
  }
}

// A district's customers (one history row each) and its orders, whose customers are a random
// permutation of the district's.
void load_district(store& shop, std::uint32_t w, std::uint32_t d, random_source& random) {
  for (std::uint32_t c = 1; c <= customers_per_district; ++c) load_customer(shop, w, d, c, random);
  std::vector<std::uint32_t> customers(customers_per_district);
  std::iota(customers.begin(), customers.end(), 1u);
  for (std::size_t i = customers.size() - 1; i > 0; --i) std::swap(customers[i], customers[random.below(i + 1)]);
  for (std::uint32_t o = 1; o <= orders_per_district; ++o) load_order(shop, w, d, o, customers[o - 1], random);
}

// Job 0: the items and TPC-CH's tables; jobs 1..W: warehouse w; then one job per district.
void run_job(store& shop, std::uint64_t seed, std::uint64_t job) {
  random_source random(seed * 0x9E3779B97F4A7C15ull + job + 1);
  const std::uint64_t warehouses = shop.warehouses();
  if (job == 0) {
    load_items(shop, random);
    load_ch_tables(shop, random);
  } else if (job <= warehouses) {
    load_warehouse(shop, static_cast<std::uint32_t>(job), random);
  } else {
    const std::uint64_t district = job - warehouses - 1;
    load_district(shop, static_cast<std::uint32_t>(district / districts_per_warehouse + 1),
                  static_cast<std::uint32_t>(district % districts_per_warehouse + 1), random);
  }
}

}  // namespace

void load(store& shop, std::uint64_t seed, unsigned threads) {
  if (threads == 0 || threads > 256) throw std::invalid_argument("tpcc: load on 1..256 threads, not " + std::to_string(threads));
  shop.set_constants(draw_constants(seed));
  const std::uint64_t jobs = 1 + shop.warehouses() * (1 + std::uint64_t{districts_per_warehouse});
  std::atomic<std::uint64_t> next_job{0};
  thread_runner runner(threads);
  runner.run([&](unsigned) {
    for (std::uint64_t job = next_job.fetch_add(1); job < jobs; job = next_job.fetch_add(1)) run_job(shop, seed, job);
  });
}

}  // namespace braid::bench::tpcc
