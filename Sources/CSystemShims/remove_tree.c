#define _GNU_SOURCE
#include "CSystemShims.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/// How deep a removal goes (one descriptor per level): what lies deeper stays.
#define SB_REMOVE_DEPTH 64
/// Passes over one folder: entries made while it is walked are found by the next pass.
#define SB_REMOVE_PASSES 4

/// Removes what the folder `fd` (already checked: ours, `device`) holds; 0 when all went, -1 otherwise.
static int empty_folder(int fd, dev_t device, int depth);

/// Opens the folder `name` in `parent` without following a link, checks that it is the one `expected`
/// describes (no swap since) and that we own it, and empties it; with `keep` it stays, else it is removed.
static int remove_folder_at(int parent, const char *name, const struct stat *expected, int depth, int keep) {
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat info;
    if (fstat(fd, &info) != 0 || info.st_dev != expected->st_dev || info.st_ino != expected->st_ino
        || info.st_uid != geteuid()) {
        close(fd);
        errno = EPERM;
        return -1;
    }
    int failed = 0;
    for (int pass = 0; pass < SB_REMOVE_PASSES; pass++) {
        failed = empty_folder(fd, info.st_dev, depth);
        if (failed) break;
        if (keep || unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT) break;
        if (errno != ENOTEMPTY && errno != EEXIST) {
            failed = -1;
            break;
        }
        failed = -1;  // filled meanwhile: another pass
    }
    int saved = errno;
    close(fd);
    errno = saved;
    return failed ? -1 : 0;
}

static int empty_folder(int fd, dev_t device, int depth) {
    int walk = dup(fd);
    if (walk < 0) return -1;
    DIR *folder = fdopendir(walk);
    if (folder == NULL) {
        close(walk);
        return -1;
    }
    rewinddir(folder);
    int failed = 0;
    struct dirent *entry;
    while ((entry = readdir(folder)) != NULL) {
        const char *name = entry->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) continue;
        struct stat info;
        if (fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno != ENOENT) failed = -1;
            continue;
        }
        if (S_ISDIR(info.st_mode)) {
            // Another file system mounted here, or too deep: left in place.
            if (info.st_dev != device || depth + 1 >= SB_REMOVE_DEPTH || remove_folder_at(fd, name, &info, depth + 1, 0) != 0) failed = -1;
        } else if (unlinkat(fd, name, 0) != 0 && errno != ENOENT) {
            failed = -1;  // a link is removed as itself: its target is never touched
        }
    }
    closedir(folder);
    return failed;
}

int sb_remove_tree_at(int parent_fd, const char *name, int keep_folder) {
    struct stat info;
    if (fstatat(parent_fd, name, &info, AT_SYMLINK_NOFOLLOW) != 0) return -1;
    if (!S_ISDIR(info.st_mode) || info.st_uid != geteuid()) {
        errno = EPERM;
        return -1;
    }
    return remove_folder_at(parent_fd, name, &info, 0, keep_folder);
}

int sb_remove_tree(const char *path, int keep_folder) {
    char *copy = strdup(path), *name_copy = strdup(path);
    if (copy == NULL || name_copy == NULL) {
        free(copy);
        free(name_copy);
        errno = ENOMEM;
        return -1;
    }
    int parent = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int result = -1;
    if (parent >= 0) {
        result = sb_remove_tree_at(parent, basename(name_copy), keep_folder);
        int saved = errno;
        close(parent);
        errno = saved;
    }
    free(copy);
    free(name_copy);
    return result;
}
