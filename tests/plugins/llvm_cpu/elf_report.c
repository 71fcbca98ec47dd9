/*
 * tests/plugins/llvm_cpu/elf_report.c - see elf_report.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "elf_report.h"

char lc_test_msg[1024];

int32_t lc_report(int32_t st, const char *fmt, ...);

int32_t lc_report(int32_t st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(lc_test_msg, sizeof lc_test_msg, fmt, ap);
  va_end(ap);
  return st;
}

void lc_test_expect_msg(const char *what, va_list ap) {
  for (const char *s; (s = va_arg(ap, const char *)) != NULL;)
    if (!strstr(lc_test_msg, s))
      fail_msg("%s: message lacks '%s': %s", what, s, lc_test_msg);
}
