/* tests/unit/test_gust: the gust factor of a cloth's wind (shaders/common/gust_shared.h,
 * the one definition the CPU reference and xpbd/wind_faces.comp share): it varies in
 * time at a point and in space at a time, stays within 1 -+ a, averages to 1 over
 * time (the scene's wind is the mean wind), is exactly 1 without gusts, and its
 * fronts travel downwind (a point downwind sees the same gust later). */
#include "test.h"

#include "gust_shared.h"

#include <math.h>

static const float A = 0.6f, T = 2.0f, L = 3.0f;

static float g(float along, float height, float t) { return fl_gust_factor(along, height, t, A, 1.0f / T, 1.0f / L); }

static void test_varies_in_time(void)
{
  float lo = INFINITY, hi = -INFINITY;
  for (int k = 0; k < 400; k++) {
    float v = g(0.5f, 1.2f, 0.01f * (float)k);
    lo = fminf(lo, v), hi = fmaxf(hi, v);
  }
  ENSURE_MSG(hi - lo > A, "over 4 s at one point the factor only spans %.3f..%.3f", lo, hi);
}

static void test_varies_in_space(void)
{
  float lo = INFINITY, hi = -INFINITY;
  for (int k = 0; k < 100; k++) { /* along a 1.6 m sheet, top to bottom, at one time */
    float v = g(0.016f * (float)k, 2.2f - 0.016f * (float)k, 0.7f);
    lo = fminf(lo, v), hi = fmaxf(hi, v);
  }
  ENSURE_MSG(hi - lo > 0.2f * A, "across 1.6 m at one time the factor only spans %.3f..%.3f", lo, hi);
}

static void test_bounded_with_unit_mean(void)
{
  for (int p = 0; p < 5; p++) {
    float along = -2.0f + 1.1f * (float)p, height = 0.3f * (float)p;
    double sum = 0.0;
    int n = 0;
    for (float t = 0.0f; t < 100.0f * T; t += 0.01f, n++) {
      float v = g(along, height, t);
      ENSURE_MSG(v >= 1.0f - A - 1e-5f && v <= 1.0f + A + 1e-5f, "factor %.4f outside 1 -+ %.1f", v, A);
      sum += v;
    }
    ENSURE_NEAR(sum / n, 1.0, 0.01);
  }
}

static void test_steady_without_gusts(void)
{
  for (int k = 0; k < 50; k++)
    ENSURE(fl_gust_factor(0.3f * (float)k, 1.0f, 0.17f * (float)k, 0.0f, 1.0f / T, 1.0f / L) == 1.0f);
  /* what the build stores for a steady wind: 1/T = 1/L = 0 */
  ENSURE(fl_gust_factor(5.0f, 1.0f, 3.0f, 0.0f, 0.0f, 0.0f) == 1.0f);
}

static void test_front_travels_downwind(void)
{
  /* Both fronts move downwind (at L/T and 1.7 L / 1.3 T): the factor 0.3 m
   * downwind best matches the one here some 0.15-0.2 s later, not earlier. */
  const float d = 0.3f;
  float best_lag = 0.0f;
  double best = -INFINITY;
  for (int k = -50; k <= 50; k++) {
    float lag = 0.01f * (float)k;
    double c = 0.0;
    for (int n = 0; n < 2000; n++) {
      float t = 0.01f * (float)n;
      c += (double)(g(0.0f, 1.0f, t) - 1.0f) * (double)(g(d, 1.0f, t + lag) - 1.0f);
    }
    if (c > best) best = c, best_lag = lag;
  }
  ENSURE_MSG(best_lag > 0.1f && best_lag < 0.25f, "the gust 0.3 m downwind lags by %.2f s", best_lag);
}

static const fl_test_case cases[] = {
    {"varies_in_time", test_varies_in_time},
    {"varies_in_space", test_varies_in_space},
    {"bounded_with_unit_mean", test_bounded_with_unit_mean},
    {"steady_without_gusts", test_steady_without_gusts},
    {"front_travels_downwind", test_front_travels_downwind},
};
FL_TEST_MAIN(cases)
