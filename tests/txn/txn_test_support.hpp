// Helpers for the txn tests: a fixture with an in-memory database and one table, a temporary
// directory removed at the end of the test, whole-file read / write / byte-flip helpers, and
// random byte strings.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "braid/txn/database.hpp"

namespace braid::txn::testing {

// An in-memory database with one table `name`, named by `table`.
inline std::unique_ptr<database> in_memory_database(std::string_view name, table_handle& table) {
  std::unique_ptr<database> db;
  std::string message;
  EXPECT_EQ(database::open({}, db, message), status::ok) << message;
  EXPECT_EQ(db->create_table(name, table), status::ok);
  return db;
}

// A fixture with an in-memory database and its table "t".
struct one_table_database : ::testing::Test {
  void SetUp() override { db = in_memory_database("t", t); }
  std::unique_ptr<database> db;
  table_handle t;
};

// 0..max_size bytes, each random.
inline std::string random_bytes(std::mt19937_64& random, std::size_t max_size) {
  std::string bytes(random() % (max_size + 1), '\0');
  for (char& byte : bytes) byte = static_cast<char>(random());
  return bytes;
}

class temp_directory {
 public:
  temp_directory() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/braid-txn-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  temp_directory(const temp_directory&) = delete;
  temp_directory& operator=(const temp_directory&) = delete;
  ~temp_directory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline void flip_bit(const std::filesystem::path& path, std::size_t offset, int bit) {
  std::string bytes = read_bytes(path);
  bytes.at(offset) = static_cast<char>(bytes.at(offset) ^ (1 << bit));
  write_bytes(path, bytes);
}

// The files of directory whose names start with prefix, sorted.
inline std::vector<std::filesystem::path> files_with_prefix(const std::filesystem::path& directory,
                                                            const std::string& prefix) {
  std::vector<std::filesystem::path> found;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    if (entry.path().filename().string().starts_with(prefix)) found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace braid::txn::testing
