// libFuzzer target: arbitrary bytes as a log segment and as a checkpoint file, read by the
// checking readers of txn/. Every outcome must be ok (possibly with a torn tail), corrupt or
// format_mismatch with a message, and no sanitizer report. Besides raw bytes, the input can
// describe well-formed blocks or checkpoint entries that are encoded properly and then damaged
// (cut, bit flips, inserted bytes), so that the fuzzer reaches past the checksums: then every
// block the reader accepts must be one that was written, in order, and an undamaged file must
// read back exactly.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "braid/txn/detail/checkpoint_format.hpp"
#include "braid/txn/detail/log_format.hpp"
#include "fuzz_input.hpp"

namespace {

using braid::fuzzing::fuzz_check;
using braid::fuzzing::fuzz_input;
namespace detail = braid::txn::detail;
using braid::txn::status;

struct written_block {
  std::uint64_t commit_ts;
  std::vector<std::byte> payload;
  std::uint32_t record_count;
};

std::string decode_text(fuzz_input& input, std::size_t max_size) {
  std::string text(input.byte() % (max_size + 1), '\0');
  for (char& c : text) c = static_cast<char>(input.byte());
  return text;
}

// Checks the reader's answer on one segment; returns the blocks it accepted.
std::vector<detail::scanned_block> scan_and_check(std::span<const std::byte> data, bool is_last) {
  std::vector<detail::scanned_block> accepted;
  const detail::segment_scan scan = detail::scan_segment(data, "fuzz.braidlog", std::nullopt, is_last,
                                                         [&](const detail::scanned_block& block) {
                                                           accepted.push_back(block);
                                                           std::size_t records = 0;
                                                           fuzz_check(detail::for_each_record(block.payload, block.record_count,
                                                                                              [&](const detail::decoded_record&) { ++records; }),
                                                                      "an accepted block's records parse");
                                                           fuzz_check(records == block.record_count, "record count");
                                                         });
  fuzz_check(scan.result == status::ok || scan.result == status::corrupt || scan.result == status::format_mismatch,
             "segment outcome is ok, corrupt or format_mismatch");
  fuzz_check(scan.result == status::ok || !scan.message.empty(), "a failure has a message");
  fuzz_check(!scan.torn || !scan.message.empty(), "a torn tail has a message");
  fuzz_check(!scan.torn || is_last, "only the last segment can be torn");
  fuzz_check(scan.blocks == accepted.size(), "block count");
  fuzz_check(scan.good_bytes <= data.size(), "good prefix within the data");
  if (scan.result == status::ok && !scan.torn) fuzz_check(scan.good_bytes == data.size(), "clean scan reads everything");
  if (scan.result == status::ok && scan.torn && !scan.header_torn) {
    // Cutting the torn tail off leaves a segment that reads cleanly with the same blocks.
    const detail::segment_scan again = detail::scan_segment(data.first(scan.good_bytes), "fuzz.braidlog", std::nullopt, true, nullptr);
    fuzz_check(again.result == status::ok && !again.torn && again.blocks == scan.blocks, "the cut log is clean");
  }
  return accepted;
}

void check_checkpoint(std::span<const std::byte> data, const std::vector<std::tuple<int, std::uint32_t, std::uint64_t, std::string, std::string>>* expected) {
  detail::memory_source source(data);
  std::vector<std::tuple<int, std::uint32_t, std::uint64_t, std::string, std::string>> seen;
  braid::txn::checkpoint_visitor visit;
  visit.table = [&](std::uint32_t id, std::string_view name) { seen.emplace_back(1, id, 0, std::string(name), ""); };
  visit.row = [&](std::uint32_t id, std::uint64_t oid, std::string_view key, std::string_view value) {
    seen.emplace_back(2, id, oid, std::string(key), std::string(value));
  };
  std::uint64_t ts = 0;
  std::string message;
  const status s = detail::parse_checkpoint(source, "fuzz.braidckpt", std::nullopt, &visit, ts, message);
  fuzz_check(s == status::ok || s == status::corrupt || s == status::format_mismatch, "checkpoint outcome");
  fuzz_check(s == status::ok || message.find("fuzz.braidckpt") != std::string::npos, "checkpoint message names the file");
  if (expected != nullptr) fuzz_check(s == status::ok && seen == *expected, "an undamaged checkpoint reads back exactly");
}

// Cuts, flips bits in, or inserts bytes into the encoded file; true when anything changed.
bool damage(fuzz_input& input, std::vector<std::byte>& bytes) {
  bool changed = false;
  const std::size_t operations = input.byte() % 4;
  for (std::size_t index = 0; index < operations && !bytes.empty(); ++index) {
    const std::size_t position = input.below(bytes.size());
    switch (input.byte() % 3) {
      case 0:
        changed |= position < bytes.size();
        bytes.resize(position);
        break;
      case 1:
        bytes[position] ^= static_cast<std::byte>(1u << (input.byte() % 8));
        changed = true;
        break;
      default:
        bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(position), static_cast<std::byte>(input.byte()));
        changed = true;
        break;
    }
  }
  return changed;
}

void structured_log(fuzz_input& input) {
  const auto header = detail::encode_file_header({detail::log_segment_magic, detail::log_format_version, 1});
  std::vector<std::byte> file(header.begin(), header.end());
  std::vector<written_block> written;
  const std::size_t blocks = input.byte() % 8;
  for (std::size_t index = 0; index < blocks; ++index) {
    braid::txn::log_buffer records;
    const std::size_t count = input.byte() % 4;
    for (std::size_t r = 0; r < count; ++r) {
      const auto op = static_cast<braid::txn::log_op>(1 + input.byte() % 4);
      records.append(op, input.byte(), input.u64(), decode_text(input, 12), decode_text(input, 24));
    }
    const std::uint64_t ts = input.u64();
    std::array<std::byte, detail::block_header_bytes> block_header;
    const std::uint32_t crc = detail::encode_block_header(block_header.data(), static_cast<std::uint32_t>(records.bytes().size()), ts,
                                                          static_cast<std::uint32_t>(records.record_count()));
    std::array<std::byte, 4> trailer;
    detail::store_u32(trailer.data(), detail::crc32c_extend(crc, records.bytes().data(), records.bytes().size()));
    file.insert(file.end(), block_header.begin(), block_header.end());
    file.insert(file.end(), records.bytes().begin(), records.bytes().end());
    file.insert(file.end(), trailer.begin(), trailer.end());
    written.push_back({ts, {records.bytes().begin(), records.bytes().end()}, static_cast<std::uint32_t>(records.record_count())});
  }
  const bool damaged = damage(input, file);
  const bool is_last = (input.byte() & 1) == 0;
  const std::vector<detail::scanned_block> accepted = scan_and_check(file, is_last);
  // Whatever the damage, every accepted block is a written one (the checksums keep invented
  // or shifted data out); accepted blocks keep their written order.
  std::size_t next = 0;
  for (const detail::scanned_block& block : accepted) {
    while (next < written.size() &&
           !(written[next].commit_ts == block.commit_ts && written[next].record_count == block.record_count &&
             std::equal(block.payload.begin(), block.payload.end(), written[next].payload.begin(), written[next].payload.end()))) {
      ++next;
    }
    fuzz_check(next < written.size(), "an accepted block was written, in order");
    ++next;
  }
  if (!damaged) fuzz_check(accepted.size() == written.size(), "an undamaged segment reads back whole");
}

void structured_checkpoint(fuzz_input& input) {
  std::vector<std::tuple<int, std::uint32_t, std::uint64_t, std::string, std::string>> expected;
  const auto header = detail::encode_file_header({detail::checkpoint_magic, detail::checkpoint_format_version, input.u64()});
  std::vector<std::byte> file(header.begin(), header.end());
  const auto add = [&](std::uint8_t kind, std::uint32_t id, std::uint64_t oid, const std::string& key, const std::string& value) {
    std::vector<std::byte> entry(detail::checkpoint_entry_header_bytes);
    entry[0] = static_cast<std::byte>(kind);
    detail::store_u32(entry.data() + 1, id);
    detail::store_u64(entry.data() + 5, oid);
    detail::store_u32(entry.data() + 13, static_cast<std::uint32_t>(key.size()));
    detail::store_u32(entry.data() + 17, static_cast<std::uint32_t>(value.size()));
    const auto key_bytes = detail::as_bytes(key);
    const auto value_bytes = detail::as_bytes(value);
    entry.insert(entry.end(), key_bytes.begin(), key_bytes.end());
    entry.insert(entry.end(), value_bytes.begin(), value_bytes.end());
    std::array<std::byte, 4> crc;
    detail::store_u32(crc.data(), detail::crc32c(entry.data(), entry.size()));
    entry.insert(entry.end(), crc.begin(), crc.end());
    file.insert(file.end(), entry.begin(), entry.end());
  };
  const std::size_t tables = input.byte() % 3;
  std::uint64_t entries = 0;
  for (std::uint32_t table = 0; table < tables; ++table) {
    const std::string name = decode_text(input, 8);
    add(1, table, 0, name, "");
    expected.emplace_back(1, table, 0, name, "");
    ++entries;
    const std::size_t rows = input.byte() % 4;
    for (std::size_t row = 0; row < rows; ++row) {
      const std::uint64_t oid = input.u64();
      const std::string key = decode_text(input, 10);
      const std::string value = decode_text(input, 20);
      add(2, table, oid, key, value);
      expected.emplace_back(2, table, oid, key, value);
      ++entries;
    }
  }
  add(3, 0, entries, "", "");
  const bool damaged = damage(input, file);
  check_checkpoint(file, damaged ? nullptr : &expected);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::byte> raw(reinterpret_cast<const std::byte*>(data) + 1, size - 1);
  fuzz_input input(data + 1, size - 1);
  switch (data[0] % 5) {
    case 0: scan_and_check(raw, true); break;
    case 1: scan_and_check(raw, false); break;
    case 2: check_checkpoint(raw, nullptr); break;
    case 3: structured_log(input); break;
    default: structured_checkpoint(input); break;
  }
  return 0;
}
