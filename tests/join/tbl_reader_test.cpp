// tbl_reader: rows and fields as dbgen writes them, the format's documented decisions (optional
// trailing '|', CRLF, last line without '\n'), the relation loader's key and payload columns, and
// one FILE:LINE error for every kind of malformed input, from files and from text.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "braid/join/tbl_reader.hpp"

namespace braid::join {
namespace {

using namespace std::string_literals;
using rows = std::vector<std::vector<std::string>>;

struct read_result {
  rows fields;
  std::vector<std::uint64_t> lines;
};

read_result read_text(std::string_view text, const tbl_read_options& options = {}) {
  read_result result;
  read_tbl_text(text, "t.tbl", [&](std::span<const std::string_view> fields, std::uint64_t line) {
    result.fields.emplace_back(fields.begin(), fields.end());
    result.lines.push_back(line);
  }, options);
  return result;
}

class TblFile : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() / ("braid-tbl-reader-" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }
  std::string file(const std::string& name, const std::string& text) const {
    const std::string path = (directory_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  read_result read_file(const std::string& path, const tbl_read_options& options = {}) const {
    read_result result;
    read_tbl_file(path, [&](std::span<const std::string_view> fields, std::uint64_t line) {
      result.fields.emplace_back(fields.begin(), fields.end());
      result.lines.push_back(line);
    }, options);
    return result;
  }

  std::filesystem::path directory_;
};

// The error's message starts with "FILE:LINE: " and contains `what`.
template <class F>
void expect_error(F&& f, const std::string& file, std::uint64_t line, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "no error; expected " << file << ":" << line << ": " << what;
  } catch (const tbl_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.line(), line) << message;
    EXPECT_EQ(e.file(), file) << message;
    EXPECT_TRUE(message.starts_with(file + ":" + std::to_string(line) + ": ")) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message << " (expected '" << what << "')";
  }
}

TEST(TblReader, ReadsDbgenRows) {
  const read_result r = read_text("0|AFRICA|lar deposits|\n1|AMERICA|hs use ironic, even requests. s|\n");
  EXPECT_EQ(r.fields, (rows{{"0", "AFRICA", "lar deposits"}, {"1", "AMERICA", "hs use ironic, even requests. s"}}));
  EXPECT_EQ(r.lines, (std::vector<std::uint64_t>{1, 2}));
}

TEST(TblReader, FormatDecisions) {
  // Trailing '|' optional; one dropped, so "a||" keeps an empty last field.
  EXPECT_EQ(read_text("1|a\n2|b|\n3|c||\n").fields, (rows{{"1", "a"}, {"2", "b"}, {"3", "c", ""}}));
  // CRLF tolerated, before the trailing '|' is dropped.
  EXPECT_EQ(read_text("1|a|\r\n2|b\r\n").fields, (rows{{"1", "a"}, {"2", "b"}}));
  // Last line without '\n'.
  EXPECT_EQ(read_text("1|a|\n2|b|").fields, (rows{{"1", "a"}, {"2", "b"}}));
  // Empty fields inside a row; a lone '|' is one empty field.
  EXPECT_EQ(read_text("||x|\n|\n").fields, (rows{{"", "", "x"}, {""}}));
  // No trimming; rows of different widths are handed on as they are.
  EXPECT_EQ(read_text(" 1 |a b\n1|2|3|4|\n").fields, (rows{{" 1 ", "a b"}, {"1", "2", "3", "4"}}));
  EXPECT_TRUE(read_text("").fields.empty());
}

TEST(TblReader, RefusesMalformedText) {
  expect_error([] { read_text("1|a|\n\n2|b|\n"); }, "t.tbl", 2, "empty line");
  expect_error([] { read_text("1|a|\n\r\n"); }, "t.tbl", 2, "empty line");
  expect_error([] { read_text("1|a|\n2|b\0c|\n"s); }, "t.tbl", 2, "NUL byte");
  tbl_read_options tight;
  tight.max_line_bytes = 8;
  EXPECT_EQ(read_text("12345678\n1|2|3|4|", tight).fields.size(), 2u);  // exactly the limit
  expect_error([&] { read_text("1|a|\n123456789\n", tight); }, "t.tbl", 2, "line longer than 8 bytes");
  expect_error([&] { read_text("1|a|\n123456789", tight); }, "t.tbl", 2, "line longer than 8 bytes");
}

TEST(TblReader, RefusesMeaninglessOptions) {
  tbl_read_options options;
  options.block_bytes = 0;
  EXPECT_THROW(read_text("1|\n", options), std::invalid_argument);
  options = {};
  options.max_line_bytes = 0;
  EXPECT_THROW(read_text("1|\n", options), std::invalid_argument);
  EXPECT_THROW(load_join_relation_text("1|\n", "t.tbl", std::size_t{1} << 40), std::invalid_argument);
}

TEST(TblReader, ParsesUnsignedStrictly) {
  std::string problem;
  EXPECT_EQ(parse_tbl_unsigned("0", problem), 0u);
  EXPECT_EQ(parse_tbl_unsigned("007", problem), 7u);
  EXPECT_EQ(parse_tbl_unsigned("18446744073709551615", problem), ~std::uint64_t{0});
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1.0", "1e3", "0x10", "18446744073709551616", "99999999999999999999"}) {
    EXPECT_FALSE(parse_tbl_unsigned(bad, problem).has_value()) << bad;
  }
  EXPECT_FALSE(parse_tbl_unsigned("18446744073709551616", problem));
  EXPECT_EQ(problem, "above 2^64 - 1");
  EXPECT_FALSE(parse_tbl_unsigned("", problem));
  EXPECT_EQ(problem, "empty field");
}

TEST(TblReader, LoadsKeyWithRowNumberOrPayloadColumn) {
  const std::string text = "7|30|x|\n5|10|y|\n7|0|z|\n18446744073709551615|18446744073709551615|w|\n";
  EXPECT_EQ(load_join_relation_text(text, "t.tbl", 0),
            (std::vector<tuple>{{7, 0}, {5, 1}, {7, 2}, {~std::uint64_t{0}, 3}}));
  EXPECT_EQ(load_join_relation_text(text, "t.tbl", 0, 1),
            (std::vector<tuple>{{7, 30}, {5, 10}, {7, 0}, {~std::uint64_t{0}, ~std::uint64_t{0}}}));
  EXPECT_EQ(load_join_relation_text(text, "t.tbl", 1, 0),
            (std::vector<tuple>{{30, 7}, {10, 5}, {0, 7}, {~std::uint64_t{0}, ~std::uint64_t{0}}}));
  EXPECT_EQ(load_join_relation_text(text, "t.tbl", 1, 1).front(), (tuple{30, 30}));
  EXPECT_TRUE(load_join_relation_text("", "t.tbl", 3).empty());
}

TEST(TblReader, LoaderNamesFileAndLineOfEachProblem) {
  auto load = [](const std::string& text, std::size_t key, std::optional<std::size_t> payload = std::nullopt) {
    return [=] { (void)load_join_relation_text(text, "orders.tbl", key, payload); };
  };
  expect_error(load("1|7|\n2|\n", 1), "orders.tbl", 2, "1 field, but column 1 is read");
  expect_error(load("1|2|\n3|4|\n", 0, 2), "orders.tbl", 1, "2 fields, but column 2 is read");
  expect_error(load("1|\nx|\n", 0), "orders.tbl", 2, "key column 0: not an unsigned integer ('x')");
  expect_error(load("1|\n-1|\n", 0), "orders.tbl", 2, "not an unsigned integer");
  expect_error(load("1|\n2|\n18446744073709551616|\n", 0), "orders.tbl", 3, "key column 0: above 2^64 - 1");
  expect_error(load("1||\n", 1), "orders.tbl", 1, "key column 1: empty field");
  expect_error(load("1|2|\n3|1.5|\n", 0, 1), "orders.tbl", 2, "payload column 1: not an unsigned integer ('1.5')");
  expect_error(load("1|\n\n", 0), "orders.tbl", 2, "empty line");
  expect_error(load("1|\n2\0|\n"s, 0), "orders.tbl", 2, "NUL byte");
  expect_error(load("1|\n2\x01|\n", 0), "orders.tbl", 2, "('2\\x01')");
}

TEST_F(TblFile, ReadsFilesAcrossBlockBoundaries) {
  // Lines that straddle every block boundary: blocks of 1 to 13 bytes.
  std::string text;
  std::vector<tuple> expected;
  std::mt19937_64 random(5);
  for (std::uint64_t row = 0; row < 300; ++row) {
    const std::uint64_t key = random() >> (random() % 64);
    text += std::to_string(key) + "|" + std::string(random() % 20, 'c') + "|" + std::to_string(row * 3) + "|\n";
    expected.push_back({key, row * 3});
  }
  const std::string path = file("rows.tbl", text);
  for (std::size_t block = 1; block <= 13; ++block) {
    tbl_read_options options;
    options.block_bytes = block;
    EXPECT_EQ(load_join_relation(path, 0, 2, options), expected) << block;
    const read_result r = read_file(path, options);
    ASSERT_EQ(r.fields.size(), 300u);
    EXPECT_EQ(r.lines.back(), 300u);
  }
  EXPECT_EQ(load_join_relation(path, 0, 2), expected);
  EXPECT_EQ(load_join_relation(path, 0).back(), (tuple{expected.back().key, 299}));
}

TEST_F(TblFile, FileErrorsNameTheFile) {
  const std::string missing = (directory_ / "missing.tbl").string();
  expect_error([&] { (void)load_join_relation(missing, 0); }, missing, 0, "cannot open");
  expect_error([&] { (void)load_join_relation(directory_.string(), 0); }, directory_.string(), 0, "is a directory");
  const std::string bad = file("bad.tbl", "1|\n2|\n3x|\n");
  expect_error([&] { (void)load_join_relation(bad, 0); }, bad, 3, "not an unsigned integer");
  tbl_read_options tight;
  tight.max_line_bytes = 16;
  tight.block_bytes = 4;
  const std::string long_line = file("long.tbl", "1|\n" + std::string(40, '9') + "|\n");
  expect_error([&] { (void)load_join_relation(long_line, 0, std::nullopt, tight); }, long_line, 2, "line longer than 16 bytes");
  const std::string empty = file("empty.tbl", "");
  EXPECT_TRUE(load_join_relation(empty, 0).empty());
  EXPECT_TRUE(read_file(empty).fields.empty());
}

}  // namespace
}  // namespace braid::join
