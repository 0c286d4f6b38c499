#include "braid/txn/detail/log_format.hpp"

#include <algorithm>
#include <cstdio>

namespace braid::txn::detail {

std::string segment_file_name(std::uint64_t number) {
  char name[48];
  std::snprintf(name, sizeof name, "log-%020llu.braidlog", static_cast<unsigned long long>(number));
  return name;
}

bool parse_segment_file_name(std::string_view name, std::uint64_t& number) {
  constexpr std::string_view prefix = "log-";
  constexpr std::string_view suffix = ".braidlog";
  constexpr std::size_t digits = 20;
  if (name.size() != prefix.size() + digits + suffix.size()) return false;
  if (!name.starts_with(prefix) || !name.ends_with(suffix)) return false;
  std::uint64_t value = 0;
  for (char digit : name.substr(prefix.size(), digits)) {
    if (digit < '0' || digit > '9') return false;
    const auto next = value * 10 + static_cast<std::uint64_t>(digit - '0');
    if (next / 10 != value) return false;  // overflow
    value = next;
  }
  number = value;
  return true;
}

std::uint32_t encode_block_header(std::byte* out, std::uint32_t payload_size, std::uint64_t commit_ts,
                                  std::uint32_t record_count) noexcept {
  store_u32(out, block_magic);
  store_u32(out + 4, payload_size);
  store_u64(out + 8, commit_ts);
  store_u32(out + 16, record_count);
  const std::uint32_t header_crc = crc32c(out, 20);
  store_u32(out + 20, header_crc);
  return header_crc;
}

bool for_each_record(std::span<const std::byte> payload, std::uint32_t record_count,
                     const std::function<void(const decoded_record&)>& visit) {
  std::size_t position = 0;
  for (std::uint32_t index = 0; index < record_count; ++index) {
    if (payload.size() - position < log_record_header_bytes) return false;
    const std::byte* header = payload.data() + position;
    const auto op = std::to_integer<std::uint8_t>(header[0]);
    if (!is_valid_log_op(op)) return false;
    const std::uint64_t key_size = load_u32(header + 13);
    const std::uint64_t value_size = load_u32(header + 17);
    position += log_record_header_bytes;
    if (payload.size() - position < key_size + value_size) return false;
    const decoded_record record{static_cast<log_op>(op), load_u32(header + 1), load_u64(header + 5),
                                as_text(payload.subspan(position, key_size)),
                                as_text(payload.subspan(position + key_size, value_size))};
    position += key_size + value_size;
    if (visit) visit(record);
  }
  return position == payload.size();
}

namespace {

enum class block_check { intact, incomplete, bad_header, bad_payload, bad_records };

struct block_info {
  std::uint64_t size = 0;
  std::uint64_t commit_ts = 0;
  std::uint32_t record_count = 0;
  std::span<const std::byte> payload;
};

block_check check_block(std::span<const std::byte> data, std::size_t offset, block_info& info) {
  const std::size_t remaining = data.size() - offset;
  if (remaining < block_header_bytes) return block_check::incomplete;
  const std::byte* header = data.data() + offset;
  const std::uint32_t header_crc = load_u32(header + 20);
  if (load_u32(header) != block_magic || crc32c(header, 20) != header_crc) return block_check::bad_header;
  const std::uint64_t payload_size = load_u32(header + 4);
  info.commit_ts = load_u64(header + 8);
  info.record_count = load_u32(header + 16);
  info.size = block_overhead_bytes + payload_size;
  if (remaining < info.size) return block_check::incomplete;
  info.payload = data.subspan(offset + block_header_bytes, payload_size);
  const std::uint32_t payload_crc = load_u32(header + block_header_bytes + payload_size);
  if (crc32c_extend(header_crc, info.payload.data(), info.payload.size()) != payload_crc) return block_check::bad_payload;
  if (!for_each_record(info.payload, info.record_count, nullptr)) return block_check::bad_records;
  return block_check::intact;
}

// The offset of the first intact block starting after offset `from`, if any.
std::optional<std::size_t> find_intact_block_after(std::span<const std::byte> data, std::size_t from) {
  const std::array<std::byte, 4> magic{std::byte{'B'}, std::byte{'L'}, std::byte{'K'}, std::byte{'1'}};
  auto position = data.begin() + static_cast<std::ptrdiff_t>(from) + 1;
  while (true) {
    position = std::search(position, data.end(), magic.begin(), magic.end());
    if (position == data.end()) return std::nullopt;
    const auto offset = static_cast<std::size_t>(position - data.begin());
    block_info info;
    if (check_block(data, offset, info) == block_check::intact) return offset;
    ++position;
  }
}

bool all_zero(std::span<const std::byte> bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](std::byte value) { return value == std::byte{0}; });
}

const char* describe(block_check check) {
  switch (check) {
    case block_check::intact: return "intact";
    case block_check::incomplete: return "incomplete block";
    case block_check::bad_header: return "block header fails its magic or checksum";
    case block_check::bad_payload: return "block payload fails its checksum";
    case block_check::bad_records: return "records do not parse although the checksum matches";
  }
  return "?";
}

bool check_segment_header(std::span<const std::byte> data, const std::string& file_name,
                          std::optional<std::uint64_t> expected_number, bool is_last, segment_scan& scan) {
  file_header header;
  const header_check check = decode_file_header(data, log_segment_magic, log_format_version, header);
  const bool torn_candidate = check == header_check::too_short ||
                              all_zero(data.first(std::min(data.size(), file_header_bytes)));
  if (check != header_check::ok && is_last && torn_candidate && all_zero(data.subspan(std::min(data.size(), file_header_bytes)))) {
    scan.torn = scan.header_torn = true;
    scan.message = file_name + ": torn segment header (" + std::to_string(data.size()) +
                   " bytes, no commit block); the log ends before this segment";
    return false;
  }
  switch (check) {
    case header_check::ok: break;
    case header_check::too_short:
      scan.result = status::corrupt;
      scan.message = file_name + ": segment header cut short at byte offset " + std::to_string(data.size());
      return false;
    case header_check::wrong_magic:
      scan.result = status::corrupt;
      scan.message = file_name + ": not a braid log segment (wrong magic at byte offset 0)";
      return false;
    case header_check::wrong_version:
      scan.result = status::format_mismatch;
      scan.message = file_name + ": log format version " + std::to_string(header.format_version) +
                     ", this build reads version " + std::to_string(log_format_version);
      return false;
    case header_check::bad_checksum:
      scan.result = status::corrupt;
      scan.message = file_name + ": segment header fails its checksum (byte offset 0)";
      return false;
  }
  if (expected_number && header.number != *expected_number) {
    scan.result = status::corrupt;
    scan.message = file_name + ": segment header says segment " + std::to_string(header.number);
    return false;
  }
  return true;
}

}  // namespace

segment_scan scan_segment(std::span<const std::byte> data, const std::string& file_name,
                          std::optional<std::uint64_t> expected_number, bool is_last,
                          const std::function<void(const scanned_block&)>& visit) {
  segment_scan scan;
  if (!check_segment_header(data, file_name, expected_number, is_last, scan)) return scan;
  std::size_t offset = file_header_bytes;
  while (offset < data.size()) {
    block_info info;
    const block_check check = check_block(data, offset, info);
    if (check == block_check::intact) {
      if (visit) visit(scanned_block{offset, info.commit_ts, info.record_count, info.payload});
      ++scan.blocks;
      scan.max_commit_ts = std::max(scan.max_commit_ts, info.commit_ts);
      offset += info.size;
      continue;
    }
    const std::string where = file_name + ": " + describe(check) + " at byte offset " + std::to_string(offset);
    if (check != block_check::bad_records && is_last) {
      const std::optional<std::size_t> next = find_intact_block_after(data, offset);
      if (!next) {
        scan.torn = true;
        scan.message = "torn tail: " + where + " (" + std::to_string(data.size() - offset) +
                       " bytes to the end of the file, no intact block after it)";
        break;
      }
      scan.result = status::corrupt;
      scan.message = where + ", followed by an intact block at byte offset " + std::to_string(*next);
      break;
    }
    scan.result = status::corrupt;
    scan.message = where + (is_last ? "" : " (not the last segment)");
    break;
  }
  scan.good_bytes = offset;
  return scan;
}

}  // namespace braid::txn::detail
