#define _GNU_SOURCE
#include "CSystemShims.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

int sb_pidfd_open(pid_t pid) {
#if defined(__linux__) && defined(SYS_pidfd_open)
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

static void host_signal_set(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
}

int sb_block_host_signals(void) {
    sigset_t set;
    host_signal_set(&set);
    sigaddset(&set, SIGPIPE);
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static volatile sig_atomic_t forwarded_signal_fd = -1;

static void forward_signal(int signo) {
    int saved = errno;
    unsigned char byte = (unsigned char)signo;
    if (forwarded_signal_fd >= 0) (void)!write(forwarded_signal_fd, &byte, 1);
    errno = saved;
}

int sb_forward_signals_to_pipe(int write_fd) {
    forwarded_signal_fd = write_fd;
    struct sigaction action = {0};
    action.sa_handler = forward_signal;
    sigemptyset(&action.sa_mask);
    const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGWINCH};
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
        if (sigaction(forwarded[i], &action, NULL) != 0) return -1;
    return 0;
}

int sb_wait_host_signal(void) {
    sigset_t set;
    host_signal_set(&set);
    int sig = 0;
    return sigwait(&set, &sig) == 0 ? sig : -1;
}
