#ifndef SWITCHBOARD_CBENCHSHIMS_H
#define SWITCHBOARD_CBENCHSHIMS_H

/// Pins the calling process to one CPU (sched_setaffinity; children spawned afterwards inherit it).
/// Returns 0, or -1 with errno set. CPU_SET is a macro Swift cannot call.
int sb_bench_pin_cpu(int cpu);
#endif
