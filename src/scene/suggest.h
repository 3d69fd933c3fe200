/* scene/suggest.h: the numbers an error message suggests, rounded so that the text printed, written
 * back into the scene (which stores it as a float), passes the check that refused the old value. */
#pragma once

#include <stdbool.h>

/* x rounded to `digits` significant digits (nearest): exactly what "%.*g", digits prints of it and
 * strtod reads back. */
double fl_suggest_round(double x, int digits);
