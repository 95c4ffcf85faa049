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

/// For the interactive prompt: SIGINT, SIGTERM, SIGHUP and SIGWINCH each write their number, as one byte, to
/// `write_fd` (non-blocking; a full pipe drops the byte), so the prompt's poll loop sees them as input.
/// Returns 0, or -1 with errno set.
int sb_forward_signals_to_pipe(int write_fd);

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

/// Starts a child process for a plugin: `path` run with `argv` and exactly the environment `envp`, in
/// the folder `cwd`, its stdin, stdout and stderr being `in_fd`, `out_fd` and `err_fd` and no other
/// descriptor of ours. The child gets default signal dispositions and an empty signal mask, a process
/// group of its own, and PR_SET_PDEATHSIG(SIGKILL) (which fires when the calling *thread* ends: call it
/// from a thread that lives as long as the process). Returns the pid, or -1 with errno set (also when
/// the program could not be executed: then the child has already exited and been reaped).
pid_t sb_spawn_plugin(const char *path, char *const argv[], char *const envp[], const char *cwd,
                      int in_fd, int out_fd, int err_fd);

/// pipe2(fds, O_CLOEXEC): a pipe whose ends no child inherits by accident.
int sb_pipe_cloexec(int fds[2]);

/// glibc's mallopt(M_ARENA_MAX, count): at most `count` malloc arenas from now on (arenas already made
/// stay). Returns 1 on success, 0 on failure, and 0 without glibc.
int sb_malloc_cap_arenas(int count);

/// glibc's malloc_trim(0): gives the free memory at the top of the main heap and the free pages inside
/// every arena back to the system. Returns 1 if memory was released, else 0 (also without glibc).
int sb_malloc_trim(void);
#endif
