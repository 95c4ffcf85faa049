#include "CJanssonAlloc.h"

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

/* AddressSanitizer takes a kept block for memory still in use, so it could not see jansson touch a value
   it had freed: a kept block is poisoned until it is handed out again, all but its link to the next one
   (LeakSanitizer skips pointers in poisoned memory, and would report the rest of the list as leaked),
   and a block's header and the rest of its size class past the size asked for stay poisoned while it
   is in use. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SB_ADDRESS_SANITIZER 1
#endif
#endif
#ifdef SB_ADDRESS_SANITIZER
#include <sanitizer/asan_interface.h>
#define POISON(address, size) ASAN_POISON_MEMORY_REGION(address, size)
#define UNPOISON(address, size) ASAN_UNPOISON_MEMORY_REGION(address, size)
#else
#define POISON(address, size) ((void)(address), (void)(size))
#define UNPOISON(address, size) ((void)(address), (void)(size))
#endif

enum {
    /// Each block starts with a header holding its size class; 16 bytes keep malloc's alignment.
    HEADER = 16,
    STEP = 16,
    CLASSES = 16, /* blocks of 16, 32, ... 256 bytes */
    KEPT_BYTES = 512 << 10,
};

struct free_block {
    struct free_block *next;
};

/// Where a thread's list is in its life: blocks are kept only while it is `KEEPING`.
enum cache_state { UNREGISTERED, KEEPING, RELEASED };

struct cache {
    struct free_block *heads[CLASSES];
    size_t bytes;
    enum cache_state state;
};

static __thread struct cache cache;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static int keeps_blocks;

/// At thread exit: the blocks the thread kept go back to malloc, and so does every block it frees
/// from now on (other destructors of the exiting thread may still free jansson values).
static void release_cache(void *value) {
    struct cache *kept = value;
    kept->state = RELEASED;
    for (int index = 0; index < CLASSES; index++) {
        struct free_block *block = kept->heads[index];
        while (block) {
            UNPOISON(block, sizeof *block);
            struct free_block *next = block->next;
            free((char *)block - HEADER);
            block = next;
        }
        kept->heads[index] = NULL;
    }
    kept->bytes = 0;
}

static void make_exit_key(void) { pthread_key_create(&exit_key, release_cache); }

void *sb_jansson_malloc(size_t size) {
    // Past this, rounding up to the class or adding the header would wrap to a small block.
    if (size > SIZE_MAX / 2) return NULL;
    size_t class = size <= STEP ? 1 : (size + STEP - 1) / STEP;
    size_t rounded = size;
    if (class <= CLASSES) {
        struct free_block *block = cache.heads[class - 1];
        if (block) {
            UNPOISON(block, sizeof *block);
            cache.heads[class - 1] = block->next;
            cache.bytes -= class * STEP;
            POISON(block, class * STEP);
            UNPOISON(block, size);
            return block;
        }
        rounded = class * STEP;
    } else {
        class = 0;
    }
    char *raw = malloc(HEADER + rounded);
    if (!raw) return NULL;
    *(size_t *)raw = class;
    POISON(raw, HEADER);
    POISON(raw + HEADER + size, rounded - size);
    return raw + HEADER;
}

void sb_jansson_free(void *block) {
    if (!block) return;
    char *raw = (char *)block - HEADER;
    UNPOISON(raw, HEADER);
    size_t class = *(size_t *)raw;
    if (class && keeps_blocks && cache.state != RELEASED && cache.bytes + class * STEP <= KEPT_BYTES) {
        if (cache.state == UNREGISTERED) {
            pthread_once(&exit_key_once, make_exit_key);
            pthread_setspecific(exit_key, &cache);
            cache.state = KEEPING;
        }
        POISON(raw, HEADER);
        UNPOISON(block, sizeof(struct free_block));
        struct free_block *freed = block;
        freed->next = cache.heads[class - 1];
        cache.heads[class - 1] = freed;
        cache.bytes += class * STEP;
        POISON(freed + 1, class * STEP - sizeof *freed);
        return;
    }
    free(raw);
}

size_t sb_jansson_cached_bytes(void) { return cache.bytes; }

/// Under valgrind blocks are not kept (memcheck then sees every free), unless
/// SWITCHBOARD_JANSSON_BLOCKS=keep asks for them, to count instructions of the real thing (callgrind).
__attribute__((constructor)) static void install(void) {
    const char *blocks = getenv("SWITCHBOARD_JANSSON_BLOCKS");
    keeps_blocks = !RUNNING_ON_VALGRIND || (blocks && strcmp(blocks, "keep") == 0);
    json_set_alloc_funcs(sb_jansson_malloc, sb_jansson_free);
}
