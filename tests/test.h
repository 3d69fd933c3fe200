/* tests/test.h: the project's tiny test harness. A test file defines test
 * functions, lists them in a TESTS table and calls fl_test_main; ENSURE and
 * ENSURE_NEAR record a failure with file and line and end the current test. */
#pragma once
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>

/* A fixed-seed xorshift32 generator: uniform in [lo, hi), advancing *state. */
static inline float fl_test_rnd(uint32_t *state, float lo, float hi)
{
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return lo + (hi - lo) * (float)(x >> 8) / 16777216.0f;
}

typedef struct {
  const char *name;
  void (*fn)(void);
} fl_test_case;

extern int fl_test_failed_current;
extern int fl_test_skipped_current;

#define ENSURE(cond)                                                              \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);           \
      fl_test_failed_current = 1;                                                 \
      return;                                                                     \
    }                                                                             \
  } while (0)

#define ENSURE_MSG(cond, ...)                                                     \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "  FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);           \
      fprintf(stderr, __VA_ARGS__);                                               \
      fputc('\n', stderr);                                                        \
      fl_test_failed_current = 1;                                                 \
      return;                                                                     \
    }                                                                             \
  } while (0)

#define ENSURE_NEAR(a, b, tol)                                                    \
  do {                                                                            \
    double ensure_a_ = (double)(a), ensure_b_ = (double)(b);                      \
    if (!(fabs(ensure_a_ - ensure_b_) <= (double)(tol))) {                        \
      fprintf(stderr, "  FAIL %s:%d: %s = %.9g, %s = %.9g, tolerance %g\n",       \
              __FILE__, __LINE__, #a, ensure_a_, #b, ensure_b_, (double)(tol));   \
      fl_test_failed_current = 1;                                                 \
      return;                                                                     \
    }                                                                             \
  } while (0)

/* Ends the current test as skipped, with the reason (a device limit): a binary
 * whose every case skipped exits 77, which CTest shows as "Skipped". */
#define FL_SKIP(...)                                                              \
  do {                                                                            \
    fprintf(stderr, "  skipped: ");                                               \
    fprintf(stderr, __VA_ARGS__);                                                 \
    fputc('\n', stderr);                                                          \
    fl_test_skipped_current = 1;                                                  \
    return;                                                                       \
  } while (0)

/* Runs every case (or the one named by argv[1]); prints "N passed, N failed, N skipped";
 * exits 0, 1 on a failure, or 77 when every case that ran was skipped. */
int fl_test_main(int argc, char **argv, const fl_test_case *cases, int count);
/* The source tree: FLURRY_SOURCE_DIR (set by CTest), else the tree the tests were built from. */
const char *fl_test_source_dir(void);

#define FL_TEST_MAIN(table)                                                       \
  int main(int argc, char **argv)                                                 \
  {                                                                               \
    return fl_test_main(argc, argv, table, (int)(sizeof table / sizeof table[0]));\
  }
