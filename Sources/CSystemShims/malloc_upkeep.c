#include "CSystemShims.h"
#ifdef __GLIBC__
#include <malloc.h>
#endif

int sb_malloc_cap_arenas(int count) {
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
    return mallopt(M_ARENA_MAX, count);
#else
    (void)count;
    return 0;
#endif
}

int sb_malloc_trim(void) {
#ifdef __GLIBC__
    return malloc_trim(0);
#else
    return 0;
#endif
}
