// log_format: the on-disk layout of braid's redo log and the checking reader of one segment.
//
// The log is a sequence of segment files in the database directory, named
// "log-<20-digit decimal segment number>.braidlog" (so that name order is log order); numbers
// are consecutive from the oldest segment still present. A segment is
//   file header (on_disk.hpp): magic "BRAIDLOG", log_format_version, number = segment number
//   commit blocks, back to back:
//     0  block_magic     u32  "BLK1"
//     4  payload_size    u32  bytes of records
//     8  commit_ts       u64
//    16  record_count    u32
//    20  header_crc      u32  CRC-32C of bytes 0..19
//    24  payload         the records, in log_buffer's layout (log_buffer.hpp)
//    24+payload_size     payload_crc u32: crc32c_extend(header_crc, payload)
// A block is whole and intact when both checksums match and its records exactly fill the
// payload. A block is never split across segments.
//
// scan_segment checks one segment held in memory and calls visit for each good block, in order.
// The end of the last segment may be torn (a crash during a write): an incomplete block, or a
// block failing its checksum with no intact block anywhere after it, is reported as torn (status
// ok, torn = true, good_bytes = the end of the last good block); so is a file header cut short
// or all zero. Anything else that fails — a bad block followed by an intact one, a bad block in
// any other segment, a checksum-valid block whose records do not parse, a wrong magic, segment
// number or version — is status::corrupt (format_mismatch for another version), with a message
// naming the file and the byte offset. Finding "an intact block after" scans byte by byte for
// block_magic and checks the candidate's checksums: O(tail bytes) normally, and quadratic only
// on input built to repeat block_magic everywhere.
// Known limit: the rule "a bad block followed by an intact one is corrupt" assumes a crash
// loses a suffix of what was written since the last fdatasync. A file system that persists
// the pages of one unsynced write out of order could, after a crash, leave an intact block
// behind a torn one; that is reported as corrupt (never dropped silently), although neither
// block had been acknowledged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "braid/txn/detail/on_disk.hpp"
#include "braid/txn/log_buffer.hpp"
#include "braid/txn/status.hpp"

namespace braid::txn::detail {

inline constexpr file_magic log_segment_magic{'B', 'R', 'A', 'I', 'D', 'L', 'O', 'G'};
inline constexpr std::uint32_t log_format_version = 1;
inline constexpr std::uint32_t block_magic = 0x314B4C42u;  // "BLK1" in little-endian byte order
inline constexpr std::size_t block_header_bytes = 24;
inline constexpr std::size_t block_trailer_bytes = 4;
inline constexpr std::size_t block_overhead_bytes = block_header_bytes + block_trailer_bytes;

std::string segment_file_name(std::uint64_t number);
// True for names segment_file_name produces; sets number.
bool parse_segment_file_name(std::string_view name, std::uint64_t& number);

// Writes the block header for a payload into out[0..block_header_bytes) and returns header_crc.
std::uint32_t encode_block_header(std::byte* out, std::uint32_t payload_size, std::uint64_t commit_ts,
                                  std::uint32_t record_count) noexcept;

struct decoded_record {
  log_op op;
  std::uint32_t table_id;
  std::uint64_t oid;
  std::string_view key;
  std::string_view value;
};

// Calls visit for each of the record_count records of payload; false (and no further calls)
// when the payload does not hold exactly that many well-formed records.
bool for_each_record(std::span<const std::byte> payload, std::uint32_t record_count,
                     const std::function<void(const decoded_record&)>& visit);

struct scanned_block {
  std::uint64_t offset;        // of the block in the segment file
  std::uint64_t commit_ts;
  std::uint32_t record_count;
  std::span<const std::byte> payload;  // records verified by for_each_record
};

struct segment_scan {
  status result = status::ok;     // ok, corrupt or format_mismatch
  bool torn = false;              // the segment ends in a torn block (only when is_last)
  bool header_torn = false;       // ... inside its file header: it holds no block at all
  std::uint64_t good_bytes = 0;   // header + intact blocks; the cut point when torn
  std::uint64_t blocks = 0;       // intact blocks
  std::uint64_t max_commit_ts = 0;
  std::string message;            // for torn and for every failure
};

// expected_number: the number the file name says (nullopt: not checked).
segment_scan scan_segment(std::span<const std::byte> data, const std::string& file_name,
                          std::optional<std::uint64_t> expected_number, bool is_last,
                          const std::function<void(const scanned_block&)>& visit);

}  // namespace braid::txn::detail
