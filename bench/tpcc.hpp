// TPC-C on braid's transaction engine (braid/txn): the nine tables, the loader of the spec's
// initial population (clause 4.3.3), the five transactions written once as coroutines
// (clauses 2.4-2.8), the run loop that executes them plainly, as interleaved transactions
// (CoroBase's coroutine-to-transaction, transaction_scheduler.hpp) or as CoroBase's hybrid,
// and the consistency conditions 1-4 (clause 3.3.2). TPC-CH (CH-benCHmark as CoroBase runs
// it) adds REGION, NATION and SUPPLIER and the transaction Q2*.
//
//   tpcc::store shop({}, 2);                                   // in memory, 2 warehouses
//   tpcc::load(shop, 42, 2);                                   // the spec's population, 2 loaders
//   tpcc::workload mix{.warehouses = 2, .seed = 7, .constants = shop.constants()};
//   tpcc::worker_tally tally = tpcc::run_range(shop, mix, tpcc::execution::interleaved, 8, 0, 1000);
//   tpcc::consistency_report report = tpcc::check_consistency(shop);   // report.ok()
//
// Keys are big-endian composites (byte order is numeric order): WAREHOUSE (w), DISTRICT (w, d),
// CUSTOMER (w, d, c), HISTORY (w, d, c, sequence), NEW-ORDER and ORDER (w, d, o), ORDER-LINE
// (w, d, o, number), ITEM (i), STOCK (w, i); w is 2 bytes, d and the line number 1, the rest 4.
// Values are the row structs below, memcpy'd: fixed layouts with the spec's text fields at
// their spec lengths (zero-padded), money in cents, rates in 1/10000. Secondary indexes
// (unique keys, so the primary key is appended): CUSTOMER by (w, d, c_last, c_first, c) with
// the names zero-padded to 16 bytes, and ORDER by (w, d, c, ~o) — the order id complemented
// so that the first entry of a customer's range is its newest order.
//
// TPC-CH's tables (always loaded: 67 + `suppliers` rows): REGION (r, 1 byte) holds 0..4 =
// AFRICA, AMERICA, ASIA, EUROPE, MIDDLE EAST; NATION (the nation's code, 1 byte) holds the 62
// nations of CH-benCHmark keyed by the characters '0'-'9', 'A'-'Z', 'a'-'z', nation number k
// (its position in that sequence) in region k mod 5 (12 or 13 nations per region) and named
// "NATION-<code>"; SUPPLIER (su_suppkey, 4 bytes) holds 0..suppliers-1, supplier s of nation
// number s mod 62, with CH-benCHmark's field lengths. Supplier s supplies the STOCK rows (w, i)
// with (w * i) mod 10000 == s; the store precomputes that list once (the population fixes it).
//
// Q2* (kind::query2, CoroBase's modified TPC-H Query 2): a region drawn uniformly; scans the 5
// REGION and the 62 NATION rows; for each nation of the region reads every SUPPLIER row and
// keeps that nation's; for each kept supplier reads its STOCK rows (awaited coroutine reads),
// takes the one of least s_quantity (the first in (w, i) order on ties), reads its ITEM, skips
// it if i_data contains 'b', else adds 50 to s_quantity if it is below 15. The SUPPLIER and
// ITEM reads are plain (not suspending) reads, as in CoroBase ("not profitable" to
// coroutinize). Q2* changes only s_quantity, so conditions 1-4 are untouched by it.
//
// Hybrid (execution::hybrid, CoroBase's "Hybrid"): interleaved transactions in strict batches,
// except that New-Order reads its lines' ITEM rows, then their STOCK rows, with one
// transaction::multi_get each (AMAC, a group of the order's line count) and Stock-Level reads
// its STOCK rows with one multi_get (AMAC, group 8); a multi_get runs to its end without
// giving the batch's other transactions a turn. New-Order's lines then update their stock in
// line order, a line whose stock row an earlier line of the order updated taking that
// update (as the one-read-per-line form sees it), so the committed results are the same.
//
// Transactions: each draws its inputs from a per-transaction seed (draw_input: the same index
// gives the same inputs), so a run is reproducible. One attempt is a braid::task<status> per
// execution mode; the run loop retries an attempt the engine aborted (after 2^k yields for the
// k-th retry, at most 64, so the batch's other transactions can finish; no-ops when plain) and
// counts each abort by reason. New-Order's 1 %
// rollback (an unused item id on its last line) is a user abort: counted, not retried.
// Dates are deterministic (a base plus the transaction's index), as is the HISTORY sequence
// when transactions run one at a time, so a single-threaded run with one transaction in
// flight ends in the same state however it is executed.
//
// Complexity: a New-Order is ~40 point operations, a Delivery ~10 scans and ~150 writes, a
// Stock-Level 20 order reads, 20 short scans and up to 300 stock reads, a Q2* two short scans,
// ~12 * suppliers SUPPLIER reads and, per kept supplier, its ~W * 10 STOCK reads (W * 100000
// rows spread over 10000 supplier keys) and one ITEM read. Loading is O(rows)
// (~650,000 rows per warehouse plus 100,000 items), spread over threads by warehouse.
//
// Delivery finds a district's oldest NEW-ORDER row by a scan that starts after the district's
// last committed delivery (store::delivered_below, as Silo's TPC-C keeps it): the
// engine keeps removed keys in its index, and a scan from the district's start would step over
// every order delivered so far.
//
// Known limits: the writing transactions run at the database's default isolation (snapshot,
// first-updater-wins, unless the store's options say otherwise; Order-Status and Stock-Level
// run read-only at snapshot), so the hot WAREHOUSE and DISTRICT rows make concurrent Payments
// and New-Orders of one warehouse abort and retry;
// no terminals, keying or think times (transactions run back to back, as in CoroBase);
// HISTORY's sequence makes multi-threaded or batched runs' final states depend on timing;
// hybrid leaves Q2* as interleaved (CoroBase's Hybrid also batched Q2*'s STOCK reads) and its
// multi_gets run to their end, so the batch's other transactions wait meanwhile; the nations'
// names are "NATION-<code>", not CH-benCHmark's country names.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "braid/core/mode.hpp"
#include "braid/core/task.hpp"
#include "braid/txn/database.hpp"
#include "braid/txn/options.hpp"
#include "braid/txn/status.hpp"
#include "workloads.hpp"

namespace braid::bench::tpcc {

// ---- the spec's cardinalities (clause 4.3.3.1) ----------------------------------------------------
inline constexpr std::uint32_t districts_per_warehouse = 10;
inline constexpr std::uint32_t customers_per_district = 3000;
inline constexpr std::uint32_t orders_per_district = 3000;
inline constexpr std::uint32_t first_new_order = 2101;  // orders 2101..3000 are undelivered
inline constexpr std::uint32_t item_count = 100000;
inline constexpr std::uint32_t unused_item = item_count + 1;  // New-Order's rollback item
inline constexpr std::uint32_t max_warehouses = 500;  // ORDER-LINE's OIDs fit the engine's table
inline constexpr std::uint32_t max_order_lines = 15;
inline constexpr std::int64_t initial_warehouse_ytd = 30000000;  // cents: 300,000.00
inline constexpr std::int64_t initial_district_ytd = 3000000;    // cents: 30,000.00
// TPC-CH (CH-benCHmark)
inline constexpr std::uint32_t region_count = 5;
inline constexpr std::uint32_t nation_count = 62;
inline constexpr std::uint32_t default_suppliers = 100;
inline constexpr std::uint32_t max_suppliers = 10000;  // (w * i) mod 10000 names no supplier beyond
inline constexpr std::uint32_t supplier_modulus = 10000;
inline constexpr std::int32_t restock_below = 15;  // Q2* restocks a minimum quantity below this
inline constexpr std::int32_t restock_amount = 50;

// ---- keys -------------------------------------------------------------------------------------------

// A key of at most 40 bytes built from big-endian fields.
class key_bytes {
 public:
  key_bytes& u8(std::uint32_t value) noexcept { return put(value, 1); }
  key_bytes& u16(std::uint32_t value) noexcept { return put(value, 2); }
  key_bytes& u32(std::uint32_t value) noexcept { return put(value, 4); }
  // `text` zero-padded (or cut) to `width` bytes.
  key_bytes& padded(std::string_view text, std::size_t width) noexcept;
  [[nodiscard]] std::string_view view() const noexcept { return {bytes_.data(), size_}; }

 private:
  key_bytes& put(std::uint32_t value, std::size_t width) noexcept;
  std::array<char, 40> bytes_{};
  std::size_t size_ = 0;
};

key_bytes warehouse_key(std::uint32_t w);
key_bytes district_key(std::uint32_t w, std::uint32_t d);
key_bytes customer_key(std::uint32_t w, std::uint32_t d, std::uint32_t c);
key_bytes history_key(std::uint32_t w, std::uint32_t d, std::uint32_t c, std::uint32_t sequence);
key_bytes new_order_key(std::uint32_t w, std::uint32_t d, std::uint32_t o);
key_bytes order_key(std::uint32_t w, std::uint32_t d, std::uint32_t o);
key_bytes order_line_key(std::uint32_t w, std::uint32_t d, std::uint32_t o, std::uint32_t number);
key_bytes item_key(std::uint32_t i);
key_bytes stock_key(std::uint32_t w, std::uint32_t i);
key_bytes customer_name_key(std::uint32_t w, std::uint32_t d, std::string_view last, std::string_view first,
                            std::uint32_t c);
key_bytes order_customer_key(std::uint32_t w, std::uint32_t d, std::uint32_t c, std::uint32_t o);
key_bytes region_key(std::uint32_t r);
key_bytes nation_key(std::uint32_t code);  // the nation's character code
key_bytes supplier_key(std::uint32_t s);
// Big-endian field at `offset` of a key (width 1, 2 or 4).
std::uint32_t key_field(std::string_view key, std::size_t offset, std::size_t width) noexcept;

// ---- rows -------------------------------------------------------------------------------------------
// Text fields are zero-padded arrays (a shorter text ends at the first zero byte).

struct address {
  char street_1[20], street_2[20], city[20], state[2], zip[9];
};
struct warehouse_row {
  std::uint32_t w_id;
  std::int32_t tax;  // 1/10000
  std::int64_t ytd;  // cents
  char name[10];
  address where;
};
struct district_row {
  std::uint32_t d_id, w_id;
  std::int32_t tax;
  std::uint32_t next_o_id;
  std::int64_t ytd;
  char name[10];
  address where;
};
struct customer_row {
  std::uint32_t c_id, d_id, w_id;
  std::int32_t discount;
  std::int64_t credit_lim, balance, ytd_payment;
  std::uint32_t payment_cnt, delivery_cnt;
  std::uint64_t since;
  char first[16], middle[2], last[16];
  address where;
  char phone[16], credit[2];
  std::uint32_t data_length;
  char data[500];
};
struct history_row {
  std::uint32_t c_id, c_d_id, c_w_id, d_id, w_id;
  std::uint64_t date;
  std::int64_t amount;
  char data[24];
};
struct new_order_row {
  std::uint32_t o_id, d_id, w_id;
};
struct order_row {
  std::uint32_t o_id, d_id, w_id, c_id;
  std::uint64_t entry_d;
  std::uint32_t carrier_id;  // 0: null (undelivered)
  std::uint32_t ol_cnt, all_local;
};
struct order_line_row {
  std::uint32_t o_id, d_id, w_id, number, i_id, supply_w_id, quantity;
  std::uint64_t delivery_d;  // 0: null
  std::int64_t amount;
  char dist_info[24];
};
struct item_row {
  std::uint32_t i_id, im_id;
  std::int64_t price;
  char name[24], data[50];
};
struct stock_row {
  std::uint32_t i_id, w_id;
  std::int32_t quantity;
  std::uint32_t ytd, order_cnt, remote_cnt;
  char dist[10][24];
  char data[50];
};

struct region_row {
  std::uint32_t r_regionkey;
  char name[55], comment[152];
};
struct nation_row {
  std::uint32_t n_nationkey;  // the character code '0'-'9', 'A'-'Z', 'a'-'z'
  std::uint32_t n_regionkey;
  char name[25], comment[152];
};
struct supplier_row {
  std::uint32_t su_suppkey, su_nationkey;  // the nation's character code
  std::int64_t acctbal;                    // cents, -99999..999999
  char name[25], address[40], phone[15], comment[100];
};

// The region names and the nations' codes and regions (nation number 0..61, see above).
inline constexpr std::array<const char*, region_count> region_names = {"AFRICA", "AMERICA", "ASIA", "EUROPE",
                                                                       "MIDDLE EAST"};
[[nodiscard]] constexpr std::uint32_t nation_code(std::uint32_t number) noexcept {
  return number < 10 ? '0' + number : number < 36 ? 'A' + (number - 10) : 'a' + (number - 36);
}
[[nodiscard]] constexpr std::uint32_t nation_region(std::uint32_t number) noexcept { return number % region_count; }
[[nodiscard]] constexpr std::uint32_t supplier_nation_number(std::uint32_t s) noexcept { return s % nation_count; }

// A row of zero bytes, padding included (so equal rows have equal bytes).
template <class Row>
[[nodiscard]] Row blank_row() noexcept {
  Row row;
  __builtin_memset(static_cast<void*>(&row), 0, sizeof row);
  return row;
}
template <class Row>
[[nodiscard]] std::string_view bytes_of(const Row& row) noexcept {
  return {reinterpret_cast<const char*>(&row), sizeof row};
}
// False (row untouched) unless `bytes` has the row's size.
template <class Row>
[[nodiscard]] bool decode(std::string_view bytes, Row& row) noexcept {
  if (bytes.size() != sizeof row) return false;
  __builtin_memcpy(&row, bytes.data(), sizeof row);
  return true;
}
// The text of a zero-padded field.
template <std::size_t N>
[[nodiscard]] std::string_view text_of(const char (&field)[N]) noexcept {
  std::size_t length = 0;
  while (length < N && field[length] != '\0') ++length;
  return {field, length};
}
template <std::size_t N>
void set_text(char (&field)[N], std::string_view text) noexcept {
  std::size_t i = 0;
  for (; i < N && i < text.size(); ++i) field[i] = text[i];
  for (; i < N; ++i) field[i] = '\0';
}

// The last name of number 0..999: three syllables of BAR OUGHT ABLE PRI PRES ESE ANTI CALLY
// ATION EING, one per decimal digit (clause 4.3.2.3).
std::string last_name(std::uint32_t number);

// ---- random inputs (clause 2.1.5, 2.1.6, 4.3.2.2) ---------------------------------------------------

// Uniform in [low, high].
std::uint32_t uniform(random_source& random, std::uint32_t low, std::uint32_t high) noexcept;
// NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
std::uint32_t nurand(random_source& random, std::uint32_t a, std::uint32_t x, std::uint32_t y, std::uint32_t c) noexcept;
// A random a-string (alphanumeric) of length low..high (at most width) into a zero-padded field;
// returns its length.
std::size_t random_text(random_source& random, char* field, std::size_t width, std::size_t low, std::size_t high) noexcept;
// A random n-string (digits) of exactly `length` characters.
void random_digits(random_source& random, char* field, std::size_t length) noexcept;

// ---- the database -------------------------------------------------------------------------------

// NURand's C constants (clause 2.1.6): C for C_LAST at load and at run time (65 <= |run - load|
// <= 119, neither 96 nor 112), C for C_ID and for OL_I_ID.
struct nurand_constants {
  std::uint32_t c_last_load = 0, c_last_run = 0, c_id = 0, ol_i_id = 0;
};
// Constants drawn from `seed` within the spec's rules.
nurand_constants draw_constants(std::uint64_t seed);

struct table_set {
  txn::table_handle warehouse, district, customer, history, new_order, order, order_line, item, stock;
  txn::table_handle region, nation, supplier;  // TPC-CH
  txn::index_handle customer_by_name, order_by_customer;
};

// A STOCK row a supplier supplies.
struct stock_ref {
  std::uint32_t w, i;
};

// An engine database with the twelve tables and two indexes. Throws std::invalid_argument for
// warehouses outside 1..max_warehouses or suppliers outside 1..max_suppliers,
// std::runtime_error if the engine refuses to open.
class store {
 public:
  store(const txn::database_options& options, std::uint32_t warehouses, std::uint32_t suppliers = default_suppliers);

  [[nodiscard]] txn::database& db() const noexcept { return *db_; }
  [[nodiscard]] const table_set& tables() const noexcept { return tables_; }
  [[nodiscard]] std::uint32_t warehouses() const noexcept { return warehouses_; }
  [[nodiscard]] std::uint32_t suppliers() const noexcept { return suppliers_; }
  // The STOCK rows (w, i) with (w * i) mod 10000 == s, in (w, i) order; s < suppliers().
  [[nodiscard]] std::span<const stock_ref> supplier_stock(std::uint32_t s) const noexcept {
    return {supplied_.data() + supplied_start_[s], supplied_start_[s + 1] - supplied_start_[s]};
  }
  [[nodiscard]] const nurand_constants& constants() const noexcept { return constants_; }
  void set_constants(const nurand_constants& constants) noexcept { constants_ = constants; }
  // A fresh HISTORY sequence number (the loaded rows have 0).
  std::uint32_t take_history_sequence() noexcept { return history_sequence_.fetch_add(1, std::memory_order_relaxed); }
  // Where Delivery's scan of district (w, d) starts: every NEW-ORDER row below it was removed
  // by a committed Delivery. The engine keeps removed keys in its index (readers skip their
  // tombstones), so a scan from the district's start would step over every delivered order.
  [[nodiscard]] std::uint32_t delivered_below(std::uint32_t w, std::uint32_t d) const noexcept {
    return delivered_below_[district_slot(w, d)].load(std::memory_order_acquire);
  }
  // After a Delivery of order o of (w, d) committed: raises the start to o + 1.
  void mark_delivered(std::uint32_t w, std::uint32_t d, std::uint32_t o) noexcept;

 private:
  void index_supplied_stock();
  [[nodiscard]] static std::size_t district_slot(std::uint32_t w, std::uint32_t d) noexcept {
    return std::size_t{w - 1} * districts_per_warehouse + (d - 1);
  }

  std::unique_ptr<txn::database> db_;
  table_set tables_;
  std::uint32_t warehouses_;
  std::uint32_t suppliers_;
  std::vector<stock_ref> supplied_;          // by supplier, then (w, i)
  std::vector<std::size_t> supplied_start_;  // supplier s's rows: [start[s], start[s + 1])
  nurand_constants constants_;
  std::atomic<std::uint32_t> history_sequence_{1};
  std::unique_ptr<std::atomic<std::uint32_t>[]> delivered_below_;
};

// Installs the initial population (clause 4.3.3.1) as committed rows, on `threads` threads
// (1..256), deterministic for `seed`; sets the store's NURand constants from the seed. The
// store must be empty. Throws std::runtime_error if the engine refuses a row.
void load(store& shop, std::uint64_t seed, unsigned threads);

// ---- inputs -------------------------------------------------------------------------------------

enum class kind : std::uint8_t { new_order, payment, order_status, delivery, stock_level, query2 };
inline constexpr std::size_t kind_count = 6;
const char* to_string(kind what) noexcept;

// tpcc: New-Order 45 %, Payment 43 %, Order-Status, Delivery, Stock-Level 4 % each (clause
// 5.2.3's minimum mix as CoroBase runs it); tpcc_r: Stock-Level 50 %, Order-Status 50 %;
// tpcc_ch: Q2* 10 %, New-Order 40 %, Payment 38 %, Order-Status, Delivery, Stock-Level 4 % each.
enum class mix { tpcc, tpcc_r, tpcc_ch };
const char* to_string(mix which) noexcept;

struct order_item {
  std::uint32_t i_id = 0, supply_w_id = 0, quantity = 0;
};
struct transaction_input {
  kind what = kind::new_order;
  std::uint32_t w = 1, d = 1;
  // Customer: by id, or (by_name) by last name; c_w, c_d: Payment's customer's warehouse and
  // district (remote in 15 % of Payments).
  std::uint32_t c_w = 1, c_d = 1, c_id = 1;
  bool by_name = false;
  std::string_view c_last;  // into a static table of the 1000 last names
  // New-Order
  std::uint32_t ol_cnt = 0;
  std::array<order_item, max_order_lines> items{};
  // Payment (cents), Delivery (carrier 1..10), Stock-Level (threshold 10..20)
  std::int64_t amount = 0;
  std::uint32_t carrier = 0, threshold = 0;
  std::uint32_t region = 0;  // Q2*: 0..4
  std::uint64_t date = 0;  // entry, payment or delivery date
};

struct workload {
  std::uint32_t warehouses = 1;
  tpcc::mix mix = tpcc::mix::tpcc;
  std::uint64_t seed = 42;
  nurand_constants constants;
};

// Transaction `index` of the stream: its type by the mix, its inputs by clauses 2.4.1, 2.5.1,
// 2.6.1, 2.7.1 and 2.8.1 (NURand with the run-time constants).
transaction_input draw_input(const workload& stream, std::uint64_t index);
// The same with the type given.
transaction_input draw_input_of(kind what, const workload& stream, std::uint64_t index);

// ---- transactions -------------------------------------------------------------------------------

// What a committed attempt saw or did (for tests and tallies).
struct transaction_output {
  std::uint32_t o_id = 0;        // New-Order: the order placed; Order-Status: the newest order
  std::uint32_t c_id = 0;        // Payment, Order-Status: the customer found
  std::int64_t total = 0;        // New-Order: total amount (cents); Payment: the new balance
  std::uint32_t lines = 0;       // New-Order, Order-Status: order lines
  std::uint32_t delivered = 0;   // Delivery: districts that had an undelivered order
  std::uint32_t low_stock = 0;   // Stock-Level: distinct items below the threshold
  std::uint32_t restocked = 0;   // Q2*: stock rows it added to
};

// How New-Order and Stock-Level read their ITEM and STOCK rows: one awaited get per row, or
// (hybrid) one multi_get per table.
enum class row_reads : std::uint8_t { one_by_one, multi_get };

// One attempt of the transaction `input` describes: ok (committed), abort_user (New-Order's
// rollback), another abort (the engine rolled it back: retry), or an error status (a bug:
// a row the population guarantees is missing). Defined for M = sequential and interleaved.
template <execution_mode M>
task<txn::status> attempt(store& shop, const transaction_input& input, transaction_output& out,
                          row_reads reads = row_reads::one_by_one);

// ---- running -------------------------------------------------------------------------------------

enum class execution { plain, interleaved, interleaved_refill, hybrid };
const char* to_string(execution how) noexcept;

inline constexpr std::array<txn::status, 3> engine_abort_reasons = {
    txn::status::abort_write_conflict, txn::status::abort_serialization, txn::status::abort_log_failure};

// What one worker's transactions did.
struct worker_tally {
  std::uint64_t commits = 0;
  std::array<std::uint64_t, kind_count> commits_by_kind{};
  std::uint64_t rollbacks = 0;  // New-Order's intentional 1 %
  std::array<std::uint64_t, engine_abort_reasons.size()> aborts{};  // by engine_abort_reasons
  std::vector<std::int64_t> latencies_ns;  // first attempt's begin to commit, per transaction
  std::uint64_t output_digest = 0;         // a hash of the committed transactions' outputs
  void add(const worker_tally& other);
};

// Transactions [begin, end) of `stream` on the calling thread: plain (the sequential
// instantiation, one transaction at a time) or interleaved in batches of `batch` (1..16,
// strict or refill, or hybrid: strict, with New-Order's and Stock-Level's multi_gets). Throws std::invalid_argument for a bad batch, std::logic_error if a
// transaction ends in an error status.
worker_tally run_range(store& shop, const workload& stream, execution how, std::size_t batch, std::uint64_t begin,
                       std::uint64_t end);

// ---- checks ---------------------------------------------------------------------------------------

// Consistency conditions 1-4 (clause 3.3.2.1-3.3.2.4) at a snapshot: one line per violation,
// naming the condition and where ("condition 2, warehouse 1 district 3: ...").
struct consistency_report {
  std::vector<std::string> violations;
  [[nodiscard]] bool ok() const noexcept { return violations.empty(); }
};
consistency_report check_consistency(store& shop);

// Rows per table at a snapshot, in table_set's order (warehouse ... stock, region, nation,
// supplier).
std::array<std::uint64_t, 12> row_counts(store& shop);
// Rows of one table at a snapshot.
std::uint64_t row_count(store& shop, txn::table_handle table);
// A hash of every table's keys and values at a snapshot: equal digests, equal states.
std::uint64_t state_digest(store& shop);

}  // namespace braid::bench::tpcc
