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

struct cache {
    struct free_block *heads[CLASSES];
    size_t bytes;
    int registered;
};

static __thread struct cache cache;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static int keeps_blocks;

/// At thread exit: the blocks the thread kept go back to malloc.
static void release_cache(void *value) {
    struct cache *kept = value;
    for (int index = 0; index < CLASSES; index++) {
        struct free_block *block = kept->heads[index];
        while (block) {
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
    size_t class = size <= STEP ? 1 : (size + STEP - 1) / STEP;
    if (class <= CLASSES) {
        struct free_block *block = cache.heads[class - 1];
        if (block) {
            cache.heads[class - 1] = block->next;
            cache.bytes -= class * STEP;
            return block;
        }
        size = class * STEP;
    } else {
        class = 0;
    }
    char *raw = malloc(HEADER + size);
    if (!raw) return NULL;
    *(size_t *)raw = class;
    return raw + HEADER;
}

void sb_jansson_free(void *block) {
    if (!block) return;
    char *raw = (char *)block - HEADER;
    size_t class = *(size_t *)raw;
    if (class && keeps_blocks && cache.bytes + class * STEP <= KEPT_BYTES) {
        if (!cache.registered) {
            pthread_once(&exit_key_once, make_exit_key);
            pthread_setspecific(exit_key, &cache);
            cache.registered = 1;
        }
        struct free_block *freed = block;
        freed->next = cache.heads[class - 1];
        cache.heads[class - 1] = freed;
        cache.bytes += class * STEP;
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
