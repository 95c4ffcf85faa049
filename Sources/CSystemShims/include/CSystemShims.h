#ifndef SWITCHBOARD_CSYSTEMSHIMS_H
#define SWITCHBOARD_CSYSTEMSHIMS_H
#include <sys/types.h>

/// Opens a pidfd for `pid` (Linux pidfd_open); it becomes readable when the process exits.
/// Returns the descriptor, or -1 with errno set.
int sb_pidfd_open(pid_t pid);

/// Blocks SIGTERM, SIGINT, SIGHUP and SIGPIPE in the calling thread (and threads it creates later),
/// so a dedicated thread can take the first three with sigwait; SIGPIPE becomes an EPIPE write error.
int sb_block_host_signals(void);

/// Waits for SIGTERM, SIGINT or SIGHUP; returns the signal number, or -1.
int sb_wait_host_signal(void);

/// Opens `relative` (a canonical path: no "..", no "." and no empty components) beneath the
/// directory `rootfd`, following no symbolic link on the way: openat2 with RESOLVE_BENEATH,
/// RESOLVE_NO_SYMLINKS and RESOLVE_NO_MAGICLINKS where the kernel has it, else a walk that opens one
/// component at a time with O_NOFOLLOW. `flags` are open flags for the last component.
/// Returns the descriptor, or -1 with errno set (ELOOP: a symbolic link was in the way).
int sb_open_beneath(int rootfd, const char *relative, int flags);

/// The fallback of sb_open_beneath on its own (component by component with O_NOFOLLOW), so tests
/// can exercise it on kernels that have openat2.
int sb_open_beneath_walk(int rootfd, const char *relative, int flags);

/// Opens the folder `path` as a handle for the *at calls (O_PATH | O_DIRECTORY), or -1 with errno set.
int sb_open_folder(const char *path);

/// The type of the file system `fd` lies on (statfs f_type, e.g. 0x9fa0 for proc), or -1 with errno set.
long long sb_file_system_type(int fd);
#endif
