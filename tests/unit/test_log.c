/* tests/unit/test_log: the program's words on stderr (core/log.h). No error
 * line is ever empty: with a recorded message it is printed, without one the
 * line says it is an internal error. Repeated warnings print once, are counted
 * per object, and the exit summary gives the total and the objects. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_text[4096];

/* Runs `fn` with stderr sent to a temporary file; its text ends in g_text. */
static void capture(void (*fn)(void))
{
  char path[] = "/tmp/flurry-test-log.XXXXXX";
  int fd = mkstemp(path), saved = dup(2);
  fflush(stderr);
  dup2(fd, 2);
  fn();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(g_text, 1, sizeof g_text - 1, f) : 0;
  g_text[n] = 0;
  if (f) fclose(f);
  close(fd);
  unlink(path);
}

static void print_error(void) { fl_error_print(); }

static void test_error_line_never_empty(void)
{
  fl_error_clear();
  fl_error_set("scene %s: bad", "x");
  capture(print_error);
  ENSURE_MSG(strcmp(g_text, "flurry: error: scene x: bad\n") == 0, "%s", g_text);
  fl_error_clear();
  capture(print_error); /* a failure that recorded nothing */
  ENSURE_MSG(strncmp(g_text, "flurry: error: internal error: ", 31) == 0, "%s", g_text);
  ENSURE(strlen(g_text) > 40);
}

static void repeat_many(void)
{
  for (int i = 0; i < 600; i++) fl_warn_repeated("diverged and was reset", "E", "object E diverged (%d)", i);
  for (int i = 0; i < 297; i++) fl_warn_repeated("diverged and was reset", "HO", "object HO diverged (%d)", i);
  fl_warn_repeated("another kind", "x", "once only");
}

static void summarize(void) { fl_warn_summary(); }

static void test_repeated_warnings(void)
{
  capture(repeat_many);
  int lines = 0;
  for (const char *c = g_text; *c; c++) lines += *c == '\n';
  ENSURE_MSG(lines == 2, "%d lines:\n%s", lines, g_text); /* the first of each kind */
  ENSURE(strstr(g_text, "object E diverged (0)") && strstr(g_text, "once only"));
  ENSURE(fl_warn_repeated_count("diverged and was reset") == 897);
  capture(summarize);
  ENSURE_MSG(strstr(g_text, "diverged and was reset 897 times in 2 objects (E 600, HO 297)") != NULL, "%s", g_text);
  ENSURE_MSG(strstr(g_text, "another kind") == NULL, "%s", g_text); /* once: nothing to summarize */
  ENSURE(fl_warn_repeated_count("diverged and was reset") == 0); /* the summary forgets */
}

static const fl_test_case cases[] = {
    {"error_line_never_empty", test_error_line_never_empty},
    {"repeated_warnings", test_repeated_warnings},
};
FL_TEST_MAIN(cases)
