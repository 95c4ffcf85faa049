#ifndef SWITCHBOARD_CJANSSONALLOC_H
#define SWITCHBOARD_CJANSSONALLOC_H
#include <stddef.h>

/// jansson's allocator in this process (installed before main by a constructor, so every jansson
/// value is allocated and freed by it): small blocks (up to 256 bytes, which is nearly every value,
/// object slot and key jansson makes) are kept for reuse in per-thread lists, up to 512 KiB a
/// thread, instead of going back to malloc one by one. A page of 50 feed items makes ~1,650 such
/// blocks; through malloc they overflowed its per-thread cache into the shared bins, which cost a
/// lock or an atomic each and a consolidation pass on the next large allocation. A thread's blocks go
/// back to malloc when it exits. Under valgrind nothing is kept, so memcheck sees every free
/// (SWITCHBOARD_JANSSON_BLOCKS=keep keeps them there too, for instruction counts).
void *sb_jansson_malloc(size_t size);
void sb_jansson_free(void *block);

/// Bytes the calling thread keeps for reuse (for tests).
size_t sb_jansson_cached_bytes(void);
#endif
