#define _GNU_SOURCE
#include "CSystemShims.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

// Landlock's interface, defined here: Debian's headers may be older than the kernel (or lack it). The
// syscall numbers are the same on every architecture (they came after the numbering was unified).
#define SB_NR_landlock_create_ruleset 444
#define SB_NR_landlock_add_rule 445
#define SB_NR_landlock_restrict_self 446
#define SB_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define SB_LANDLOCK_RULE_PATH_BENEATH 1
#define SB_LANDLOCK_RULE_NET_PORT 2

struct sb_landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;  // ABI 4
    uint64_t scoped;              // ABI 6
};

struct sb_landlock_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

struct sb_landlock_net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};

int sb_landlock_abi(void) {
#ifdef __linux__
    long abi = syscall(SB_NR_landlock_create_ruleset, NULL, 0, SB_LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? -errno : (int)abi;
#else
    return -ENOSYS;
#endif
}

int sb_landlock_create_ruleset(unsigned long long handled_fs, unsigned long long handled_net, unsigned long long scoped) {
#ifdef __linux__
    struct sb_landlock_ruleset_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.handled_access_fs = handled_fs;
    attr.handled_access_net = handled_net;
    attr.scoped = scoped;
    // An older kernel takes the larger struct as long as the members it does not know are zero.
    size_t size = scoped != 0 ? sizeof attr : handled_net != 0 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
    long fd = syscall(SB_NR_landlock_create_ruleset, &attr, size, 0U);
    return (int)fd;
#else
    errno = ENOSYS;
    return -1;
#endif
}

int sb_landlock_allow_path(int ruleset_fd, const char *path, unsigned long long access, sb_file_identity *identity) {
#ifdef __linux__
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat info;
    if (fstat(fd, &info) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    int directory = S_ISDIR(info.st_mode);
    if (identity != NULL) {
        identity->device = (unsigned long long)info.st_dev;
        identity->inode = (unsigned long long)info.st_ino;
        identity->present = 1;
    }
    struct sb_landlock_path_beneath_attr attr;
    memset(&attr, 0, sizeof attr);
    // A file takes only the rights that apply to files: execute, write, read, truncate, ioctl on devices.
    attr.allowed_access = directory ? access : access & ((1ULL << 0) | (1ULL << 1) | (1ULL << 2) | (1ULL << 14) | (1ULL << 15));
    attr.parent_fd = fd;
    long result = syscall(SB_NR_landlock_add_rule, ruleset_fd, SB_LANDLOCK_RULE_PATH_BENEATH, &attr, 0U);
    int saved = errno;
    close(fd);
    errno = saved;
    return result < 0 ? -1 : 0;
#else
    errno = ENOSYS;
    return -1;
#endif
}

int sb_landlock_allow_port(int ruleset_fd, unsigned long long port, unsigned long long access) {
#ifdef __linux__
    struct sb_landlock_net_port_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.allowed_access = access;
    attr.port = port;
    return syscall(SB_NR_landlock_add_rule, ruleset_fd, SB_LANDLOCK_RULE_NET_PORT, &attr, 0U) < 0 ? -1 : 0;
#else
    errno = ENOSYS;
    return -1;
#endif
}

int sb_landlock_restrict_self(int ruleset_fd) {
#ifdef __linux__
    return syscall(SB_NR_landlock_restrict_self, ruleset_fd, 0U) < 0 ? -1 : 0;
#else
    errno = ENOSYS;
    return -1;
#endif
}

int sb_files_unchanged(const char *paths, size_t length, const sb_file_identity *identities, int count) {
    size_t at = 0;
    for (int index = 0; index < count; index++) {
        if (at >= length) return 0;
        const char *path = paths + at;
        size_t size = strnlen(path, length - at);
        if (size == length - at) return 0;  // no NUL left: not the list it should be
        at += size + 1;
        struct stat info;
        if (stat(path, &info) != 0) {
            if (identities[index].present || (errno != ENOENT && errno != EACCES)) return 0;
        } else if (!identities[index].present || (unsigned long long)info.st_dev != identities[index].device
                   || (unsigned long long)info.st_ino != identities[index].inode) {
            return 0;
        }
    }
    return 1;
}
