/* scene/suggest.c: suggested numbers that pass when written back (suggest.h). A value printed with
 * %g is rounded to nearest, up as often as down, so "use at most %g" could name a value refused by
 * the same check; these test what the scene would store and round down where it is refused. */
#include "scene/suggest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double fl_suggest_round(double x, int digits)
{
  char text[64];
  snprintf(text, sizeof text, "%.*g", digits, x);
  return strtod(text, NULL);
}

/* One unit in the last of `digits` significant digits of x > 0. */
static double last_digit(double x, int digits) { return pow(10.0, floor(log10(x)) - digits + 1); }

double fl_suggest_at_most(double x, int digits, bool (*ok)(float v, const void *ctx), const void *ctx)
{
  if (!(x > 0.0) || !isfinite(x)) return 0.0;
  /* x to nearest, then down a last digit at a time (twice at most): %g's nearest may be above x and
   * refused, and the float a decimal is stored as may be above it too; the first that passes is kept
   * (0.08 for the limit 0.0799999982 that a float radius 0.04 makes, since 0.08 is stored as that) */
  double v = fl_suggest_round(x, digits);
  for (int k = 0; k < 64 && v > 0.0; k++) {
    if (ok((float)v, ctx)) return v;
    v = fl_suggest_round(v - last_digit(v, digits), digits);
  }
  return 0.0;
}
