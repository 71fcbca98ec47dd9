/*
 * tests/plugins/llvm_cpu/elf_report.h - what the ELF loader and checker
 * tests link in place of the plugin's lc_report: the last message is kept
 * in lc_test_msg, and lc_test_expect_msg checks it names every string of
 * a NULL-terminated list.
 */
#ifndef TVM_TEST_ELF_REPORT_H
#define TVM_TEST_ELF_REPORT_H

#include <stdarg.h>

extern char lc_test_msg[1024];

/* Fails the running test when lc_test_msg lacks one of the strings of ap
 * (NULL-terminated); `what` names the case. */
void lc_test_expect_msg(const char *what, va_list ap);

#endif
