// TPC-C's keys, random inputs, the store's tables and indexes (tpcc.hpp).
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "tpcc.hpp"

namespace braid::bench::tpcc {

// ---- keys -------------------------------------------------------------------------------------------

key_bytes& key_bytes::put(std::uint32_t value, std::size_t width) noexcept {
  for (std::size_t i = 0; i < width; ++i) {
    bytes_[size_ + i] = static_cast<char>((value >> (8 * (width - 1 - i))) & 0xFF);
  }
  size_ += width;
  return *this;
}

key_bytes& key_bytes::padded(std::string_view text, std::size_t width) noexcept {
  for (std::size_t i = 0; i < width; ++i) bytes_[size_ + i] = i < text.size() ? text[i] : '\0';
  size_ += width;
  return *this;
}

key_bytes warehouse_key(std::uint32_t w) { return key_bytes().u16(w); }
key_bytes district_key(std::uint32_t w, std::uint32_t d) { return key_bytes().u16(w).u8(d); }
key_bytes customer_key(std::uint32_t w, std::uint32_t d, std::uint32_t c) { return key_bytes().u16(w).u8(d).u32(c); }
key_bytes history_key(std::uint32_t w, std::uint32_t d, std::uint32_t c, std::uint32_t sequence) {
  return key_bytes().u16(w).u8(d).u32(c).u32(sequence);
}
key_bytes new_order_key(std::uint32_t w, std::uint32_t d, std::uint32_t o) { return key_bytes().u16(w).u8(d).u32(o); }
key_bytes order_key(std::uint32_t w, std::uint32_t d, std::uint32_t o) { return key_bytes().u16(w).u8(d).u32(o); }
key_bytes order_line_key(std::uint32_t w, std::uint32_t d, std::uint32_t o, std::uint32_t number) {
  return key_bytes().u16(w).u8(d).u32(o).u8(number);
}
key_bytes item_key(std::uint32_t i) { return key_bytes().u32(i); }
key_bytes stock_key(std::uint32_t w, std::uint32_t i) { return key_bytes().u16(w).u32(i); }
key_bytes customer_name_key(std::uint32_t w, std::uint32_t d, std::string_view last, std::string_view first,
                            std::uint32_t c) {
  return key_bytes().u16(w).u8(d).padded(last, 16).padded(first, 16).u32(c);
}
key_bytes order_customer_key(std::uint32_t w, std::uint32_t d, std::uint32_t c, std::uint32_t o) {
  return key_bytes().u16(w).u8(d).u32(c).u32(~o);
}

key_bytes region_key(std::uint32_t r) { return key_bytes().u8(r); }
key_bytes nation_key(std::uint32_t code) { return key_bytes().u8(code); }
key_bytes supplier_key(std::uint32_t s) { return key_bytes().u32(s); }

std::uint32_t key_field(std::string_view key, std::size_t offset, std::size_t width) noexcept {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < width && offset + i < key.size(); ++i) {
    value = (value << 8) | static_cast<unsigned char>(key[offset + i]);
  }
  return value;
}

std::string last_name(std::uint32_t number) {
  static constexpr const char* syllables[] = {"BAR", "OUGHT", "ABLE", "PRI",   "PRES",
                                              "ESE", "ANTI",  "CALLY", "ATION", "EING"};
  return std::string(syllables[(number / 100) % 10]) + syllables[(number / 10) % 10] + syllables[number % 10];
}

// ---- random inputs ----------------------------------------------------------------------------------

std::uint32_t uniform(random_source& random, std::uint32_t low, std::uint32_t high) noexcept {
  return low + static_cast<std::uint32_t>(random.below(std::uint64_t{high} - low + 1));
}

std::uint32_t nurand(random_source& random, std::uint32_t a, std::uint32_t x, std::uint32_t y, std::uint32_t c) noexcept {
  return (((uniform(random, 0, a) | uniform(random, x, y)) + c) % (y - x + 1)) + x;
}

std::size_t random_text(random_source& random, char* field, std::size_t width, std::size_t low, std::size_t high) noexcept {
  static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const std::size_t length = std::min(width, low + static_cast<std::size_t>(random.below(high - low + 1)));
  for (std::size_t i = 0; i < length; ++i) field[i] = alphabet[random.below(sizeof alphabet - 1)];
  for (std::size_t i = length; i < width; ++i) field[i] = '\0';
  return length;
}

void random_digits(random_source& random, char* field, std::size_t length) noexcept {
  for (std::size_t i = 0; i < length; ++i) field[i] = static_cast<char>('0' + random.below(10));
}

nurand_constants draw_constants(std::uint64_t seed) {
  random_source random(seed ^ 0x5DEECE66Dull);
  nurand_constants constants;
  constants.c_last_load = uniform(random, 0, 255);
  for (;;) {  // clause 2.1.6.1: 65 <= |C_run - C_load| <= 119, and neither 96 nor 112
    constants.c_last_run = uniform(random, 0, 255);
    const std::uint32_t delta = constants.c_last_run > constants.c_last_load
                                    ? constants.c_last_run - constants.c_last_load
                                    : constants.c_last_load - constants.c_last_run;
    if (delta >= 65 && delta <= 119 && delta != 96 && delta != 112) break;
  }
  constants.c_id = uniform(random, 0, 1023);
  constants.ol_i_id = uniform(random, 0, 8191);
  return constants;
}

// ---- the store ----------------------------------------------------------------------------------------

namespace {

void require(txn::status s, const std::string& what) {
  if (s != txn::status::ok) throw std::runtime_error("tpcc: " + what + ": " + txn::describe(s));
}

// Secondary keys from rows; an empty key (a value of another size) is not indexed.
std::string customer_name_of(std::string_view value) {
  customer_row row;
  if (!decode(value, row)) return {};
  return std::string(customer_name_key(row.w_id, row.d_id, text_of(row.last), text_of(row.first), row.c_id).view());
}
std::string order_customer_of(std::string_view value) {
  order_row row;
  if (!decode(value, row)) return {};
  return std::string(order_customer_key(row.w_id, row.d_id, row.c_id, row.o_id).view());
}

}  // namespace

store::store(const txn::database_options& options, std::uint32_t warehouses, std::uint32_t suppliers)
    : warehouses_(warehouses), suppliers_(suppliers) {
  if (warehouses == 0 || warehouses > max_warehouses) {
    throw std::invalid_argument("tpcc: " + std::to_string(warehouses) + " warehouses: must be in 1.." +
                                std::to_string(max_warehouses));
  }
  if (suppliers == 0 || suppliers > max_suppliers) {
    throw std::invalid_argument("tpcc: " + std::to_string(suppliers) + " suppliers: must be in 1.." +
                                std::to_string(max_suppliers));
  }
  index_supplied_stock();
  delivered_below_ = std::make_unique<std::atomic<std::uint32_t>[]>(std::size_t{warehouses} * districts_per_warehouse);
  std::string message;
  if (const txn::status s = txn::database::open(options, db_, message); s != txn::status::ok) {
    throw std::runtime_error("tpcc: cannot open a database (" + std::string(txn::describe(s)) + "): " + message);
  }
  const std::pair<const char*, txn::table_handle*> tables[] = {
      {"warehouse", &tables_.warehouse}, {"district", &tables_.district},     {"customer", &tables_.customer},
      {"history", &tables_.history},     {"new_order", &tables_.new_order},   {"order", &tables_.order},
      {"order_line", &tables_.order_line}, {"item", &tables_.item},           {"stock", &tables_.stock},
      {"region", &tables_.region},         {"nation", &tables_.nation},       {"supplier", &tables_.supplier}};
  for (const auto& [name, handle] : tables) require(db_->create_table(name, *handle), std::string("create_table ") + name);
  require(db_->create_index(tables_.customer, "customer_by_name", customer_name_of, tables_.customer_by_name),
          "create_index customer_by_name");
  require(db_->create_index(tables_.order, "order_by_customer", order_customer_of, tables_.order_by_customer),
          "create_index order_by_customer");
}

// Counting sort of the STOCK rows by supplier (w * i) mod 10000, keeping those below suppliers_.
void store::index_supplied_stock() {
  const auto supplier_of = [](std::uint32_t w, std::uint32_t i) { return (w * i) % supplier_modulus; };
  supplied_start_.assign(std::size_t{suppliers_} + 1, 0);
  for (std::uint32_t w = 1; w <= warehouses_; ++w) {
    for (std::uint32_t i = 1; i <= item_count; ++i) {
      if (const std::uint32_t s = supplier_of(w, i); s < suppliers_) ++supplied_start_[s + 1];
    }
  }
  for (std::size_t s = 0; s < suppliers_; ++s) supplied_start_[s + 1] += supplied_start_[s];
  supplied_.resize(supplied_start_[suppliers_]);
  std::vector<std::size_t> next(supplied_start_.begin(), supplied_start_.end() - 1);
  for (std::uint32_t w = 1; w <= warehouses_; ++w) {
    for (std::uint32_t i = 1; i <= item_count; ++i) {
      if (const std::uint32_t s = supplier_of(w, i); s < suppliers_) supplied_[next[s]++] = stock_ref{w, i};
    }
  }
}

void store::mark_delivered(std::uint32_t w, std::uint32_t d, std::uint32_t o) noexcept {
  std::atomic<std::uint32_t>& start = delivered_below_[district_slot(w, d)];
  std::uint32_t seen = start.load(std::memory_order_relaxed);
  while (seen < o + 1 && !start.compare_exchange_weak(seen, o + 1, std::memory_order_acq_rel)) {
  }
}

}  // namespace braid::bench::tpcc
