/* sim/common/vec3d: small double-precision 3-vector helpers for the CPU
 * geometry code (meshes, solids, tetrahedralization, embedding), where
 * robustness needs doubles. Header-only: static inline functions. */
#pragma once
#include <math.h>

#define FL_PI_D 3.14159265358979323846

/* out = a - b, from float or double inputs. */
static inline void fl_v3d_sub(const double a[3], const double b[3], double out[3])
{
  out[0] = a[0] - b[0];
  out[1] = a[1] - b[1];
  out[2] = a[2] - b[2];
}
static inline void fl_v3d_subf(const float a[3], const float b[3], double out[3])
{
  out[0] = (double)a[0] - (double)b[0];
  out[1] = (double)a[1] - (double)b[1];
  out[2] = (double)a[2] - (double)b[2];
}
static inline void fl_v3d_from_f(const float a[3], double out[3])
{
  out[0] = a[0];
  out[1] = a[1];
  out[2] = a[2];
}
static inline double fl_v3d_dot(const double a[3], const double b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void fl_v3d_cross(const double a[3], const double b[3], double out[3])
{
  double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
  out[0] = x;
  out[1] = y;
  out[2] = z;
}
static inline double fl_v3d_length(const double a[3]) { return sqrt(fl_v3d_dot(a, a)); }
/* a . (b x c): six times the signed volume of the tet (0, a, b, c). */
static inline double fl_v3d_triple(const double a[3], const double b[3], const double c[3])
{
  double bc[3];
  fl_v3d_cross(b, c, bc);
  return fl_v3d_dot(a, bc);
}
