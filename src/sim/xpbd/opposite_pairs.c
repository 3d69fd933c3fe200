/* sim/xpbd/opposite_pairs: the opposite vertex of every surface vertex of a
 * closed body, by a ray along the inward vertex normal (opposite_pairs.h). */
#include "sim/xpbd/opposite_pairs.h"

#include "sim/common/vec3d.h"

#include <math.h>
#include <stdlib.h>

/* Moller-Trumbore: the ray parameter of the crossing of o + s d with triangle (a, b, c), or -1. */
static double ray_triangle(const double o[3], const double d[3], const float *a, const float *b, const float *c)
{
  double e1[3], e2[3], p[3], q[3], t[3];
  fl_v3d_subf(b, a, e1);
  fl_v3d_subf(c, a, e2);
  fl_v3d_cross(d, e2, p);
  double det = fl_v3d_dot(e1, p);
  if (fabs(det) < 1e-18) return -1.0;
  for (int k = 0; k < 3; k++) t[k] = o[k] - (double)a[k];
  double u = fl_v3d_dot(t, p) / det;
  if (u < 0.0 || u > 1.0) return -1.0;
  fl_v3d_cross(t, e1, q);
  double v = fl_v3d_dot(d, q) / det;
  if (v < 0.0 || u + v > 1.0) return -1.0;
  return fl_v3d_dot(e2, q) / det;
}

void fl_opposite_pairs(const float (*positions)[4], uint32_t count, const uint32_t (*triangles)[3],
                       uint32_t triangle_count, uint32_t *opposite)
{
  for (uint32_t i = 0; i < count; i++) opposite[i] = i;
  double(*normal)[3] = calloc(count ? count : 1, sizeof *normal);
  double(*sphere)[4] = calloc(triangle_count ? triangle_count : 1, sizeof *sphere); /* centre, radius */
  if (!normal || !sphere) { /* no pairs: the local weights fall back to the displacements alone */
    free(normal);
    free(sphere);
    return;
  }
  for (uint32_t t = 0; t < triangle_count; t++) {
    const uint32_t *v = triangles[t];
    double e1[3], e2[3], n[3];
    fl_v3d_subf(positions[v[1]], positions[v[0]], e1);
    fl_v3d_subf(positions[v[2]], positions[v[0]], e2);
    fl_v3d_cross(e1, e2, n); /* twice the area times the outward normal */
    for (int c = 0; c < 3; c++)
      for (int k = 0; k < 3; k++) normal[v[c]][k] += n[k];
    for (int k = 0; k < 3; k++)
      sphere[t][k] = ((double)positions[v[0]][k] + positions[v[1]][k] + positions[v[2]][k]) / 3.0;
    double r2 = 0.0;
    for (int c = 0; c < 3; c++) {
      double d[3] = {positions[v[c]][0] - sphere[t][0], positions[v[c]][1] - sphere[t][1],
                     positions[v[c]][2] - sphere[t][2]};
      r2 = fmax(r2, fl_v3d_dot(d, d));
    }
    sphere[t][3] = sqrt(r2);
  }
  for (uint32_t i = 0; i < count; i++) {
    double len = sqrt(fl_v3d_dot(normal[i], normal[i]));
    if (!(len > 0.0)) continue; /* not a surface vertex */
    double o[3] = {positions[i][0], positions[i][1], positions[i][2]};
    double d[3] = {-normal[i][0] / len, -normal[i][1] / len, -normal[i][2] / len};
    double best = INFINITY;
    uint32_t best_t = UINT32_MAX;
    for (uint32_t t = 0; t < triangle_count; t++) {
      const uint32_t *v = triangles[t];
      if (v[0] == i || v[1] == i || v[2] == i) continue;
      double c[3] = {sphere[t][0] - o[0], sphere[t][1] - o[1], sphere[t][2] - o[2]};
      double along = fl_v3d_dot(c, d), r = sphere[t][3];
      if (along + r < 0.0 || along - r > best || fl_v3d_dot(c, c) - along * along > r * r) continue;
      double s = ray_triangle(o, d, positions[v[0]], positions[v[1]], positions[v[2]]);
      if (s > 1e-9 && s < best) {
        best = s;
        best_t = t;
      }
    }
    if (best_t == UINT32_MAX) continue;
    double hit[3] = {o[0] + best * d[0], o[1] + best * d[1], o[2] + best * d[2]}, nearest = INFINITY;
    for (int c = 0; c < 3; c++) {
      uint32_t v = triangles[best_t][c];
      double e[3] = {positions[v][0] - hit[0], positions[v][1] - hit[1], positions[v][2] - hit[2]};
      if (fl_v3d_dot(e, e) < nearest) {
        nearest = fl_v3d_dot(e, e);
        opposite[i] = v;
      }
    }
  }
  free(normal);
  free(sphere);
}
