// checkpoint_format: the layout of a checkpoint file and its checking, streaming parser.
//
//   file header (on_disk.hpp): magic "BRAIDCKP", checkpoint_format_version, number = checkpoint_ts
//   entries, back to back:
//     0  kind        u8   1 table (key = name), 2 row, 3 end
//     1  table_id    u32
//     5  oid         u64  (end: the number of entries before it)
//    13  key_size    u32
//    17  value_size  u32
//    21  key, value
//        crc         u32  CRC-32C of everything above
// A well-formed checkpoint declares each table once before its rows, ends with exactly one end
// entry whose count matches, and has no byte after it. parse_checkpoint checks all of that and
// calls the visitor (when given) as it goes; callers that must not see part of a bad file run
// it once without a visitor first. Complexity O(bytes); memory O(largest entry).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "braid/txn/checkpoint.hpp"
#include "braid/txn/detail/on_disk.hpp"

namespace braid::txn::detail {

inline constexpr file_magic checkpoint_magic{'B', 'R', 'A', 'I', 'D', 'C', 'K', 'P'};
inline constexpr std::uint32_t checkpoint_format_version = 1;
inline constexpr std::size_t checkpoint_entry_header_bytes = 21;
enum class checkpoint_entry : std::uint8_t { table = 1, row = 2, end = 3 };

std::string checkpoint_file_name(std::uint64_t checkpoint_ts);
// True for checkpoint_file_name's names (not for the temporary ".tmp" ones); sets the ts.
bool parse_checkpoint_file_name(std::string_view name, std::uint64_t& checkpoint_ts);
// True for "<checkpoint file name>.tmp"; sets the ts.
bool parse_checkpoint_temp_name(std::string_view name, std::uint64_t& checkpoint_ts);

// Bytes to parse: read(n) fills out with exactly n bytes or fails (end of data or an error).
class byte_source {
 public:
  virtual ~byte_source() = default;
  [[nodiscard]] virtual std::uint64_t remaining() const noexcept = 0;
  virtual status read(std::byte* out, std::size_t size, std::string& message) = 0;
};

class memory_source final : public byte_source {
 public:
  explicit memory_source(std::span<const std::byte> bytes) noexcept : bytes_(bytes) {}
  [[nodiscard]] std::uint64_t remaining() const noexcept override { return bytes_.size() - position_; }
  status read(std::byte* out, std::size_t size, std::string& message) override;

 private:
  std::span<const std::byte> bytes_;
  std::size_t position_ = 0;
};

// file_name is used in messages only. expected_ts: what the file's name says (nullopt: unchecked).
status parse_checkpoint(byte_source& source, const std::string& file_name, std::optional<std::uint64_t> expected_ts,
                        const checkpoint_visitor* visit, std::uint64_t& checkpoint_ts, std::string& message);

}  // namespace braid::txn::detail
