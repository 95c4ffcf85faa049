#define _GNU_SOURCE
#include "CSystemShims.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
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

pid_t sb_spawn_plugin(const char *path, char *const argv[], char *const envp[], const char *cwd,
                      int in_fd, int out_fd, int err_fd) {
    // Nothing may interrupt the child between vfork and exec with one of our handlers: block every
    // signal here, and let the child reset dispositions and unblock them itself.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pid_t parent = getpid();
    // vfork: the parent waits until the child has exec'd or exited, so the child may write `failure`.
    volatile int failure = 0;
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
        // The descriptors may sit on 0-2 themselves: lift them above first.
        int in = fcntl(in_fd, F_DUPFD_CLOEXEC, 3), out = fcntl(out_fd, F_DUPFD_CLOEXEC, 3), err = fcntl(err_fd, F_DUPFD_CLOEXEC, 3);
        if (in < 0 || out < 0 || err < 0 || move_to(in, 0) < 0 || move_to(out, 1) < 0 || move_to(err, 2) < 0) {
            failure = errno;
            _exit(127);
        }
        close_other_descriptors();
        if (cwd != NULL && chdir(cwd) != 0) {
            failure = errno;
            _exit(127);
        }
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(path, argv, envp);
        failure = errno;
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
        errno = failure;
        return -1;
    }
    return pid;
}

int sb_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}
