/* scene/suggest.h: the numbers an error message suggests, rounded so that the text printed, written
 * back into the scene (which stores it as a float), passes the check that refused the old value. */
#pragma once

#include <stdbool.h>

/* x rounded to `digits` significant digits (nearest): exactly what "%.*g", digits prints of it and
 * strtod reads back. */
double fl_suggest_round(double x, int digits);
/* The largest number of `digits` significant digits, at most x, that `ok` accepts once stored as a
 * float, found a last digit at a time; 0 when none above 0 is (x <= 0 too). Print it with "%.*g". */
double fl_suggest_at_most(double x, int digits, bool (*ok)(float v, const void *ctx), const void *ctx);
