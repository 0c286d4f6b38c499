// TPC-C's inputs, its five transactions as coroutines, and the run loop (tpcc.hpp). This is
// the one translation unit that instantiates the transactions' coroutines (GCC 12 fails to
// link one coroutine instantiated in two units of a program).
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/core/cycles.hpp"
#include "braid/core/fetch.hpp"
#include "braid/txn/transaction_scheduler.hpp"
#include "tpcc.hpp"

namespace braid::bench::tpcc {

using txn::status;
using txn::transaction;

const char* to_string(kind what) noexcept {
  switch (what) {
    case kind::new_order: return "new-order";
    case kind::payment: return "payment";
    case kind::order_status: return "order-status";
    case kind::delivery: return "delivery";
    case kind::stock_level: return "stock-level";
    case kind::query2: return "query2";
  }
  return "?";
}

const char* to_string(mix which) noexcept {
  switch (which) {
    case mix::tpcc: return "tpcc";
    case mix::tpcc_r: return "tpcc-r";
    case mix::tpcc_ch: return "tpcc-ch";
  }
  return "?";
}

const char* to_string(execution how) noexcept {
  switch (how) {
    case execution::plain: return "plain";
    case execution::interleaved: return "interleaved";
    case execution::interleaved_refill: return "interleaved-refill";
    case execution::hybrid: return "hybrid";
  }
  return "?";
}

// ---- inputs -------------------------------------------------------------------------------------

namespace {

const std::vector<std::string>& last_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (std::uint32_t number = 0; number < 1000; ++number) all.push_back(last_name(number));
    return all;
  }();
  return names;
}

std::uint64_t stream_seed(const workload& stream, std::uint64_t index) noexcept {
  std::uint64_t z = stream.seed * 0x9E3779B97F4A7C15ull + index * 0xBF58476D1CE4E5B9ull;
  return z ^ (z >> 29);
}

// A warehouse other than `home` (there are at least two).
std::uint32_t other_warehouse(random_source& random, std::uint32_t home, std::uint32_t warehouses) {
  const std::uint32_t other = uniform(random, 1, warehouses - 1);
  return other >= home ? other + 1 : other;
}

// 60 % by last name (NURand(255) with the run-time C), otherwise by id (NURand(1023)).
void draw_customer(random_source& random, const workload& stream, transaction_input& in) {
  in.by_name = uniform(random, 1, 100) <= 60;
  if (in.by_name) {
    in.c_last = last_names()[nurand(random, 255, 0, 999, stream.constants.c_last_run)];
  } else {
    in.c_id = nurand(random, 1023, 1, customers_per_district, stream.constants.c_id);
  }
}

void draw_new_order(random_source& random, const workload& stream, transaction_input& in) {
  in.c_id = nurand(random, 1023, 1, customers_per_district, stream.constants.c_id);
  in.ol_cnt = uniform(random, 5, max_order_lines);
  const bool rollback = uniform(random, 1, 100) == 1;
  for (std::uint32_t n = 0; n < in.ol_cnt; ++n) {
    order_item& item = in.items[n];
    item.i_id = nurand(random, 8191, 1, item_count, stream.constants.ol_i_id);
    const bool remote = stream.warehouses > 1 && uniform(random, 1, 100) == 1;
    item.supply_w_id = remote ? other_warehouse(random, in.w, stream.warehouses) : in.w;
    item.quantity = uniform(random, 1, 10);
  }
  if (rollback) in.items[in.ol_cnt - 1].i_id = unused_item;
}

void draw_payment(random_source& random, const workload& stream, transaction_input& in) {
  const bool remote = stream.warehouses > 1 && uniform(random, 1, 100) > 85;
  in.c_w = remote ? other_warehouse(random, in.w, stream.warehouses) : in.w;
  in.c_d = remote ? uniform(random, 1, districts_per_warehouse) : in.d;
  draw_customer(random, stream, in);
  in.amount = uniform(random, 100, 500000);
}

}  // namespace

transaction_input draw_input_of(kind what, const workload& stream, std::uint64_t index) {
  random_source random(stream_seed(stream, index) + 1);
  transaction_input in;
  in.what = what;
  in.w = uniform(random, 1, stream.warehouses);
  in.d = uniform(random, 1, districts_per_warehouse);
  in.c_w = in.w;
  in.c_d = in.d;
  in.date = 1000 + index;
  switch (what) {
    case kind::new_order: draw_new_order(random, stream, in); break;
    case kind::payment: draw_payment(random, stream, in); break;
    case kind::order_status: draw_customer(random, stream, in); break;
    case kind::delivery: in.carrier = uniform(random, 1, 10); break;
    case kind::stock_level: in.threshold = uniform(random, 10, 20); break;
    case kind::query2: in.region = uniform(random, 0, region_count - 1); break;
  }
  return in;
}

transaction_input draw_input(const workload& stream, std::uint64_t index) {
  random_source random(stream_seed(stream, index));
  const std::uint32_t roll = uniform(random, 1, 100);
  kind what = kind::stock_level;
  if (stream.mix == mix::tpcc_r) {
    what = roll <= 50 ? kind::stock_level : kind::order_status;
  } else if (stream.mix == mix::tpcc_ch) {
    what = roll <= 10   ? kind::query2
           : roll <= 50 ? kind::new_order
           : roll <= 88 ? kind::payment
           : roll <= 92 ? kind::order_status
           : roll <= 96 ? kind::delivery
                        : kind::stock_level;
  } else {
    what = roll <= 45 ? kind::new_order
           : roll <= 88 ? kind::payment
           : roll <= 92 ? kind::order_status
           : roll <= 96 ? kind::delivery
                        : kind::stock_level;
  }
  return draw_input_of(what, stream, index);
}

// ---- transactions -------------------------------------------------------------------------------

namespace {

// A read that the population guarantees: its status, or `corrupt` for a value of another size.
// `value` is taken by reference, not as a view: in `decoded(co_await tx.get<M>(..., value),
// value, row)` the arguments may be evaluated in any order, so a view could be taken before
// the read fills the string.
template <class Row>
status decoded(status s, const std::string& value, Row& row) {
  if (s != status::ok) return s;
  return decode(value, row) ? status::ok : status::corrupt;
}

// Whether `key` starts with `prefix`.
bool has_prefix(std::string_view key, const key_bytes& prefix) { return key.substr(0, prefix.view().size()) == prefix.view(); }

// The customer of clause 2.5.2.2 by last name: of the district's customers with that last
// name, sorted by first name, the one at position ceil(n / 2).
template <execution_mode M>
task<status> customer_by_name(transaction& tx, const table_set& t, std::uint32_t w, std::uint32_t d,
                              std::string_view last, customer_row& out) {
  constexpr std::size_t chunk = 16;
  const key_bytes prefix = key_bytes().u16(w).u8(d).padded(last, 16);
  std::string cursor(prefix.view());
  std::vector<customer_row> found;
  for (;;) {
    std::size_t seen = 0;
    bool past = false;
    std::string last_key;
    const status s = co_await tx.index_scan<M>(t.customer_by_name, cursor, chunk,
                                               [&](std::string_view key, std::string_view value) {
                                                 ++seen;
                                                 last_key.assign(key);
                                                 customer_row row;
                                                 if (!has_prefix(key, prefix)) past = true;
                                                 else if (decode(value, row)) found.push_back(row);
                                               });
    if (s != status::ok) co_return s;
    if (past || seen < chunk) break;
    cursor = last_key;
    cursor.push_back('\0');
  }
  if (found.empty()) co_return status::not_found;
  out = found[(found.size() + 1) / 2 - 1];
  co_return status::ok;
}

// The customer of `in` (by id or by name) in warehouse c_w, district c_d.
template <execution_mode M>
task<status> find_customer(transaction& tx, const table_set& t, const transaction_input& in, customer_row& out) {
  if (in.by_name) co_return co_await customer_by_name<M>(tx, t, in.c_w, in.c_d, in.c_last, out);
  std::string value;
  const status s = co_await tx.get<M>(t.customer, customer_key(in.c_w, in.c_d, in.c_id).view(), value);
  co_return decoded(s, value, out);
}

// The order lines of order (w, d, o), which has `count` of them.
template <execution_mode M>
task<status> order_lines(transaction& tx, const table_set& t, std::uint32_t w, std::uint32_t d, std::uint32_t o,
                         std::uint32_t count, std::vector<order_line_row>& out) {
  out.clear();
  const key_bytes prefix = order_key(w, d, o);
  const status s = co_await tx.scan<M>(t.order_line, order_line_key(w, d, o, 1).view(), count,
                                       [&](std::string_view key, std::string_view value) {
                                         order_line_row line;
                                         if (has_prefix(key, prefix) && decode(value, line)) out.push_back(line);
                                       });
  if (s == status::ok && out.size() != count) co_return status::corrupt;
  co_return s;
}

// Line `number` of the order: its stock row (read as `stock`) updated, its ORDER-LINE row.
template <execution_mode M>
task<status> write_line(transaction& tx, const table_set& t, const transaction_input& in, std::uint32_t o,
                        std::uint32_t number, const item_row& product, stock_row& stock, std::int64_t& total) {
  const order_item& item = in.items[number - 1];
  const auto quantity = static_cast<std::int32_t>(item.quantity);
  stock.quantity = stock.quantity >= quantity + 10 ? stock.quantity - quantity : stock.quantity - quantity + 91;
  stock.ytd += item.quantity;
  ++stock.order_cnt;
  if (item.supply_w_id != in.w) ++stock.remote_cnt;
  const status s = co_await tx.update<M>(t.stock, stock_key(item.supply_w_id, item.i_id).view(), bytes_of(stock));
  if (s != status::ok) co_return s;
  order_line_row line = blank_row<order_line_row>();
  line.o_id = o;
  line.d_id = in.d;
  line.w_id = in.w;
  line.number = number;
  line.i_id = item.i_id;
  line.supply_w_id = item.supply_w_id;
  line.quantity = item.quantity;
  line.amount = product.price * item.quantity;
  std::copy(std::begin(stock.dist[in.d - 1]), std::end(stock.dist[in.d - 1]), line.dist_info);
  total += line.amount;
  co_return co_await tx.insert<M>(t.order_line, order_line_key(in.w, in.d, o, number).view(), bytes_of(line));
}

// Clause 2.4.2, one line: its item, its stock, the stock's update and the order line.
template <execution_mode M>
task<status> stock_and_line(transaction& tx, const table_set& t, const transaction_input& in, std::uint32_t o,
                            std::uint32_t number, std::int64_t& total) {
  const order_item& item = in.items[number - 1];
  std::string value;
  item_row product{};
  status s = co_await tx.get<M>(t.item, item_key(item.i_id).view(), value);
  if (s == status::not_found && item.i_id == unused_item) {
    tx.abort();
    co_return status::abort_user;  // the spec's 1 % rollback
  }
  if ((s = decoded(s, value, product)) != status::ok) co_return s;
  stock_row stock{};
  s = co_await tx.get<M>(t.stock, stock_key(item.supply_w_id, item.i_id).view(), value);
  if ((s = decoded(s, value, stock)) != status::ok) co_return s;
  co_return co_await write_line<M>(tx, t, in, o, number, product, stock, total);
}

// The buffers of one New-Order's batched reads (hybrid): a key, a value and a status per line.
struct line_reads_buffer {
  std::array<key_bytes, max_order_lines> keys;
  std::array<std::string_view, max_order_lines> views;
  std::array<std::string, max_order_lines> values;
  std::array<status, max_order_lines> statuses{};

  // Reads the keys of lines 0..count-1 from `table` with one AMAC multi_get.
  template <class KeyOf>
  status read(transaction& tx, txn::table_handle table, std::size_t count, KeyOf key_of) {
    for (std::size_t n = 0; n < count; ++n) {
      keys[n] = key_of(n);
      views[n] = keys[n].view();
    }
    return tx.multi_get(table, std::span(views.data(), count), std::span(values.data(), count),
                        std::span(statuses.data(), count), txn::multi_get_technique::amac, count);
  }
};

// Clause 2.4.2 for every line (hybrid): the items by one multi_get, the stocks by another, then
// each line's writes in line order. A line whose stock row an earlier line updated takes that
// update, which is what its own read would have returned.
template <execution_mode M>
task<status> stock_and_lines_batched(transaction& tx, const table_set& t, const transaction_input& in, std::uint32_t o,
                                     std::int64_t& total) {
  const std::size_t count = in.ol_cnt;
  line_reads_buffer items, stocks;
  status s = items.read(tx, t.item, count, [&](std::size_t n) { return item_key(in.items[n].i_id); });
  if (s != status::ok) co_return s;
  std::array<item_row, max_order_lines> products{};
  for (std::size_t n = 0; n < count; ++n) {
    if (items.statuses[n] == status::not_found && in.items[n].i_id == unused_item) {
      tx.abort();
      co_return status::abort_user;  // the spec's 1 % rollback
    }
    if ((s = decoded(items.statuses[n], items.values[n], products[n])) != status::ok) co_return s;
  }
  s = stocks.read(tx, t.stock, count,
                  [&](std::size_t n) { return stock_key(in.items[n].supply_w_id, in.items[n].i_id); });
  if (s != status::ok) co_return s;
  std::array<stock_row, max_order_lines> updated{};
  for (std::size_t n = 0; n < count; ++n) {
    const order_item& item = in.items[n];
    std::size_t earlier = n;
    while (earlier > 0 && (in.items[earlier - 1].i_id != item.i_id || in.items[earlier - 1].supply_w_id != item.supply_w_id)) {
      --earlier;
    }
    if (earlier > 0) {
      updated[n] = updated[earlier - 1];
    } else if ((s = decoded(stocks.statuses[n], stocks.values[n], updated[n])) != status::ok) {
      co_return s;
    }
    s = co_await write_line<M>(tx, t, in, o, static_cast<std::uint32_t>(n + 1), products[n], updated[n], total);
    if (s != status::ok) co_return s;
  }
  co_return status::ok;
}

template <execution_mode M>
task<status> new_order(store& shop, const transaction_input& in, transaction_output& out, row_reads reads) {
  const table_set& t = shop.tables();
  transaction tx = shop.db().begin();
  std::string value;
  warehouse_row house{};
  district_row district{};
  customer_row customer{};
  status s = decoded(co_await tx.get<M>(t.warehouse, warehouse_key(in.w).view(), value), value, house);
  if (s == status::ok) s = decoded(co_await tx.get<M>(t.district, district_key(in.w, in.d).view(), value), value, district);
  if (s != status::ok) co_return s;
  const std::uint32_t o = district.next_o_id++;
  s = co_await tx.update<M>(t.district, district_key(in.w, in.d).view(), bytes_of(district));
  if (s == status::ok) {
    s = decoded(co_await tx.get<M>(t.customer, customer_key(in.w, in.d, in.c_id).view(), value), value, customer);
  }
  if (s != status::ok) co_return s;
  order_row order = blank_row<order_row>();
  order.o_id = o;
  order.d_id = in.d;
  order.w_id = in.w;
  order.c_id = in.c_id;
  order.entry_d = in.date;
  order.ol_cnt = in.ol_cnt;
  order.all_local = std::all_of(in.items.begin(), in.items.begin() + in.ol_cnt,
                                [&](const order_item& item) { return item.supply_w_id == in.w; }) ? 1 : 0;
  s = co_await tx.insert<M>(t.order, order_key(in.w, in.d, o).view(), bytes_of(order));
  new_order_row fresh = blank_row<new_order_row>();
  fresh.o_id = o;
  fresh.d_id = in.d;
  fresh.w_id = in.w;
  if (s == status::ok) s = co_await tx.insert<M>(t.new_order, new_order_key(in.w, in.d, o).view(), bytes_of(fresh));
  std::int64_t total = 0;
  if (s == status::ok && reads == row_reads::multi_get) s = co_await stock_and_lines_batched<M>(tx, t, in, o, total);
  for (std::uint32_t number = 1; reads == row_reads::one_by_one && number <= in.ol_cnt && s == status::ok; ++number) {
    s = co_await stock_and_line<M>(tx, t, in, o, number, total);
  }
  if (s != status::ok) co_return s;
  // total * (1 - C_DISCOUNT) * (1 + W_TAX + D_TAX), rates in 1/10000
  out.total = total * (10000 - customer.discount) / 10000 * (10000 + house.tax + district.tax) / 10000;
  out.o_id = o;
  out.lines = in.ol_cnt;
  co_return co_await txn::commit<M>(tx);
}

// C_DATA of a bad-credit customer: the payment's facts prepended, cut to 500 characters.
void record_bad_credit(customer_row& customer, const transaction_input& in) {
  char entry[96];
  const int written = std::snprintf(entry, sizeof entry, "%u %u %u %u %u %lld|", customer.c_id, customer.d_id,
                                    customer.w_id, in.d, in.w, static_cast<long long>(in.amount));
  const std::string data = std::string(entry, static_cast<std::size_t>(std::max(written, 0))) +
                           std::string(customer.data, std::min<std::size_t>(customer.data_length, sizeof customer.data));
  customer.data_length = static_cast<std::uint32_t>(std::min(data.size(), sizeof customer.data));
  set_text(customer.data, data);
}

template <execution_mode M>
task<status> payment_customer(transaction& tx, const table_set& t, const transaction_input& in, customer_row& customer) {
  status s = co_await find_customer<M>(tx, t, in, customer);
  if (s != status::ok) co_return s;
  customer.balance -= in.amount;
  customer.ytd_payment += in.amount;
  ++customer.payment_cnt;
  if (text_of(customer.credit) == "BC") record_bad_credit(customer, in);
  co_return co_await tx.update<M>(t.customer, customer_key(customer.w_id, customer.d_id, customer.c_id).view(),
                                  bytes_of(customer));
}

template <execution_mode M>
task<status> payment(store& shop, const transaction_input& in, transaction_output& out) {
  const table_set& t = shop.tables();
  transaction tx = shop.db().begin();
  std::string value;
  warehouse_row house{};
  district_row district{};
  customer_row customer{};
  status s = decoded(co_await tx.get<M>(t.warehouse, warehouse_key(in.w).view(), value), value, house);
  house.ytd += in.amount;
  if (s == status::ok) s = co_await tx.update<M>(t.warehouse, warehouse_key(in.w).view(), bytes_of(house));
  if (s == status::ok) s = decoded(co_await tx.get<M>(t.district, district_key(in.w, in.d).view(), value), value, district);
  district.ytd += in.amount;
  if (s == status::ok) s = co_await tx.update<M>(t.district, district_key(in.w, in.d).view(), bytes_of(district));
  if (s == status::ok) s = co_await payment_customer<M>(tx, t, in, customer);
  if (s != status::ok) co_return s;
  history_row history = blank_row<history_row>();
  history.c_id = customer.c_id;
  history.c_d_id = customer.d_id;
  history.c_w_id = customer.w_id;
  history.d_id = in.d;
  history.w_id = in.w;
  history.date = in.date;
  history.amount = in.amount;
  set_text(history.data, std::string(text_of(house.name)) + "    " + std::string(text_of(district.name)));
  const key_bytes key = history_key(customer.w_id, customer.d_id, customer.c_id, shop.take_history_sequence());
  s = co_await tx.insert<M>(t.history, key.view(), bytes_of(history));
  if (s != status::ok) co_return s;
  out.c_id = customer.c_id;
  out.total = customer.balance;
  co_return co_await txn::commit<M>(tx);
}

template <execution_mode M>
task<status> order_status(store& shop, const transaction_input& in, transaction_output& out) {
  const table_set& t = shop.tables();
  transaction tx = shop.db().begin(txn::isolation::snapshot, txn::access::read_only);
  customer_row customer{};
  status s = co_await find_customer<M>(tx, t, in, customer);
  if (s != status::ok) co_return s;
  const key_bytes prefix = key_bytes().u16(in.w).u8(in.d).u32(customer.c_id);
  order_row order{};
  bool found = false;
  s = co_await tx.index_scan<M>(t.order_by_customer, prefix.view(), 1, [&](std::string_view key, std::string_view value) {
    found = has_prefix(key, prefix) && decode(value, order);
  });
  if (s != status::ok) co_return s;
  if (!found) co_return status::not_found;  // every customer has an order from the population
  std::vector<order_line_row> lines;
  s = co_await order_lines<M>(tx, t, in.w, in.d, order.o_id, order.ol_cnt, lines);
  if (s != status::ok) co_return s;
  out.c_id = customer.c_id;
  out.o_id = order.o_id;
  out.lines = static_cast<std::uint32_t>(lines.size());
  for (const order_line_row& line : lines) out.total += line.amount;
  co_return co_await txn::commit<M>(tx);
}

// Delivers the oldest undelivered order of district d, if it has one (clause 2.7.4.2).
template <execution_mode M>
task<status> deliver_district(store& shop, transaction& tx, const transaction_input& in, std::uint32_t d,
                              std::uint32_t& o, transaction_output& out) {
  const table_set& t = shop.tables();
  const key_bytes district = district_key(in.w, d);
  const key_bytes start = new_order_key(in.w, d, shop.delivered_below(in.w, d));
  status s = co_await tx.scan<M>(t.new_order, start.view(), 1, [&](std::string_view key, std::string_view) {
    if (has_prefix(key, district)) o = key_field(key, 3, 4);
  });
  if (s != status::ok || o == 0) co_return s;
  s = co_await tx.remove<M>(t.new_order, new_order_key(in.w, d, o).view());
  std::string value;
  order_row order{};
  if (s == status::ok) s = decoded(co_await tx.get<M>(t.order, order_key(in.w, d, o).view(), value), value, order);
  order.carrier_id = in.carrier;
  if (s == status::ok) s = co_await tx.update<M>(t.order, order_key(in.w, d, o).view(), bytes_of(order));
  std::vector<order_line_row> lines;
  if (s == status::ok) s = co_await order_lines<M>(tx, t, in.w, d, o, order.ol_cnt, lines);
  std::int64_t amount = 0;
  for (order_line_row& line : lines) {
    if (s != status::ok) break;
    line.delivery_d = in.date;
    amount += line.amount;
    s = co_await tx.update<M>(t.order_line, order_line_key(in.w, d, o, line.number).view(), bytes_of(line));
  }
  customer_row customer{};
  const key_bytes buyer = customer_key(in.w, d, order.c_id);
  if (s == status::ok) s = decoded(co_await tx.get<M>(t.customer, buyer.view(), value), value, customer);
  customer.balance += amount;
  ++customer.delivery_cnt;
  if (s == status::ok) s = co_await tx.update<M>(t.customer, buyer.view(), bytes_of(customer));
  if (s == status::ok) ++out.delivered;
  co_return s;
}

template <execution_mode M>
task<status> delivery(store& shop, const transaction_input& in, transaction_output& out) {
  transaction tx = shop.db().begin();
  std::array<std::uint32_t, districts_per_warehouse> delivered{};  // 0: nothing to deliver
  for (std::uint32_t d = 1; d <= districts_per_warehouse; ++d) {
    if (const status s = co_await deliver_district<M>(shop, tx, in, d, delivered[d - 1], out); s != status::ok) {
      co_return s;
    }
  }
  const status s = co_await txn::commit<M>(tx);
  for (std::uint32_t d = 1; d <= districts_per_warehouse && s == status::ok; ++d) {
    if (delivered[d - 1] != 0) shop.mark_delivered(in.w, d, delivered[d - 1]);
  }
  co_return s;
}

// The stock rows of `items` in warehouse w below `threshold` (hybrid: one AMAC multi_get).
status count_low_stock_batched(transaction& tx, const table_set& t, std::uint32_t w, const std::vector<std::uint32_t>& items,
                               std::uint32_t threshold, std::uint32_t& low) {
  std::vector<key_bytes> keys;
  std::vector<std::string_view> views;
  keys.reserve(items.size());
  for (std::uint32_t item : items) views.push_back(keys.emplace_back(stock_key(w, item)).view());
  std::vector<std::string> values(items.size());
  std::vector<status> statuses(items.size());
  if (const status s = tx.multi_get(t.stock, views, values, statuses, txn::multi_get_technique::amac, 8); s != status::ok) {
    return s;
  }
  for (std::size_t n = 0; n < items.size(); ++n) {
    stock_row stock{};
    if (const status s = decoded(statuses[n], values[n], stock); s != status::ok) return s;
    if (stock.quantity < static_cast<std::int32_t>(threshold)) ++low;
  }
  return status::ok;
}

template <execution_mode M>
task<status> stock_level(store& shop, const transaction_input& in, transaction_output& out, row_reads reads) {
  const table_set& t = shop.tables();
  transaction tx = shop.db().begin(txn::isolation::snapshot, txn::access::read_only);
  std::string value;
  district_row district{};
  status s = decoded(co_await tx.get<M>(t.district, district_key(in.w, in.d).view(), value), value, district);
  std::vector<std::uint32_t> items;
  std::vector<order_line_row> lines;
  for (std::uint32_t o = district.next_o_id - std::min(district.next_o_id - 1, 20u); o < district.next_o_id; ++o) {
    if (s != status::ok) co_return s;
    order_row order{};
    s = decoded(co_await tx.get<M>(t.order, order_key(in.w, in.d, o).view(), value), value, order);
    if (s == status::ok) s = co_await order_lines<M>(tx, t, in.w, in.d, o, order.ol_cnt, lines);
    for (const order_line_row& line : lines) items.push_back(line.i_id);
  }
  if (s != status::ok) co_return s;
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end()), items.end());
  if (reads == row_reads::multi_get) {
    if ((s = count_low_stock_batched(tx, t, in.w, items, in.threshold, out.low_stock)) != status::ok) co_return s;
    co_return co_await txn::commit<M>(tx);
  }
  for (std::uint32_t item : items) {
    stock_row stock{};
    s = decoded(co_await tx.get<M>(t.stock, stock_key(in.w, item).view(), value), value, stock);
    if (s != status::ok) co_return s;
    if (stock.quantity < static_cast<std::int32_t>(in.threshold)) ++out.low_stock;
  }
  co_return co_await txn::commit<M>(tx);
}

// Q2* for one supplier: the least s_quantity of its stock rows, restocked (+50) if below 15
// unless its item's I_DATA holds a 'b'. The ITEM read is plain (CoroBase does not suspend it).
template <execution_mode M>
task<status> restock_supplier(store& shop, transaction& tx, std::uint32_t supplier, transaction_output& out) {
  const table_set& t = shop.tables();
  std::string value;
  stock_row lowest{};
  bool any = false;
  for (const stock_ref& row : shop.supplier_stock(supplier)) {
    stock_row stock{};
    const status s = decoded(co_await tx.get<M>(t.stock, stock_key(row.w, row.i).view(), value), value, stock);
    if (s != status::ok) co_return s;
    if (!any || stock.quantity < lowest.quantity) lowest = stock;
    any = true;
  }
  if (!any) co_return status::ok;
  item_row item{};
  if (const status s = decoded(tx.get(t.item, item_key(lowest.i_id).view(), value), value, item); s != status::ok) {
    co_return s;
  }
  if (text_of(item.data).find('b') != std::string_view::npos || lowest.quantity >= restock_below) co_return status::ok;
  lowest.quantity += restock_amount;
  ++out.restocked;
  co_return co_await tx.update<M>(t.stock, stock_key(lowest.w_id, lowest.i_id).view(), bytes_of(lowest));
}

// Q2* (tpcc.hpp): the region's nations, each nation's suppliers, each supplier's restock.
template <execution_mode M>
task<status> query2(store& shop, const transaction_input& in, transaction_output& out) {
  const table_set& t = shop.tables();
  transaction tx = shop.db().begin();
  std::uint32_t regions = 0, nations = 0;
  std::vector<std::uint32_t> region_nations;  // the codes of the region's nations
  status s = co_await tx.scan<M>(t.region, "", region_count, [&](std::string_view, std::string_view value) {
    region_row row;
    if (decode(value, row)) ++regions;
  });
  if (s == status::ok) {
    s = co_await tx.scan<M>(t.nation, "", nation_count, [&](std::string_view, std::string_view value) {
      nation_row row;
      if (!decode(value, row)) return;
      ++nations;
      if (row.n_regionkey == in.region) region_nations.push_back(row.n_nationkey);
    });
  }
  if (s != status::ok) co_return s;
  if (regions != region_count || nations != nation_count) co_return status::corrupt;
  std::string value;
  for (const std::uint32_t nation : region_nations) {
    for (std::uint32_t su = 0; su < shop.suppliers(); ++su) {
      supplier_row supplier{};
      if ((s = decoded(tx.get(t.supplier, supplier_key(su).view(), value), value, supplier)) != status::ok) co_return s;
      if (supplier.su_nationkey != nation) continue;
      if ((s = co_await restock_supplier<M>(shop, tx, su, out)) != status::ok) co_return s;
    }
  }
  co_return co_await txn::commit<M>(tx);
}

}  // namespace

template <execution_mode M>
task<status> attempt(store& shop, const transaction_input& input, transaction_output& out, row_reads reads) {
  switch (input.what) {
    case kind::new_order: co_return co_await new_order<M>(shop, input, out, reads);
    case kind::payment: co_return co_await payment<M>(shop, input, out);
    case kind::order_status: co_return co_await order_status<M>(shop, input, out);
    case kind::delivery: co_return co_await delivery<M>(shop, input, out);
    case kind::stock_level: co_return co_await stock_level<M>(shop, input, out, reads);
    case kind::query2: co_return co_await query2<M>(shop, input, out);
  }
  co_return status::invalid_argument;
}

template task<status> attempt<sequential>(store&, const transaction_input&, transaction_output&, row_reads);
template task<status> attempt<interleaved>(store&, const transaction_input&, transaction_output&, row_reads);

// ---- running --------------------------------------------------------------------------------------

void worker_tally::add(const worker_tally& other) {
  commits += other.commits;
  rollbacks += other.rollbacks;
  for (std::size_t k = 0; k < kind_count; ++k) commits_by_kind[k] += other.commits_by_kind[k];
  for (std::size_t r = 0; r < aborts.size(); ++r) aborts[r] += other.aborts[r];
  latencies_ns.insert(latencies_ns.end(), other.latencies_ns.begin(), other.latencies_ns.end());
  output_digest += other.output_digest;
}

namespace {

std::uint64_t output_share(std::uint64_t index, const transaction_input& in, const transaction_output& out) {
  std::uint64_t h = index * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(in.what);
  for (const std::uint64_t field : {std::uint64_t{out.o_id}, std::uint64_t{out.c_id}, static_cast<std::uint64_t>(out.total),
                                    std::uint64_t{out.lines}, std::uint64_t{out.delivered}, std::uint64_t{out.low_stock},
                                    std::uint64_t{out.restocked}}) {
    h = (h ^ field) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  return h;
}

std::size_t abort_index(status s) {
  return static_cast<std::size_t>(std::find(engine_abort_reasons.begin(), engine_abort_reasons.end(), s) -
                                  engine_abort_reasons.begin());
}

// Transaction `index` until it commits (ok) or rolls back on purpose (abort_user); an attempt
// the engine aborted is counted and retried after a yield.
template <execution_mode M>
task<status> run_to_end(store& shop, transaction_input input, std::uint64_t index, worker_tally& tally,
                        row_reads reads = row_reads::one_by_one) {
  const std::int64_t started = now_ns();
  unsigned retries = 0;
  for (;;) {
    transaction_output out;
    const status s = co_await attempt<M>(shop, input, out, reads);
    if (s == status::ok) {
      tally.latencies_ns.push_back(now_ns() - started);
      ++tally.commits;
      ++tally.commits_by_kind[static_cast<std::size_t>(input.what)];
      tally.output_digest += output_share(index, input, out);
      co_return s;
    }
    if (s == status::abort_user) {
      ++tally.rollbacks;
      co_return s;
    }
    if (!txn::is_abort(s)) co_return s;
    ++tally.aborts[abort_index(s)];
    // Back off: the k-th retry waits for 2^min(k, 6) of the batch's suspensions, so the writer
    // it conflicted with can finish (a retry at once mostly meets the same writer in flight).
    const unsigned waits = 1u << std::min(++retries, 6u);
    for (unsigned wait = 0; wait < waits; ++wait) co_await yield_point<M>();
  }
}

void require_finished(status s, std::uint64_t index, const transaction_input& input) {
  if (s != status::ok && s != status::abort_user) {
    throw std::logic_error("tpcc: transaction " + std::to_string(index) + " (" + to_string(input.what) +
                           ") failed: " + txn::describe(s));
  }
}

}  // namespace

worker_tally run_range(store& shop, const workload& stream, execution how, std::size_t batch, std::uint64_t begin,
                       std::uint64_t end) {
  if (how != execution::plain && (batch == 0 || batch > txn::max_batch_size)) {
    throw std::invalid_argument("tpcc: batch " + std::to_string(batch) + ": must be in 1.." +
                                std::to_string(txn::max_batch_size));
  }
  worker_tally tally;
  tally.latencies_ns.reserve(end - begin);
  if (how == execution::plain) {
    for (std::uint64_t index = begin; index < end; ++index) {
      const transaction_input input = draw_input(stream, index);
      task<status> one = run_to_end<sequential>(shop, input, index, tally);
      one.resume();
      if (!one.done()) throw std::logic_error("tpcc: a plain transaction suspended");
      require_finished(one.take_result(), index, input);
    }
    return tally;
  }
  const txn::batch_options options{.size = batch,
                                   .policy = how == execution::interleaved_refill ? txn::batch_policy::refill
                                                                                  : txn::batch_policy::strict};
  const row_reads reads = how == execution::hybrid ? row_reads::multi_get : row_reads::one_by_one;
  std::uint64_t failed_index = 0;
  status failure = status::ok;
  const status s = txn::run_transactions(
      options, end - begin,
      [&](std::size_t i) {
        return run_to_end<interleaved>(shop, draw_input(stream, begin + i), begin + i, tally, reads);
      },
      [&](std::size_t i, status done) {
        if (failure == status::ok && done != status::ok && done != status::abort_user) {
          failure = done;
          failed_index = begin + i;
        }
      });
  if (s != status::ok) throw std::invalid_argument("tpcc: the scheduler refused a batch of " + std::to_string(batch));
  if (failure != status::ok) require_finished(failure, failed_index, draw_input(stream, failed_index));
  return tally;
}

}  // namespace braid::bench::tpcc
