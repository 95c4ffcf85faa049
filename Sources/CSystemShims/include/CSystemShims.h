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
#endif
