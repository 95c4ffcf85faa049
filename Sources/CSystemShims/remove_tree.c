#define _GNU_SOURCE
#include "CSystemShims.h"
#include <ftw.h>
#include <stdio.h>

static int remove_entry(const char *path, const struct stat *info, int type, struct FTW *walk) {
    (void)info;
    (void)type;
    (void)walk;
    remove(path);
    return 0;
}

void sb_remove_tree(const char *path) {
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}
