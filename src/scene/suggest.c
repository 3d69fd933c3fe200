/* scene/suggest.c: suggested numbers that pass when written back (suggest.h). A value printed with
 * %g is rounded to its 6 digits, which may turn a value that fits into one that is refused; the
 * callers test what the scene would store. */
#include "scene/suggest.h"

#include <stdio.h>
#include <stdlib.h>

double fl_suggest_round(double x, int digits)
{
  char text[64];
  snprintf(text, sizeof text, "%.*g", digits, x);
  return strtod(text, NULL);
}
