// braid's version: the one place it is written. CMake reads it for the package version
// (find_package(braid 0.2 CONFIG)), the pkg-config file and the library's SOVERSION-free
// VERSION property; CHANGELOG.md says what each version changed. 0.x: a minor version may
// change the API.
#pragma once

#define BRAID_VERSION_MAJOR 0
#define BRAID_VERSION_MINOR 2
#define BRAID_VERSION_PATCH 0

namespace braid {

struct version_number {
  int major;
  int minor;
  int patch;
};

inline constexpr version_number version{BRAID_VERSION_MAJOR, BRAID_VERSION_MINOR, BRAID_VERSION_PATCH};

}  // namespace braid
