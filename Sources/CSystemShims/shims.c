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

int sb_wait_host_signal(void) {
    sigset_t set;
    host_signal_set(&set);
    int sig = 0;
    return sigwait(&set, &sig) == 0 ? sig : -1;
}
