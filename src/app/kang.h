/* app/kang: `flurry --experiment kang`, the reproduction of the three tables
 * of Kang 2018 on the GPU mass-spring kernels (docs/KANG2018.md):
 *   Table 1  kappa_max of E, HO, JI, HY for the cases c1, c2, c3 (h = 0.1 ms)
 *   Table 2  the update time relative to E of HO, JI, IM, HY at 20^2, 30^2, 40^2
 *   Table 3  the largest stable h of E and HY for kappa 512 .. 4096
 * Each is printed beside the paper's numbers and written to the JSON report,
 * with a PNG plot of all three beside it. */
#pragma once
#include "app/cli.h"

/* Runs the experiment; returns the process exit code (0, 1 on error, 3 on validation errors). */
int fl_kang_run(const fl_options *options);
