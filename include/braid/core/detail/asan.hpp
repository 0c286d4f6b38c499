// AddressSanitizer annotations for memory braid recycles itself (frame pool, fiber stacks):
// poisoned while free, so a use after free is reported even though the heap never sees it.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define BRAID_HAS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BRAID_HAS_ASAN 1
#endif
#endif

#if defined(BRAID_HAS_ASAN)
#include <sanitizer/asan_interface.h>
#define BRAID_POISON(address, bytes) ASAN_POISON_MEMORY_REGION(address, bytes)
#define BRAID_UNPOISON(address, bytes) ASAN_UNPOISON_MEMORY_REGION(address, bytes)
#else
#define BRAID_POISON(address, bytes) ((void)(address), (void)(bytes))
#define BRAID_UNPOISON(address, bytes) ((void)(address), (void)(bytes))
#endif
