// Whether this translation unit is built with ThreadSanitizer (GCC's and Clang's spellings).
// Code whose ordering the sanitizer cannot see (an inline-asm fence, a hardware transaction)
// takes its standard-library or latched form when it is, so that the sanitizer checks what runs.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define BRAID_HAS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BRAID_HAS_TSAN 1
#endif
#endif

namespace braid::detail {

#if defined(BRAID_HAS_TSAN)
inline constexpr bool thread_sanitized = true;
#else
inline constexpr bool thread_sanitized = false;
#endif

}  // namespace braid::detail
