#define _GNU_SOURCE
#include "CBenchShims.h"
#include <sched.h>

int sb_bench_pin_cpu(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}
