/* core/log: leveled logging to stderr and the one recorded error message. */
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fl_log_level g_level = FL_LOG_INFO;
static char g_error[1024];

void fl_log_set_level(fl_log_level level) { g_level = level; }

void fl_log(fl_log_level level, const char *fmt, ...)
{
  if (level < g_level) return;
  static const char *names[] = {"debug", "info", "warn", "error"};
  fprintf(stderr, "flurry: [%s] ", names[level]);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

bool fl_error_set(const char *fmt, ...)
{
  if (g_error[0]) return false;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_error, sizeof g_error, fmt, ap);
  va_end(ap);
  return false;
}

bool fl_error_wrap(const char *fmt, ...)
{
  char prefix[512], inner[sizeof g_error];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  snprintf(inner, sizeof inner, "%s", g_error);
  size_t used = strlen(prefix);
  if (used > sizeof g_error - 3) used = sizeof g_error - 3;
  memcpy(g_error, prefix, used);
  memcpy(g_error + used, ": ", 2);
  const char *rest = inner[0] ? inner : "failed";
  size_t room = sizeof g_error - used - 3, rest_len = strlen(rest);
  if (rest_len > room) rest_len = room;
  memcpy(g_error + used + 2, rest, rest_len);
  g_error[used + 2 + rest_len] = 0;
  return false;
}

const char *fl_error_message(void) { return g_error; }

void fl_error_clear(void) { g_error[0] = 0; }
