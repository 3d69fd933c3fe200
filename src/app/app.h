/* app/app: the whole program behind main(): returns the process exit code
 * (0 ok, 1 error with one line on stderr, 3 validation errors under --validation). */
#pragma once
#include "app/cli.h"

int fl_app_run(const fl_options *options);
