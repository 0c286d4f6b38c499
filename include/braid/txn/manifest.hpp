// manifest: what makes a directory a braid database — a file "MANIFEST" holding the file
// header of on_disk.hpp (magic "BRAIDDB\0", database_format_version, number 0, checksum).
//
//   std::string message;
//   if (braid::txn::open_database_directory(dir, message) != braid::txn::status::ok) puts(message);
//
// open_database_directory creates the directory (and its parents) and the manifest when the
// directory is absent or empty; the manifest is written as MANIFEST.tmp, fdatasynced, renamed,
// and the directory fsynced, so a crash leaves either no manifest or a whole one. A directory
// holding only a leftover MANIFEST.tmp counts as empty. Otherwise:
//   a path that is not a directory, or a non-empty directory without MANIFEST -> not_a_database
//   a MANIFEST of another kind (wrong magic or size)                         -> not_a_database
//   a manifest of another format version                                     -> format_mismatch
//   a manifest failing its checksum                                          -> corrupt
//   the operating system refusing                                            -> io_error
// each with a message naming the path. Complexity O(entries of the directory).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "braid/txn/status.hpp"

namespace braid::txn {

status open_database_directory(const std::filesystem::path& directory, std::string& message);
inline constexpr std::uint32_t database_format_version = 1;

}  // namespace braid::txn
