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

/// The steps of sb_spawn_confined that can fail, as `failed_step` reports them.
enum {
    SB_SPAWN_STEP_DESCRIPTORS = 1,
    SB_SPAWN_STEP_CHDIR = 2,
    SB_SPAWN_STEP_NAMESPACE = 3,
    SB_SPAWN_STEP_ID_MAP = 4,
    SB_SPAWN_STEP_LOOPBACK = 5,
    SB_SPAWN_STEP_NO_NEW_PRIVS = 6,
    SB_SPAWN_STEP_LANDLOCK = 7,
    SB_SPAWN_STEP_LIMITS = 8,
    SB_SPAWN_STEP_EXEC = 9,
    SB_SPAWN_STEP_PROXY = 10,
    SB_SPAWN_STEP_CGROUP = 11,
};

#define SB_CONFINEMENT_MAX_LIMITS 8

/// What sb_spawn_confined applies in the child between fork and exec: first, with `join_cgroup`, it moves itself
/// into a cgroup by writing "0" to `cgroup_procs_fd` (that cgroup's `tasks` on v1, `cgroup.procs` on v2, opened by
/// the host; it has one thread then), so its
/// process count is bounded before anything else runs; then a user namespace of its own (uid and
/// gid mapped to themselves; with `network_namespace`, a network namespace too, only loopback, up), then
/// PR_SET_NO_NEW_PRIVS, then the Landlock ruleset `ruleset_fd` (-1: none), then, once its descriptors are
/// in place, the resource limits (setrlimit, soft and hard alike). With a network namespace and `proxy_port`,
/// the child also listens on 127.0.0.1:`proxy_port` inside it and sends that listening socket over the Unix
/// socket `proxy_channel` (SCM_RIGHTS) before closing its copy: the host accepts the plugin's connections there.
/// With `enter_namespaces` (not with `proxy_port`), the child enters the namespaces `user_ns_fd` and (with
/// `network_namespace`) `net_ns_fd` (setns) instead of making new ones: those an earlier run made, with their
/// maps and loopback set.
/// With `send_namespaces`, the child sends the namespaces it made (/proc/self/ns/user, then net) over the Unix
/// socket `namespace_channel` (SCM_RIGHTS), so the host can keep them for later runs.
typedef struct sb_confinement {
    int user_namespace;
    int network_namespace;
    int enter_namespaces;
    int user_ns_fd;
    int net_ns_fd;
    int send_namespaces;
    int namespace_channel;
    int proxy_port;
    int proxy_channel;
    int no_new_privs;
    int ruleset_fd;
    int limit_count;
    int limit_resources[SB_CONFINEMENT_MAX_LIMITS];
    unsigned long long limit_values[SB_CONFINEMENT_MAX_LIMITS];
    int join_cgroup;
    int cgroup_procs_fd;
} sb_confinement;

/// sb_spawn_plugin, confined by `confinement` (NULL: not at all). When it returns -1, `failed_step` (if not
/// NULL) says which step failed (0: the fork itself), errno why; the child never runs the program then.
pid_t sb_spawn_confined(const char *path, char *const argv[], char *const envp[], const char *cwd,
                        int in_fd, int out_fd, int err_fd, const sb_confinement *confinement, int *failed_step);

/// Landlock's ABI version on this kernel (landlock_create_ruleset with LANDLOCK_CREATE_RULESET_VERSION), or
/// -errno (-ENOSYS: not built in; -EOPNOTSUPP: built in but off).
int sb_landlock_abi(void);

/// A Landlock ruleset handling these access rights (fs, TCP ports from ABI 4, scopes from ABI 6): its
/// descriptor (close-on-exec), or -1 with errno set.
int sb_landlock_create_ruleset(unsigned long long handled_fs, unsigned long long handled_net, unsigned long long scoped);

/// Which file a path named: its device and inode (`present` 0: the path could not be opened or stat-ed).
typedef struct sb_file_identity {
    unsigned long long device;
    unsigned long long inode;
    int present;
} sb_file_identity;

/// Allows `access` beneath the file or folder `path` (for a file, only its file rights); sets `*identity` (if
/// not NULL) to the file the rule holds. Returns 0, or -1 with errno set (ENOENT: it does not exist).
int sb_landlock_allow_path(int ruleset_fd, const char *path, unsigned long long access, sb_file_identity *identity);

/// Whether each of the `count` paths in `paths` (one after another, each ending in NUL; `length` bytes in all)
/// still names the file in `identities` (stat, following links), and each absent one still cannot be reached
/// (ENOENT or EACCES). Returns 1 when all do, 0 when one does not.
int sb_files_unchanged(const char *paths, size_t length, const sb_file_identity *identities, int count);

/// Allows `access` (bind 1, connect 2) to the TCP port `port`. Returns 0, or -1 with errno set.
int sb_landlock_allow_port(int ruleset_fd, unsigned long long port, unsigned long long access);

/// Restricts the calling thread by the ruleset (it must have no_new_privs). Returns 0, or -1 with errno set.
int sb_landlock_restrict_self(int ruleset_fd);

/// Whether a child may have a user namespace of its own (and a network namespace, with `network`): tried in a
/// child that exits at once. Returns 0, or -errno (EPERM: not allowed to unprivileged users here).
int sb_probe_namespaces(int network);

/// Removes the folder `name` in the folder `parent_fd` and everything beneath it (`keep_folder`: empties it),
/// following no symbolic link (each is removed as itself; openat with O_NOFOLLOW, fstatat with
/// AT_SYMLINK_NOFOLLOW, unlinkat), staying on its file system, and only folders the effective user owns: a
/// `name` that is not such a folder is left alone (EPERM). Best effort, 64 levels deep at most: what cannot be
/// removed stays. Returns 0 when it is gone (emptied), -1 with errno set otherwise.
int sb_remove_tree_at(int parent_fd, const char *name, int keep_folder);

/// sb_remove_tree_at for the path `path` (its parent folder opened as named).
int sb_remove_tree(const char *path, int keep_folder);

/// The descriptor waiting on the Unix socket `channel` (SCM_RIGHTS), without blocking; -1 with errno set.
int sb_receive_descriptor(int channel);

/// Up to `max` (at most 4) descriptors of the message waiting on the Unix socket `channel` (SCM_RIGHTS), without
/// blocking, into `fds`: their count, or -1 with errno set.
int sb_receive_descriptors(int channel, int *fds, int max);

/// Copies bytes both ways between the connected sockets `a` and `b` until both directions have ended (an end
/// read passes on as a shutdown for writing) or one fails; blocks the calling thread. Closes neither.
void sb_relay(int a, int b);

/// pipe2(fds, O_CLOEXEC): a pipe whose ends no child inherits by accident.
int sb_pipe_cloexec(int fds[2]);

/// glibc's mallopt(M_ARENA_MAX, count): at most `count` malloc arenas from now on (arenas already made
/// stay). Returns 1 on success, 0 on failure, and 0 without glibc.
int sb_malloc_cap_arenas(int count);

/// glibc's malloc_trim(0): gives the free memory at the top of the main heap and the free pages inside
/// every arena back to the system. Returns 1 if memory was released, else 0 (also without glibc).
int sb_malloc_trim(void);
#endif
