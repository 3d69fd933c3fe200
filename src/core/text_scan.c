/* core/text_scan: bounded line and token scanning for the plain-text mesh readers
 * (OBJ, TetGen): no read past the given length, numbers parsed from a bounded
 * local copy, errors as one "SOURCE:LINE: message" line. */
#include "core/text_scan.h"

#include "core/log.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NUMBER_CHARS 63
#define MAX_INT_DIGITS 18
#define QUOTE_CHARS 40

bool fl_text_scan_init(fl_text_scan *s, const char *text, size_t length, const char *source)
{
  *s = (fl_text_scan){.text = text, .length = length, .source = source ? source : "(text)"};
  if (!text && length) {
    s->length = 0;
    return fl_error_set("%s: no text (NULL with a length of %zu)", s->source, length);
  }
  if (length > FL_TEXT_MAX_LENGTH) {
    s->length = 0;
    return fl_error_set("%s: %zu bytes is more than the limit of %zu", s->source, length, FL_TEXT_MAX_LENGTH);
  }
  return true;
}

bool fl_text_next_line(fl_text_scan *s, fl_text_span *line)
{
  if (s->pos >= s->length) return false;
  const char *start = s->text + s->pos;
  size_t left = s->length - s->pos;
  const char *newline = memchr(start, '\n', left);
  size_t full = newline ? (size_t)(newline - start) : left;
  s->pos += newline ? full + 1 : full;
  s->line++;
  const char *comment = memchr(start, '#', full);
  *line = (fl_text_span){start, comment ? (size_t)(comment - start) : full};
  return true;
}

bool fl_text_next_content_line(fl_text_scan *s, fl_text_span *line)
{
  while (fl_text_next_line(s, line))
    if (fl_text_count_tokens(*line) > 0) return true;
  return false;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

bool fl_text_next_token(fl_text_span *rest, fl_text_span *token)
{
  size_t i = 0;
  while (i < rest->length && is_space(rest->at[i])) i++;
  size_t start = i;
  while (i < rest->length && !is_space(rest->at[i])) i++;
  *token = (fl_text_span){rest->at + start, i - start};
  *rest = (fl_text_span){rest->at + i, rest->length - i};
  return token->length > 0;
}

size_t fl_text_count_tokens(fl_text_span span)
{
  size_t count = 0;
  fl_text_span token;
  while (fl_text_next_token(&span, &token)) count++;
  return count;
}

bool fl_text_span_is(fl_text_span span, const char *word)
{
  size_t n = strlen(word);
  return span.length == n && memcmp(span.at, word, n) == 0;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Skips the digits from *i on; returns how many there were. */
static size_t skip_digits(fl_text_span t, size_t *i)
{
  size_t start = *i;
  while (*i < t.length && is_digit(t.at[*i])) (*i)++;
  return *i - start;
}

static size_t skip_sign(fl_text_span t, size_t i)
{
  return i < t.length && (t.at[i] == '+' || t.at[i] == '-') ? i + 1 : i;
}

bool fl_text_parse_int(fl_text_span token, int64_t *out)
{
  size_t i = skip_sign(token, 0);
  size_t first = i, digits = skip_digits(token, &i);
  if (digits == 0 || digits > MAX_INT_DIGITS || i != token.length) return false;
  int64_t value = 0;
  for (size_t k = first; k < i; k++) value = value * 10 + (token.at[k] - '0');
  *out = token.at[0] == '-' ? -value : value;
  return true;
}

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* True when the span, less a sign, spells inf, infinity or nan (any case). */
static bool is_nonfinite_word(fl_text_span token)
{
  size_t i = skip_sign(token, 0);
  fl_text_span word = {token.at + i, token.length - i};
  static const char *const words[] = {"inf", "infinity", "nan"};
  for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
    size_t n = strlen(words[w]), k = 0;
    while (k < n && k < word.length && lower(word.at[k]) == words[w][k]) k++;
    if (k == n && word.length == n) return true;
  }
  return false;
}

/* True for [sign] digits [. digits] [e [sign] digits] with at least one mantissa digit. */
static bool is_decimal(fl_text_span t)
{
  size_t i = skip_sign(t, 0);
  size_t mantissa = skip_digits(t, &i);
  if (i < t.length && t.at[i] == '.') {
    i++;
    mantissa += skip_digits(t, &i);
  }
  if (mantissa == 0) return false;
  if (i < t.length && (t.at[i] == 'e' || t.at[i] == 'E')) {
    i = skip_sign(t, i + 1);
    if (skip_digits(t, &i) == 0) return false;
  }
  return i == t.length;
}

fl_number_status fl_text_parse_float(fl_text_span token, float *out)
{
  if (is_nonfinite_word(token)) return FL_NUMBER_NONFINITE;
  if (token.length > MAX_NUMBER_CHARS || !is_decimal(token)) return FL_NUMBER_BAD;
  char buf[MAX_NUMBER_CHARS + 1];
  memcpy(buf, token.at, token.length);
  buf[token.length] = 0;
  double value = strtod(buf, NULL);
  if (!isfinite(value) || fabs(value) > FLT_MAX) return FL_NUMBER_NONFINITE;
  *out = (float)value;
  return FL_NUMBER_OK;
}

const char *fl_text_quote(fl_text_span span, char buf[FL_TEXT_QUOTE_SIZE])
{
  size_t n = span.length < QUOTE_CHARS ? span.length : QUOTE_CHARS;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)span.at[i];
    buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
  }
  if (span.length > n) {
    memcpy(buf + n, "...", 3);
    n += 3;
  }
  buf[n] = 0;
  return buf;
}

bool fl_text_error(const fl_text_scan *s, const char *fmt, ...)
{
  char message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  return fl_error_set("%s:%zu: %s", s->source, s->line, message);
}

bool fl_text_read_int(const fl_text_scan *s, fl_text_span token, const char *what, int64_t *out)
{
  char q[FL_TEXT_QUOTE_SIZE];
  if (!fl_text_parse_int(token, out)) return fl_text_error(s, "%s \"%s\" is not an integer", what, fl_text_quote(token, q));
  return true;
}

bool fl_text_read_float(const fl_text_scan *s, fl_text_span token, const char *what, float *out)
{
  char q[FL_TEXT_QUOTE_SIZE];
  fl_number_status status = fl_text_parse_float(token, out);
  if (status == FL_NUMBER_BAD) return fl_text_error(s, "%s \"%s\" is not a number", what, fl_text_quote(token, q));
  if (status == FL_NUMBER_NONFINITE)
    return fl_text_error(s, "%s \"%s\" is not a finite float", what, fl_text_quote(token, q));
  return true;
}
