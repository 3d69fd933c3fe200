/* core/text_scan: the bounded line and token scanner behind the plain-text mesh
 * readers (OBJ, TetGen). Texts need not be NUL-terminated: every read stays
 * inside the given length. Lines end at '\n' (a '\r' before it is whitespace);
 * '#' starts a comment that runs to the end of the line. Errors are one line,
 * "SOURCE:LINE: message", recorded with fl_error_set. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest text a reader accepts (the fl_file_read default limit). */
#define FL_TEXT_MAX_LENGTH ((size_t)256 << 20)

/* A piece of the text: `length` bytes from `at` (not NUL-terminated). */
typedef struct {
  const char *at;
  size_t length;
} fl_text_span;

typedef struct {
  const char *text;
  size_t length, pos;
  const char *source; /* names the text in errors */
  size_t line;        /* 1-based number of the line last returned, 0 before the first */
} fl_text_scan;

typedef enum { FL_NUMBER_OK, FL_NUMBER_BAD, FL_NUMBER_NONFINITE } fl_number_status;

/* Starts scanning `length` bytes of `text`; records "SOURCE: N bytes is more than
 * the limit of M" and returns false for a text above FL_TEXT_MAX_LENGTH (or NULL with a length). */
bool fl_text_scan_init(fl_text_scan *s, const char *text, size_t length, const char *source);
/* The next line without its comment and newline; false at the end of the text. */
bool fl_text_next_line(fl_text_scan *s, fl_text_span *line);
/* The next line that holds at least one token (blank and comment-only lines are skipped). */
bool fl_text_next_content_line(fl_text_scan *s, fl_text_span *line);
/* Splits the next whitespace-separated token off the front of `rest`; false when none is left. */
bool fl_text_next_token(fl_text_span *rest, fl_text_span *token);
/* The number of tokens in `span`. */
size_t fl_text_count_tokens(fl_text_span span);
/* True when the span holds exactly `word`. */
bool fl_text_span_is(fl_text_span span, const char *word);
/* A decimal integer with an optional sign and at most 18 digits, nothing else. */
bool fl_text_parse_int(fl_text_span token, int64_t *out);
/* A decimal number ([sign] digits [. digits] [e [sign] digits]) that fits a float;
 * "inf", "nan" and values beyond the float range are FL_NUMBER_NONFINITE. */
fl_number_status fl_text_parse_float(fl_text_span token, float *out);
/* Copies the span into `buf` (FL_TEXT_QUOTE_SIZE bytes) for a message: at most 40
 * bytes, then "...", with bytes that are not printable ASCII shown as '?'. Returns buf. */
#define FL_TEXT_QUOTE_SIZE 48
const char *fl_text_quote(fl_text_span span, char buf[FL_TEXT_QUOTE_SIZE]);
/* fl_text_parse_int / fl_text_parse_float that record an error naming `what`:
 * 'WHAT "1x" is not an integer', 'WHAT "1x" is not a number', 'WHAT "inf" is not a finite float'. */
bool fl_text_read_int(const fl_text_scan *s, fl_text_span token, const char *what, int64_t *out);
bool fl_text_read_float(const fl_text_scan *s, fl_text_span token, const char *what, float *out);
/* Records "SOURCE:LINE: message" (the line last returned) and returns false. */
bool fl_text_error(const fl_text_scan *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
