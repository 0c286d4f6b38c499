#include "tpch.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace braid::bench::tpch {
namespace {

// ---- random streams ---------------------------------------------------------------------------

constexpr std::uint64_t golden = 0x9e3779b97f4a7c15ULL;

constexpr std::uint64_t mix(std::uint64_t x) noexcept {  // SplitMix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// Every row draws from its own stream, so a table's rows do not depend on which other tables
// (or which comments) are generated.
enum class stream : std::uint64_t {
  region = 1, nation, supplier, supplier_special, customer, part, partsupp, orders, order_comment, lineitem_comment
};

class random_stream {
 public:
  random_stream(std::uint64_t seed, stream s, std::uint64_t row) noexcept
      : state_(mix(mix(seed + golden * static_cast<std::uint64_t>(s)) ^ (row * 0xd1b54a32d192ed03ULL))) {}

  std::uint64_t next() noexcept {  // SplitMix64
    state_ += golden;
    return mix(state_);
  }
  // Uniform in [low, high] (the modulo's bias is below 2^-32 for the ranges used here).
  std::int64_t uniform(std::int64_t low, std::int64_t high) noexcept {
    const std::uint64_t range = static_cast<std::uint64_t>(high - low) + 1;
    return low + static_cast<std::int64_t>(next() % range);
  }
  template <class T, std::size_t N>
  const T& pick(const std::array<T, N>& choices) noexcept {
    return choices[next() % N];
  }

 private:
  std::uint64_t state_;
};

// ---- the spec's word lists ----------------------------------------------------------------------

constexpr std::array<std::string_view, 5> region_names = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};

struct nation_row {
  std::string_view name;
  std::uint64_t region;
};
constexpr std::array<nation_row, 25> nations = {{{"ALGERIA", 0},      {"ARGENTINA", 1}, {"BRAZIL", 1},  {"CANADA", 1},
                                                 {"EGYPT", 4},        {"ETHIOPIA", 0},  {"FRANCE", 3},  {"GERMANY", 3},
                                                 {"INDIA", 2},        {"INDONESIA", 2}, {"IRAN", 4},    {"IRAQ", 4},
                                                 {"JAPAN", 2},        {"JORDAN", 4},    {"KENYA", 0},   {"MOROCCO", 0},
                                                 {"MOZAMBIQUE", 0},   {"PERU", 1},      {"CHINA", 2},   {"ROMANIA", 3},
                                                 {"SAUDI ARABIA", 4}, {"VIETNAM", 2},   {"RUSSIA", 3},  {"UNITED KINGDOM", 3},
                                                 {"UNITED STATES", 1}}};

constexpr std::array<std::string_view, 92> colours = {
    "almond",    "antique",   "aquamarine", "azure",     "beige",     "bisque",   "black",     "blanched", "blue",
    "blush",     "brown",     "burlywood",  "burnished", "chartreuse", "chiffon", "chocolate", "coral",    "cornflower",
    "cornsilk",  "cream",     "cyan",       "dark",      "deep",      "dim",      "dodger",    "drab",     "firebrick",
    "floral",    "forest",    "frosted",    "gainsboro", "ghost",     "goldenrod", "green",    "grey",     "honeydew",
    "hot",       "indian",    "ivory",      "khaki",     "lace",      "lavender", "lawn",      "lemon",    "light",
    "lime",      "linen",     "magenta",    "maroon",    "medium",    "metallic", "midnight",  "mint",     "misty",
    "moccasin",  "navajo",    "navy",       "olive",     "orange",    "orchid",   "pale",      "papaya",   "peach",
    "peru",      "pink",      "plum",       "powder",    "puff",      "purple",   "red",       "rose",     "rosy",
    "royal",     "saddle",    "salmon",     "sandy",     "seashell",  "sienna",   "sky",       "slate",    "smoke",
    "snow",      "spring",    "steel",      "tan",       "thistle",   "tomato",   "turquoise", "violet",   "wheat",
    "white",     "yellow"};

constexpr std::array<std::string_view, 6> type_sizes = {"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"};
constexpr std::array<std::string_view, 5> type_finishes = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"};
constexpr std::array<std::string_view, 5> type_materials = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
constexpr std::array<std::string_view, 5> container_sizes = {"SM", "LG", "MED", "JUMBO", "WRAP"};
constexpr std::array<std::string_view, 8> container_kinds = {"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"};
constexpr std::array<std::string_view, 5> segments = {"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"};
constexpr std::array<std::string_view, 5> priorities = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"};
constexpr std::array<std::string_view, 4> instructions = {"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"};
constexpr std::array<std::string_view, 7> ship_modes = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};

// The vocabulary of the spec's text grammar (clause 4.2.2.10): nouns, verbs, adjectives, adverbs,
// prepositions and auxiliaries.
constexpr auto words = std::to_array<std::string_view>({
    // nouns
    "packages", "requests", "accounts", "deposits", "foxes", "ideas", "theodolites", "pinto beans", "instructions", "dependencies", "excuses", "platelets", "asymptotes",
    "courts", "dolphins", "multipliers", "sauternes", "warthogs", "frets", "dinos", "attainments", "somas", "Tiresias",
    "patterns", "forges", "braids", "hockey players", "frays", "warhorses", "dugouts", "notornis", "epitaphs", "pearls",
    "tithes", "waters", "orbits", "gifts", "sheaves", "depths", "sentiments", "decoys", "realms", "pains", "grouches",
    "escapades",
    // verbs
    "sleep", "wake", "are", "cajole", "haggle", "nag", "use", "boost", "affix", "detect", "integrate", "maintain", "nod",
    "was", "lose", "sublate", "solve", "thrash", "promise", "engage", "hinder", "print", "x-ray", "breach", "eat", "grow",
    "impress", "mold", "poach", "serve", "run", "dazzle", "snooze", "doze", "unwind", "kindle", "play", "hang", "believe",
    "doubt",
    // adjectives
    "furious", "sly", "careful", "blithe", "quick", "fluffy", "slow", "quiet", "ruthless", "thin", "close", "dogged",
    "daring", "brave", "stealthy", "permanent", "enticing", "idle", "busy", "regular", "final", "ironic", "even", "bold",
    "silent", "special", "pending", "unusual", "express",
    // adverbs
    "sometimes", "always", "never", "furiously", "slyly", "carefully", "blithely", "quickly", "fluffily", "slowly",
    "quietly", "ruthlessly", "thinly", "closely", "doggedly", "daringly", "bravely", "stealthily", "permanently",
    "enticingly", "idly", "busily", "regularly", "finally", "ironically", "evenly", "boldly", "silently",
    // prepositions
    "about", "above", "according to", "across", "after", "against", "along", "alongside of", "among", "around", "at",
    "atop", "before", "behind", "beneath", "beside", "besides", "between", "beyond", "by", "despite", "during", "except",
    "for", "from", "in place of", "inside", "instead of", "into", "near", "of", "on", "outside", "over", "past", "since",
    "through", "throughout", "to", "toward", "under", "until", "up", "upon", "without", "with", "within",
    // auxiliaries
    "do", "may", "might", "shall", "will", "would", "can", "could", "should", "ought to", "must", "will have to",
    "shall have to", "could have to", "should have to", "must have to", "need to", "try to"});

constexpr std::string_view address_alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ, ";
static_assert(address_alphabet.size() == 64);
static_assert(colours.back() == "yellow" && !colours[91].empty());

// ---- dates ------------------------------------------------------------------------------------

// "YYYY-MM-DD" of every day from start_date to end_date.
class date_texts {
 public:
  date_texts() {
    for (std::chrono::sys_days day = start_date; day <= end_date; day += std::chrono::days{1}) {
      const std::chrono::year_month_day date{day};
      std::array<char, 10> text{};
      write_digits(text.data(), static_cast<int>(date.year()), 4);
      text[4] = '-';
      write_digits(text.data() + 5, static_cast<int>(static_cast<unsigned>(date.month())), 2);
      text[7] = '-';
      write_digits(text.data() + 8, static_cast<int>(static_cast<unsigned>(date.day())), 2);
      texts_.push_back(text);
    }
  }
  // Day `offset` after start_date.
  [[nodiscard]] const std::array<char, 10>& at(std::int64_t offset) const { return texts_.at(static_cast<std::size_t>(offset)); }

 private:
  static void write_digits(char* out, int value, int digits) {
    for (int i = digits - 1; i >= 0; --i, value /= 10) out[i] = static_cast<char>('0' + value % 10);
  }
  std::vector<std::array<char, 10>> texts_;
};

const date_texts& dates() {
  static const date_texts texts;
  return texts;
}

constexpr std::int64_t days_between(std::chrono::sys_days from, std::chrono::sys_days to) { return (to - from).count(); }
constexpr std::int64_t last_order_day = days_between(start_date, end_date) - 151;
constexpr std::int64_t current_day = days_between(start_date, current_date);

// ---- the file writer --------------------------------------------------------------------------

// A .tbl file written through one big buffer: each field is appended with its '|'.
class tbl_file {
 public:
  static constexpr std::size_t capacity = std::size_t{8} << 20;
  static constexpr std::size_t longest_row = 4096;  // every generated row is far shorter

  explicit tbl_file(std::filesystem::path path) : path_(std::move(path)), buffer_(new char[capacity]) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::invalid_argument("tpch: cannot write " + path_.string() + ": " + std::strerror(errno));
  }
  tbl_file(const tbl_file&) = delete;
  tbl_file& operator=(const tbl_file&) = delete;
  ~tbl_file() {
    if (fd_ >= 0) ::close(fd_);
  }

  void begin_row() {
    if (capacity - used_ < longest_row) flush();
  }
  void end_row() {
    buffer_[used_++] = '\n';
    ++rows_;
  }
  void text(std::string_view value) {
    append(value);
    bar();
  }
  void integer(std::uint64_t value) {
    used_ = static_cast<std::size_t>(std::to_chars(cursor(), buffer_.get() + capacity, value).ptr - buffer_.get());
    bar();
  }
  // "Prefix#000000042": the number with at least 9 digits.
  void numbered(std::string_view prefix, std::uint64_t number) {
    append(prefix);
    char digits[24];
    const auto length = static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, number).ptr - digits);
    for (std::size_t pad = length; pad < 9; ++pad) buffer_[used_++] = '0';
    append({digits, length});
    bar();
  }
  void money(std::int64_t cents) {
    if (cents < 0) buffer_[used_++] = '-';
    const std::uint64_t magnitude = cents < 0 ? static_cast<std::uint64_t>(-cents) : static_cast<std::uint64_t>(cents);
    used_ = static_cast<std::size_t>(std::to_chars(cursor(), buffer_.get() + capacity, magnitude / 100).ptr - buffer_.get());
    buffer_[used_++] = '.';
    buffer_[used_++] = static_cast<char>('0' + magnitude % 100 / 10);
    buffer_[used_++] = static_cast<char>('0' + magnitude % 10);
    bar();
  }
  void date(std::int64_t day) {
    const std::array<char, 10>& text = dates().at(day);
    append({text.data(), text.size()});
    bar();
  }
  void phone(std::uint64_t nation, random_stream& random) {
    char text[16];
    const auto number = [&](char* out, std::int64_t value, int digits) {
      for (int i = digits - 1; i >= 0; --i, value /= 10) out[i] = static_cast<char>('0' + value % 10);
    };
    number(text, static_cast<std::int64_t>(nation) + 10, 2);
    text[2] = '-';
    number(text + 3, random.uniform(100, 999), 3);
    text[6] = '-';
    number(text + 7, random.uniform(100, 999), 3);
    text[10] = '-';
    number(text + 11, random.uniform(1000, 9999), 4);
    append({text, 15});
    bar();
  }
  // A random string of [low, high] characters of the address alphabet.
  void random_string(random_stream& random, std::int64_t low, std::int64_t high) {
    const std::int64_t length = random.uniform(low, high);
    for (std::int64_t i = 0; i < length; ++i) buffer_[used_++] = address_alphabet[random.next() % address_alphabet.size()];
    bar();
  }
  // Random words cut to a length uniform in [low, high]; returns where the text starts and its
  // length (for the supplier comments that get a phrase written over them).
  std::pair<char*, std::size_t> comment(random_stream& random, std::int64_t low, std::int64_t high) {
    const auto length = static_cast<std::size_t>(random.uniform(low, high));
    char* const start = cursor();
    std::size_t written = 0;
    while (written < length) {
      const std::string_view word = random.pick(words);
      const std::size_t take = std::min(word.size(), length - written);
      std::memcpy(start + written, word.data(), take);
      written += take;
      if (written < length) start[written++] = ' ';
    }
    if (start[length - 1] == ' ') start[length - 1] = '.';
    used_ += length;
    bar();
    return {start, length};
  }

  // Writes what is buffered and closes the file; returns its size.
  std::uint64_t finish() {
    flush();
    if (::close(fd_) != 0) fail("close");
    fd_ = -1;
    return bytes_;
  }
  [[nodiscard]] std::uint64_t rows() const noexcept { return rows_; }

 private:
  char* cursor() noexcept { return buffer_.get() + used_; }
  void append(std::string_view value) {
    std::memcpy(cursor(), value.data(), value.size());
    used_ += value.size();
  }
  void bar() { buffer_[used_++] = '|'; }
  void flush() {
    for (std::size_t done = 0; done < used_;) {
      const ::ssize_t wrote = ::write(fd_, buffer_.get() + done, used_ - done);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0) fail("write");
      done += static_cast<std::size_t>(wrote);
    }
    bytes_ += used_;
    used_ = 0;
  }
  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error("tpch: " + std::string(what) + " " + path_.string() + " failed: " + std::strerror(errno));
  }

  std::filesystem::path path_;
  std::unique_ptr<char[]> buffer_;
  std::size_t used_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t rows_ = 0;
  int fd_ = -1;
};

// ---- the tables -------------------------------------------------------------------------------

struct generation {
  cardinalities counts;
  std::uint64_t thousandths;
  std::uint64_t seed;
};

void write_regions(const generation& g, tbl_file& out) {
  for (std::uint64_t key = 0; key < region_names.size(); ++key) {
    random_stream random(g.seed, stream::region, key);
    out.begin_row();
    out.integer(key);
    out.text(region_names[key]);
    out.comment(random, 31, 115);
    out.end_row();
  }
}

void write_nations(const generation& g, tbl_file& out) {
  for (std::uint64_t key = 0; key < nations.size(); ++key) {
    random_stream random(g.seed, stream::nation, key);
    out.begin_row();
    out.integer(key);
    out.text(nations[key].name);
    out.integer(nations[key].region);
    out.comment(random, 31, 114);
    out.end_row();
  }
}

// The suppliers whose comment holds "Customer...Complaints" (1) or "Customer...Recommends" (2):
// SF x 5 distinct rows each, chosen at random (fewer when there are not enough suppliers).
std::vector<std::uint8_t> special_suppliers(const generation& g) {
  std::vector<std::uint8_t> kind(g.counts.suppliers + 1, 0);
  const std::uint64_t each = std::min(g.thousandths * 5 / 1000, g.counts.suppliers / 2);
  random_stream random(g.seed, stream::supplier_special, 0);
  for (std::uint8_t which = 1; which <= 2; ++which) {
    for (std::uint64_t chosen = 0; chosen < each;) {
      const auto key = static_cast<std::uint64_t>(random.uniform(1, static_cast<std::int64_t>(g.counts.suppliers)));
      if (kind[key] != 0) continue;
      kind[key] = which;
      ++chosen;
    }
  }
  return kind;
}

void write_suppliers(const generation& g, tbl_file& out) {
  const std::vector<std::uint8_t> special = special_suppliers(g);
  for (std::uint64_t key = 1; key <= g.counts.suppliers; ++key) {
    random_stream random(g.seed, stream::supplier, key);
    out.begin_row();
    out.integer(key);
    out.numbered("Supplier#", key);
    out.random_string(random, 10, 40);
    const auto nation = static_cast<std::uint64_t>(random.uniform(0, 24));
    out.integer(nation);
    out.phone(nation, random);
    out.money(random.uniform(-99'999, 999'999));
    const auto [text, length] = out.comment(random, 25, 100);
    if (special[key] != 0) {
      // "Customer " then "Complaints" or "Recommends" at random places, written over the text.
      constexpr std::string_view customer = "Customer ";
      const std::string_view what = special[key] == 1 ? "Complaints" : "Recommends";
      const std::size_t spare = length - customer.size() - what.size();  // length >= 25
      const auto first = static_cast<std::size_t>(random.uniform(0, static_cast<std::int64_t>(spare)));
      const auto gap = static_cast<std::size_t>(random.uniform(0, static_cast<std::int64_t>(spare - first)));
      std::memcpy(text + first, customer.data(), customer.size());
      std::memcpy(text + first + customer.size() + gap, what.data(), what.size());
    }
    out.end_row();
  }
}

void write_customers(const generation& g, tbl_file& out) {
  for (std::uint64_t key = 1; key <= g.counts.customers; ++key) {
    random_stream random(g.seed, stream::customer, key);
    out.begin_row();
    out.integer(key);
    out.numbered("Customer#", key);
    out.random_string(random, 10, 40);
    const auto nation = static_cast<std::uint64_t>(random.uniform(0, 24));
    out.integer(nation);
    out.phone(nation, random);
    out.money(random.uniform(-99'999, 999'999));
    out.text(random.pick(segments));
    out.comment(random, 29, 116);
    out.end_row();
  }
}

void write_parts(const generation& g, tbl_file& out) {
  std::string name;
  for (std::uint64_t key = 1; key <= g.counts.parts; ++key) {
    random_stream random(g.seed, stream::part, key);
    out.begin_row();
    out.integer(key);
    std::array<std::size_t, 5> chosen{};
    name.clear();
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      do {
        chosen[i] = random.next() % colours.size();
      } while (std::find(chosen.begin(), chosen.begin() + static_cast<std::ptrdiff_t>(i), chosen[i]) !=
               chosen.begin() + static_cast<std::ptrdiff_t>(i));
      if (i > 0) name += ' ';
      name += colours[chosen[i]];
    }
    out.text(name);
    const auto manufacturer = static_cast<char>('0' + random.uniform(1, 5));
    const auto brand = static_cast<char>('0' + random.uniform(1, 5));
    out.text(std::string("Manufacturer#") + manufacturer);
    out.text(std::string("Brand#") + manufacturer + brand);
    const std::string_view size = random.pick(type_sizes);
    const std::string_view finish = random.pick(type_finishes);
    const std::string_view material = random.pick(type_materials);
    out.text(std::string(size) + ' ' + std::string(finish) + ' ' + std::string(material));
    out.integer(static_cast<std::uint64_t>(random.uniform(1, 50)));
    const std::string_view container_size = random.pick(container_sizes);
    out.text(std::string(container_size) + ' ' + std::string(random.pick(container_kinds)));
    out.money(retail_price_cents(key));
    out.comment(random, 5, 22);
    out.end_row();
  }
}

void write_partsupps(const generation& g, tbl_file& out) {
  for (std::uint64_t part = 1; part <= g.counts.parts; ++part) {
    random_stream random(g.seed, stream::partsupp, part);
    for (std::uint64_t i = 0; i < 4; ++i) {
      out.begin_row();
      out.integer(part);
      out.integer(part_supplier(part, i, g.counts.suppliers));
      out.integer(static_cast<std::uint64_t>(random.uniform(1, 9'999)));
      out.money(random.uniform(100, 100'000));
      out.comment(random, 49, 198);
      out.end_row();
    }
  }
}

struct line {
  std::uint64_t part;
  std::uint64_t supplier;
  std::int64_t quantity;
  std::int64_t extended_price;
  std::int64_t discount;  // percent
  std::int64_t tax;       // percent
  std::int64_t ship, commit, receipt;  // days after start_date
  char return_flag;
  char status;
  std::string_view instruction;
  std::string_view mode;
};

// Orders and their lineitems in one pass: an order's total and status come from its lines.
void write_orders_and_lineitems(const generation& g, tbl_file* orders, tbl_file* lineitems) {
  const auto ordering_customers = static_cast<std::int64_t>(g.counts.customers - g.counts.customers / 3);
  std::array<line, 7> lines{};
  for (std::uint64_t number = 1; number <= g.counts.orders; ++number) {
    random_stream random(g.seed, stream::orders, number);
    const std::uint64_t key = order_key(number);
    // The j-th customer whose key is not a multiple of 3: 1, 2, 4, 5, 7, ...
    const auto j = static_cast<std::uint64_t>(random.uniform(0, ordering_customers - 1));
    const std::uint64_t customer = j + j / 2 + 1;
    const std::int64_t order_day = random.uniform(0, last_order_day);
    const std::string_view priority = random.pick(priorities);
    const auto clerk = static_cast<std::uint64_t>(random.uniform(1, static_cast<std::int64_t>(g.counts.clerks)));
    const auto count = static_cast<std::size_t>(random.uniform(1, 7));
    std::int64_t total = 0;
    std::size_t open = 0;
    for (std::size_t n = 0; n < count; ++n) {
      line& l = lines[n];
      l.part = static_cast<std::uint64_t>(random.uniform(1, static_cast<std::int64_t>(g.counts.parts)));
      l.supplier = part_supplier(l.part, static_cast<std::uint64_t>(random.uniform(0, 3)), g.counts.suppliers);
      l.quantity = random.uniform(1, 50);
      l.extended_price = l.quantity * retail_price_cents(l.part);
      l.discount = random.uniform(0, 10);
      l.tax = random.uniform(0, 8);
      l.ship = order_day + random.uniform(1, 121);
      l.commit = order_day + random.uniform(30, 90);
      l.receipt = l.ship + random.uniform(1, 30);
      const char returned = random.next() % 2 == 0 ? 'R' : 'A';
      l.return_flag = l.receipt <= current_day ? returned : 'N';
      l.status = l.ship > current_day ? 'O' : 'F';
      l.instruction = random.pick(instructions);
      l.mode = random.pick(ship_modes);
      total += line_charge_cents(l.extended_price, l.discount, l.tax);
      open += l.status == 'O' ? 1 : 0;
    }
    if (orders != nullptr) {
      random_stream comment(g.seed, stream::order_comment, number);
      orders->begin_row();
      orders->integer(key);
      orders->integer(customer);
      orders->text(open == count ? "O" : open == 0 ? "F" : "P");
      orders->money(total);
      orders->date(order_day);
      orders->text(priority);
      orders->numbered("Clerk#", clerk);
      orders->integer(0);
      orders->comment(comment, 19, 78);
      orders->end_row();
    }
    if (lineitems != nullptr) {
      random_stream comment(g.seed, stream::lineitem_comment, number);
      for (std::size_t n = 0; n < count; ++n) {
        const line& l = lines[n];
        lineitems->begin_row();
        lineitems->integer(key);
        lineitems->integer(l.part);
        lineitems->integer(l.supplier);
        lineitems->integer(n + 1);
        lineitems->integer(static_cast<std::uint64_t>(l.quantity));
        lineitems->money(l.extended_price);
        lineitems->money(l.discount);
        lineitems->money(l.tax);
        lineitems->text({&l.return_flag, 1});
        lineitems->text({&l.status, 1});
        lineitems->date(l.ship);
        lineitems->date(l.commit);
        lineitems->date(l.receipt);
        lineitems->text(l.instruction);
        lineitems->text(l.mode);
        lineitems->comment(comment, 10, 43);
        lineitems->end_row();
      }
    }
  }
}

std::uint64_t scale_thousandths(double scale_factor) {
  if (!std::isfinite(scale_factor) || scale_factor <= 0) {
    throw std::invalid_argument("tpch: the scale factor must be a number above 0");
  }
  if (scale_factor > 100'000) throw std::invalid_argument("tpch: the scale factor must be at most 100000");
  const auto thousandths = static_cast<std::uint64_t>(std::floor(scale_factor * 1000 + 1e-6));
  if (thousandths == 0) throw std::invalid_argument("tpch: the scale factor must be at least 0.001");
  return thousandths;
}

}  // namespace

std::string_view name_of(table_id table) noexcept { return table_names[static_cast<std::size_t>(table)]; }

std::vector<table_id> parse_tables(std::string_view list) {
  std::vector<table_id> tables;
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    const auto found = std::find(table_names.begin(), table_names.end(), name);
    if (found == table_names.end()) {
      throw std::invalid_argument("tpch: unknown table '" + std::string(name) +
                                  "' (region, nation, supplier, customer, part, partsupp, orders, lineitem)");
    }
    const auto table = static_cast<table_id>(found - table_names.begin());
    if (std::find(tables.begin(), tables.end(), table) != tables.end()) {
      throw std::invalid_argument("tpch: table '" + std::string(name) + "' named twice");
    }
    tables.push_back(table);
    if (comma == std::string_view::npos) return tables;
    list.remove_prefix(comma + 1);
  }
}

cardinalities cardinalities_at(double scale_factor) {
  const std::uint64_t thousandths = scale_thousandths(scale_factor);
  const auto scaled = [&](std::uint64_t base) { return std::max<std::uint64_t>(1, base * thousandths / 1000); };
  const std::uint64_t parts = scaled(200'000);
  return {.suppliers = scaled(10'000),
          .customers = scaled(150'000),
          .parts = parts,
          .partsupps = 4 * parts,
          .orders = scaled(1'500'000),
          .clerks = scaled(1'000)};
}

std::uint64_t order_key(std::uint64_t order_number) { return (order_number >> 3 << 5) | (order_number & 7); }

std::int64_t retail_price_cents(std::uint64_t partkey) {
  return static_cast<std::int64_t>(90'000 + (partkey / 10) % 20'001 + 100 * (partkey % 1'000));
}

std::uint64_t part_supplier(std::uint64_t partkey, std::uint64_t i, std::uint64_t suppliers) {
  return (partkey + i * (suppliers / 4 + (partkey - 1) / suppliers)) % suppliers + 1;
}

std::int64_t line_charge_cents(std::int64_t extended_price_cents, std::int64_t discount_percent, std::int64_t tax_percent) {
  return (extended_price_cents * (100 - discount_percent) * (100 + tax_percent) + 5'000) / 10'000;
}

std::vector<generated_table> generate(const generate_options& options) {
  const generation g{cardinalities_at(options.scale_factor), scale_thousandths(options.scale_factor), options.seed};
  std::error_code error;
  if (!std::filesystem::is_directory(options.out, error)) {
    throw std::invalid_argument("tpch: '" + options.out.string() + "' is not a directory");
  }
  const auto wanted = [&](table_id table) {
    return options.tables.empty() || std::find(options.tables.begin(), options.tables.end(), table) != options.tables.end();
  };
  const auto path_of = [&](table_id table) { return options.out / (std::string(name_of(table)) + ".tbl"); };
  std::vector<generated_table> written;
  const auto finish = [&](table_id table, tbl_file& file, std::chrono::steady_clock::time_point began) {
    const std::uint64_t rows = file.rows();
    const std::uint64_t bytes = file.finish();
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - began;
    written.push_back({table, path_of(table), rows, bytes, took.count()});
  };
  using writer = void (*)(const generation&, tbl_file&);
  constexpr std::array<std::pair<table_id, writer>, 6> single = {{{table_id::region, write_regions},
                                                                  {table_id::nation, write_nations},
                                                                  {table_id::supplier, write_suppliers},
                                                                  {table_id::customer, write_customers},
                                                                  {table_id::part, write_parts},
                                                                  {table_id::partsupp, write_partsupps}}};
  for (const auto& [table, write] : single) {
    if (!wanted(table)) continue;
    const auto began = std::chrono::steady_clock::now();
    tbl_file file(path_of(table));
    write(g, file);
    finish(table, file, began);
  }
  if (wanted(table_id::orders) || wanted(table_id::lineitem)) {
    // One pass writes both; each reports that pass's time.
    const auto began = std::chrono::steady_clock::now();
    std::unique_ptr<tbl_file> orders, lineitems;
    if (wanted(table_id::orders)) orders = std::make_unique<tbl_file>(path_of(table_id::orders));
    if (wanted(table_id::lineitem)) lineitems = std::make_unique<tbl_file>(path_of(table_id::lineitem));
    write_orders_and_lineitems(g, orders.get(), lineitems.get());
    if (orders) finish(table_id::orders, *orders, began);
    if (lineitems) finish(table_id::lineitem, *lineitems, began);
  }
  return written;
}

}  // namespace braid::bench::tpch
