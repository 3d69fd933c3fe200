/* shaders/common/gust_shared.h: the gust factor of a cloth's wind, one
 * definition for C (the CPU reference, src/sim/xpbd/xpbd_cpu.c) and GLSL
 * (xpbd/wind_faces.comp). The wind a triangle feels is
 *   w(x, t) = wind * g(s, y, t),  s = x . wind / |wind|,  y = x.y,
 *   g = 1 + a (0.6 sin 2pi(t/T - s/L) + 0.4 sin(2pi(1.7 t/T - 1.3 s/L + 0.8 y/L) + 1)),
 * two gust fronts that travel downwind at about L/T m/s, the second shorter,
 * faster and skewed with height, so neighbouring parts of a sheet (and its top
 * and bottom) are hit at different times. |g - 1| <= a, and g averages to 1
 * over time at every point: the scene's "wind" stays the mean wind.
 * a = "gust" (0..1, so the wind never turns round), T = "gust_period" (s),
 * L = "gust_length" (m); a = 0 gives the steady wind exactly. */
#ifndef FL_GUST_SHARED_H
#define FL_GUST_SHARED_H

#ifdef VULKAN /* GLSL */
#define FL_GUST_FN
#define FL_GUST_SIN sin
#else /* C */
#include <math.h>
#define FL_GUST_FN static inline
#define FL_GUST_SIN sinf
#endif

/* g for a point `along` m downwind and `height` m up at time t (s), with
 * amplitude a, 1/T and 1/L. */
FL_GUST_FN float fl_gust_factor(float along, float height, float t, float amplitude, float inv_period,
                                float inv_length)
{
  float p = t * inv_period, s = along * inv_length, y = height * inv_length;
  float front = FL_GUST_SIN(6.28318531f * (p - s));
  float eddy = FL_GUST_SIN(6.28318531f * (1.7f * p - 1.3f * s + 0.8f * y) + 1.0f);
  return 1.0f + amplitude * (0.6f * front + 0.4f * eddy);
}

#endif
