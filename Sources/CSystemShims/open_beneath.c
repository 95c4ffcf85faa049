#define _GNU_SOURCE
#include "CSystemShims.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <sys/vfs.h>
#ifdef __linux__
#include <sys/syscall.h>
#include <linux/openat2.h>
#endif

int sb_open_beneath_walk(int rootfd, const char *relative, int flags) {
    size_t length = strlen(relative);
    if (length == 0 || length >= PATH_MAX || relative[0] == '/') {
        errno = EINVAL;
        return -1;
    }
    char path[PATH_MAX];
    memcpy(path, relative, length + 1);
    int dirfd = rootfd;
    char *component = path;
    for (;;) {
        char *slash = strchr(component, '/');
        if (slash != NULL) *slash = '\0';
        if (component[0] == '\0' || strcmp(component, ".") == 0 || strcmp(component, "..") == 0) {
            if (dirfd != rootfd) close(dirfd);
            errno = EINVAL;
            return -1;
        }
        int next = slash != NULL
            ? openat(dirfd, component, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            : openat(dirfd, component, flags | O_NOFOLLOW | O_CLOEXEC);
        int saved = errno;
        if (dirfd != rootfd) close(dirfd);
        if (next < 0) {
            // A link where a folder was gives ENOTDIR (O_DIRECTORY|O_NOFOLLOW), the last one ELOOP.
            errno = saved;
            return -1;
        }
        if (slash == NULL) return next;
        dirfd = next;
        component = slash + 1;
    }
}

int sb_open_beneath(int rootfd, const char *relative, int flags) {
#if defined(__linux__) && defined(SYS_openat2)
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (unsigned long long)(flags | O_CLOEXEC);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    long fd = syscall(SYS_openat2, rootfd, relative, &how, sizeof how);
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG)) return (int)fd;
    // ENOSYS: an older kernel; EPERM: a seccomp filter that refuses the call.
#endif
    return sb_open_beneath_walk(rootfd, relative, flags);
}

long long sb_file_system_type(int fd) {
    struct statfs info;
    if (fstatfs(fd, &info) != 0) return -1;
    return (long long)info.f_type;
}

int sb_open_folder(const char *path) {
    return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}
