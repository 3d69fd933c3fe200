/* tests/test_main.c: the runner behind FL_TEST_MAIN. */
#include "test.h"

#include "core/log.h"

#include <stdlib.h>

int fl_test_failed_current;
int fl_test_skipped_current;

const char *fl_test_source_dir(void)
{
  static char dir[1024];
  const char *src = getenv("FLURRY_SOURCE_DIR");
  if (src && src[0]) return src;
  snprintf(dir, sizeof dir, "%s", __FILE__); /* tests/test_main.c */
  char *cut = strstr(dir, "/tests/test_main.c");
  if (cut) *cut = 0;
  else snprintf(dir, sizeof dir, ".");
  return dir;
}

int fl_test_main(int argc, char **argv, const fl_test_case *cases, int count)
{
  int passed = 0, failed = 0, skipped = 0;
  for (int i = 0; i < count; i++) {
    if (argc > 1 && strcmp(argv[1], cases[i].name) != 0) continue;
    fl_test_failed_current = 0;
    fl_test_skipped_current = 0;
    fl_error_clear();
    cases[i].fn();
    if (fl_test_failed_current) {
      failed++;
      fprintf(stderr, "[FAIL] %s\n", cases[i].name);
    } else if (fl_test_skipped_current) {
      skipped++;
      fprintf(stderr, "[skip] %s\n", cases[i].name);
    } else {
      passed++;
      fprintf(stderr, "[ ok ] %s\n", cases[i].name);
    }
  }
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  if (failed == 0 && passed == 0 && skipped > 0) return 77; /* CTest: SKIP_RETURN_CODE */
  return failed == 0 && passed > 0 ? 0 : 1;
}
