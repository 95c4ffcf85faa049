#define _GNU_SOURCE
#include "CSystemShims.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#endif

/// Closes every descriptor from 3 up, by close_range where the kernel has it, else one by one.
static void close_other_descriptors(void) {
#if defined(__linux__) && defined(SYS_close_range)
    if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (max > 0 ? max : 1024); fd++) close((int)fd);
}

/// Moves `fd` to `target`, clearing close-on-exec.
static int move_to(int fd, int target) {
    if (fd == target) return fcntl(fd, F_SETFD, 0);
    return dup2(fd, target) < 0 ? -1 : 0;
}

#ifdef __linux__
/// Writes `text` to the file `path` (a /proc/self file); 0, or -1 with errno set.
static int write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t length = strlen(text);
    ssize_t written = write(fd, text, length);
    int saved = errno;
    close(fd);
    if (written == (ssize_t)length) return 0;
    errno = written < 0 ? saved : EIO;
    return -1;
}

/// "ID ID 1\n" into `line` (at least 32 bytes): the id mapped to itself. No stdio between vfork and exec.
static void identity_map(unsigned id, char *line) {
    char digits[12];
    int count = 0;
    do { digits[count++] = (char)('0' + id % 10); id /= 10; } while (id != 0);
    int at = 0;
    for (int copy = 0; copy < 2; copy++) {
        for (int index = count - 1; index >= 0; index--) line[at++] = digits[index];
        line[at++] = ' ';
    }
    line[at++] = '1';
    line[at++] = '\n';
    line[at] = 0;
}

/// A message of one byte with room for descriptors (SCM_RIGHTS) in `control`.
static void descriptor_message(struct msghdr *message, struct iovec *vector, char *byte, char *control, size_t size) {
    vector->iov_base = byte;
    vector->iov_len = 1;
    memset(message, 0, sizeof *message);
    message->msg_iov = vector;
    message->msg_iovlen = 1;
    message->msg_control = control;
    message->msg_controllen = size;
}

/// Sends `count` (1...4) descriptors over the Unix socket `channel` in one message; 0, or -1 with errno set.
static int send_descriptors(int channel, const int *fds, int count) {
    char control[CMSG_SPACE(4 * sizeof(int))];
    memset(control, 0, sizeof control);
    char byte = 'D';
    struct iovec vector;
    struct msghdr message;
    descriptor_message(&message, &vector, &byte, control, CMSG_SPACE((size_t)count * sizeof(int)));
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN((size_t)count * sizeof(int));
    memcpy(CMSG_DATA(header), fds, (size_t)count * sizeof(int));
    return sendmsg(channel, &message, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/// In the child, in its network namespace: listens on 127.0.0.1:proxy_port and sends the socket to the host.
static int send_proxy_listener(const sb_confinement *confinement) {
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0) return SB_SPAWN_STEP_PROXY;
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((unsigned short)confinement->proxy_port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int failed = bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 64) != 0
        || send_descriptors(confinement->proxy_channel, &listener, 1) != 0;
    int saved = errno;
    close(listener);
    errno = saved;
    return failed ? SB_SPAWN_STEP_PROXY : 0;
}

/// In the child: sends the namespaces it made (user, and network with `network_namespace`) to the host.
static int send_namespaces(const sb_confinement *confinement) {
    int fds[2] = {open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC), -1};
    int count = 1;
    if (confinement->network_namespace) fds[count++] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    int failed = fds[0] < 0 || (count == 2 && fds[1] < 0) || send_descriptors(confinement->namespace_channel, fds, count) != 0;
    int saved = errno;
    for (int index = 0; index < count; index++) if (fds[index] >= 0) close(fds[index]);
    errno = saved;
    return failed ? SB_SPAWN_STEP_NAMESPACE : 0;
}

/// In the child: enters the namespaces an earlier run made (user first: it gives the rights to enter the
/// network namespace it owns). Returns 0, or the step that failed with errno set.
static int reenter_namespaces(const sb_confinement *confinement) {
    if (setns(confinement->user_ns_fd, CLONE_NEWUSER) != 0) return SB_SPAWN_STEP_NAMESPACE;
    if (confinement->network_namespace && setns(confinement->net_ns_fd, CLONE_NEWNET) != 0) return SB_SPAWN_STEP_NAMESPACE;
    return 0;
}

/// In the child: a user namespace of its own (our uid and gid mapped to themselves), and if asked a network
/// namespace of its own with its loopback up. Returns 0, or the step that failed with errno set.
static int enter_namespaces(const sb_confinement *confinement, unsigned uid, unsigned gid) {
    if (confinement->enter_namespaces) return reenter_namespaces(confinement);
    if (unshare(CLONE_NEWUSER | (confinement->network_namespace ? CLONE_NEWNET : 0)) != 0) return SB_SPAWN_STEP_NAMESPACE;
    char line[32];
    if (write_file("/proc/self/setgroups", "deny") != 0 && errno != ENOENT) return SB_SPAWN_STEP_ID_MAP;
    identity_map(uid, line);
    if (write_file("/proc/self/uid_map", line) != 0) return SB_SPAWN_STEP_ID_MAP;
    identity_map(gid, line);
    if (write_file("/proc/self/gid_map", line) != 0) return SB_SPAWN_STEP_ID_MAP;
    if (!confinement->network_namespace) return confinement->send_namespaces ? send_namespaces(confinement) : 0;
    int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sock < 0) return SB_SPAWN_STEP_LOOPBACK;
    struct ifreq request;
    memset(&request, 0, sizeof request);
    memcpy(request.ifr_name, "lo", 3);
    int failed = ioctl(sock, SIOCGIFFLAGS, &request) != 0;
    if (!failed) {
        request.ifr_flags |= IFF_UP;
        failed = ioctl(sock, SIOCSIFFLAGS, &request) != 0;
    }
    int saved = errno;
    close(sock);
    errno = saved;
    if (failed) return SB_SPAWN_STEP_LOOPBACK;
    if (confinement->send_namespaces && send_namespaces(confinement) != 0) return SB_SPAWN_STEP_NAMESPACE;
    return confinement->proxy_port > 0 ? send_proxy_listener(confinement) : 0;
}

/// In the child: its pids cgroup, namespaces, no new privileges, the Landlock ruleset. Returns 0, or the step
/// that failed.
static int confine_self(const sb_confinement *confinement, unsigned uid, unsigned gid) {
    // Into its cgroup first, while it still has the host's credentials: "0" moves the writing process.
    if (confinement->join_cgroup && write(confinement->cgroup_procs_fd, "0", 1) != 1) return SB_SPAWN_STEP_CGROUP;
    if (confinement->user_namespace || confinement->network_namespace) {
        int step = enter_namespaces(confinement, uid, gid);
        if (step != 0) return step;
    }
    if (confinement->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return SB_SPAWN_STEP_NO_NEW_PRIVS;
    if (confinement->ruleset_fd >= 0 && sb_landlock_restrict_self(confinement->ruleset_fd) != 0) return SB_SPAWN_STEP_LANDLOCK;
    return 0;
}

/// In the child, once its descriptors are in place: the resource limits. Returns 0, or the step that failed.
static int apply_limits(const sb_confinement *confinement) {
    for (int index = 0; index < confinement->limit_count && index < SB_CONFINEMENT_MAX_LIMITS; index++) {
        struct rlimit limit = {(rlim_t)confinement->limit_values[index], (rlim_t)confinement->limit_values[index]};
        if (setrlimit(confinement->limit_resources[index], &limit) != 0) return SB_SPAWN_STEP_LIMITS;
    }
    return 0;
}
#endif

pid_t sb_spawn_plugin(const char *path, char *const argv[], char *const envp[], const char *cwd,
                      int in_fd, int out_fd, int err_fd) {
    return sb_spawn_confined(path, argv, envp, cwd, in_fd, out_fd, err_fd, NULL, NULL);
}

pid_t sb_spawn_confined(const char *path, char *const argv[], char *const envp[], const char *cwd,
                        int in_fd, int out_fd, int err_fd, const sb_confinement *confinement, int *failed_step) {
    // Nothing may interrupt the child between vfork and exec with one of our handlers: block every
    // signal here, and let the child reset dispositions and unblock them itself.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pid_t parent = getpid();
    unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
    // vfork: the parent waits until the child has exec'd or exited, so the child may write `failure`
    // and `step`: every error between fork and exec reaches the caller, none leaves a child unconfined.
    volatile int failure = 0, step = 0;
    pid_t pid = vfork();
    if (pid == 0) {
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
#endif
        setpgid(0, 0);
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = SIG_DFL;
        sigemptyset(&action.sa_mask);
        for (int number = 1; number < NSIG; number++) {
#if defined(__linux__) && defined(SYS_rt_sigaction)
            // glibc's sigaction refuses the signals it keeps for itself (32, 33); the kernel's call does
            // not. An all-zero kernel sigaction is SIG_DFL with no flags and an empty mask.
            unsigned long zero[4] = {0, 0, 0, 0};
            if (sigaction(number, &action, NULL) != 0) syscall(SYS_rt_sigaction, number, zero, NULL, sizeof(unsigned long));
#else
            sigaction(number, &action, NULL);
#endif
        }
#ifdef __linux__
        if (confinement != NULL) {
            int failed = confine_self(confinement, uid, gid);
            if (failed != 0) {
                failure = errno != 0 ? errno : EPERM;
                step = failed;
                _exit(127);
            }
        }
#endif
        // The descriptors may sit on 0-2 themselves: lift them above first.
        int in = fcntl(in_fd, F_DUPFD_CLOEXEC, 3), out = fcntl(out_fd, F_DUPFD_CLOEXEC, 3), err = fcntl(err_fd, F_DUPFD_CLOEXEC, 3);
        if (in < 0 || out < 0 || err < 0 || move_to(in, 0) < 0 || move_to(out, 1) < 0 || move_to(err, 2) < 0) {
            failure = errno;
            step = SB_SPAWN_STEP_DESCRIPTORS;
            _exit(127);
        }
        close_other_descriptors();
        if (cwd != NULL && chdir(cwd) != 0) {
            failure = errno;
            step = SB_SPAWN_STEP_CHDIR;
            _exit(127);
        }
#ifdef __linux__
        if (confinement != NULL && apply_limits(confinement) != 0) {
            failure = errno;
            step = SB_SPAWN_STEP_LIMITS;
            _exit(127);
        }
#endif
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(path, argv, envp);
        failure = errno;
        step = SB_SPAWN_STEP_EXEC;
        _exit(127);
    }
    int saved = errno;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (pid < 0) {
        errno = saved;
        return -1;
    }
    if (failure != 0) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        if (failed_step != NULL) *failed_step = step;
        errno = failure;
        return -1;
    }
    return pid;
}

int sb_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int sb_probe_namespaces(int network) {
#ifdef __linux__
    volatile int failure = 0;
    pid_t pid = vfork();
    if (pid == 0) {
        if (unshare(CLONE_NEWUSER | (network ? CLONE_NEWNET : 0)) != 0) failure = errno;
        _exit(0);
    }
    if (pid < 0) return -errno;
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return failure == 0 ? 0 : -failure;
#else
    (void)network;
    return -ENOSYS;
#endif
}

int sb_receive_descriptor(int channel) {
    int fd;
    return sb_receive_descriptors(channel, &fd, 1) == 1 ? fd : -1;
}

int sb_receive_descriptors(int channel, int *fds, int max) {
    char control[CMSG_SPACE(4 * sizeof(int))];
    char byte;
    struct iovec vector;
    struct msghdr message;
    if (max < 1 || max > 4) {
        errno = EINVAL;
        return -1;
    }
    descriptor_message(&message, &vector, &byte, control, sizeof control);
    if (recvmsg(channel, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != 1) return -1;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    if (header == NULL || header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS || header->cmsg_len < CMSG_LEN(sizeof(int))) {
        errno = EPROTO;
        return -1;
    }
    int count = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    int received[4];
    memcpy(received, CMSG_DATA(header), (size_t)count * sizeof(int));
    for (int index = max; index < count; index++) close(received[index]);
    if (count > max) count = max;
    memcpy(fds, received, (size_t)count * sizeof(int));
    return count;
}

void sb_relay(int a, int b) {
    char buffer[65536];
    int open_a = 1, open_b = 1;  // whether each side may still send to us
    while (open_a || open_b) {
        struct pollfd polls[2] = {{open_a ? a : -1, POLLIN, 0}, {open_b ? b : -1, POLLIN, 0}};
        if (poll(polls, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return;
        }
        for (int side = 0; side < 2; side++) {
            if (polls[side].revents == 0) continue;
            int from = side == 0 ? a : b, to = side == 0 ? b : a;
            ssize_t count = read(from, buffer, sizeof buffer);
            if (count < 0 && errno == EINTR) continue;
            if (count <= 0) {
                shutdown(to, SHUT_WR);
                if (side == 0) open_a = 0; else open_b = 0;
                if (count < 0) return;
                continue;
            }
            for (ssize_t done = 0; done < count;) {
                ssize_t written = send(to, buffer + done, (size_t)(count - done), MSG_NOSIGNAL);
                if (written < 0 && errno == EINTR) continue;
                if (written <= 0) return;
                done += written;
            }
        }
    }
}
