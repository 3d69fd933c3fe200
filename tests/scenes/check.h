/* tests/scenes/check.h: the one check macro of check_report and check_trace. */
#pragma once
#include <stdio.h>

/* When cond is false: prints "WHO: message" (printf-style) and counts it in `failures`. */
#define CHECK_COUNTED(failures, who, cond, ...)            \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, who ": " __VA_ARGS__);              \
      fputc('\n', stderr);                                 \
      (failures)++;                                        \
    }                                                      \
  } while (0)
