/* core/log: leveled logging to stderr, and the one-line error message that
 * recoverable failures carry up to the user (fl_error_set / fl_error_message). */
#pragma once
#include <stdarg.h>
#include <stdbool.h>

typedef enum { FL_LOG_DEBUG, FL_LOG_INFO, FL_LOG_WARN, FL_LOG_ERROR } fl_log_level;

/* Sets the lowest level that is printed (default FL_LOG_INFO; FLURRY_LOG sets it, core/env.h). */
void fl_log_set_level(fl_log_level level);
/* Prints one line at the given level: "flurry: [warn] ...". */
void fl_log(fl_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define fl_debug(...) fl_log(FL_LOG_DEBUG, __VA_ARGS__)
#define fl_info(...) fl_log(FL_LOG_INFO, __VA_ARGS__)
#define fl_warn(...) fl_log(FL_LOG_WARN, __VA_ARGS__)

/* A warning that may repeat every frame (an object diverging, say): the first
 * occurrence of `kind` is printed (fl_warn, with `fmt` and a note that more are
 * only counted); later ones are counted per object, and fl_warn_summary prints
 * one line per kind at exit: "<kind> 897 times in 2 objects (E 600, HO 297)". */
void fl_warn_repeated(const char *kind, const char *object, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prints the summary line of every kind that occurred more than once, and forgets them. */
void fl_warn_summary(void);
/* The count of `kind` so far, over all objects (tests). */
unsigned long fl_warn_repeated_count(const char *kind);

/* Records the message of a recoverable failure and returns false, so callers can
 * write `return fl_error_set("...")`. The first message since the last clear wins:
 * the innermost failure names the cause. */
bool fl_error_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prefixes the recorded message with context ("shader X: <message>"); returns false. */
bool fl_error_wrap(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The recorded message, or "" when there is none. */
const char *fl_error_message(void);
/* Forgets the recorded message. */
void fl_error_clear(void);
/* Prints the recorded message as the program's one error line, "flurry: error: ...",
 * to stderr. No error line is ever empty: a failure that recorded nothing prints
 * that it is an internal error (a bug to report) instead. */
void fl_error_print(void);
