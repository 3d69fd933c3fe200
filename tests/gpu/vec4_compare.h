/* tests/gpu/vec4_compare.h: largest differences and magnitudes over arrays of
 * vec4 (the layout of the GPU particle and grid buffers), for GPU-vs-CPU tests. */
#pragma once
#include <math.h>
#include <stdint.h>

/* max |a - b| over the first `components` of n vec4s; INFINITY once one is NaN */
static inline float max_abs_diff(const float (*a)[4], const float (*b)[4], uint64_t n, int components)
{
  float worst = 0;
  for (uint64_t i = 0; i < n; i++)
    for (int c = 0; c < components; c++) {
      float d = fabsf(a[i][c] - b[i][c]);
      if (!(d <= worst)) worst = isnan(d) ? INFINITY : d;
    }
  return worst;
}

/* max |a| over the first `components` of n vec4s */
static inline float max_abs(const float (*a)[4], uint64_t n, int components)
{
  float m = 0;
  for (uint64_t i = 0; i < n; i++)
    for (int c = 0; c < components; c++) m = fmaxf(m, fabsf(a[i][c]));
  return m;
}
