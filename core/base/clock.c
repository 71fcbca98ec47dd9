/*
 * core/base/clock.c - the monotonic clock in seconds, for the core's own
 * timing (compile phases, the tuner's budgets and timeouts).
 */
#include <time.h>

#include "tvm/base.h"

double tvm_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
