/* sim/coupling/surface_samples: the closed bodies' surface samples (see surface_samples.h). */
#include "sim/coupling/surface_samples.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static float edge(const float *a, const float *b)
{
  return sqrtf((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* The subdivision of triangle t, 0 when it is not sampled (its vertices not all of one closed body's). */
static uint32_t subdivision(const float (*pos)[4], const uint32_t *tri, const uint32_t *coupled, float h)
{
  uint32_t kind = coupled[tri[0]];
  if (kind != FL_COUPLING_VOLUME && kind != FL_COUPLING_CLOSED) return 0;
  for (int k = 1; k < 3; k++)
    if (coupled[tri[k]] != kind) return 0;
  float longest = fmaxf(edge(pos[tri[0]], pos[tri[1]]), fmaxf(edge(pos[tri[1]], pos[tri[2]]), edge(pos[tri[2]], pos[tri[0]])));
  float n = ceilf(longest / (FL_COUPLING_SAMPLE_SPACING * h));
  return n < 1.0f ? 1u : n > (float)FL_COUPLING_SAMPLE_MAX_N ? FL_COUPLING_SAMPLE_MAX_N : (uint32_t)n;
}

static uint32_t bits(float f)
{
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

bool fl_coupling_surface_samples(const float (*pos)[4], const uint32_t *triangles, uint32_t triangle_count,
                                 const uint32_t *coupled, float h, uint32_t (**out)[4], uint32_t *count)
{
  uint64_t total = 0;
  for (uint32_t t = 0; t < triangle_count; t++) {
    uint32_t n = subdivision(pos, triangles + 3 * t, coupled, h);
    total += (uint64_t)n * n;
  }
  *out = NULL;
  *count = 0;
  if (!total) return true;
  uint32_t(*s)[4] = malloc(total * sizeof *s);
  if (!s) return false;
  uint32_t k = 0;
  for (uint32_t t = 0; t < triangle_count; t++) {
    const uint32_t *v = triangles + 3 * t;
    uint32_t n = subdivision(pos, v, coupled, h);
    float e1[3], e2[3], cr[3];
    for (int a = 0; a < 3; a++) {
      e1[a] = pos[v[1]][a] - pos[v[0]][a];
      e2[a] = pos[v[2]][a] - pos[v[0]][a];
    }
    cr[0] = e1[1] * e2[2] - e1[2] * e2[1];
    cr[1] = e1[2] * e2[0] - e1[0] * e2[2];
    cr[2] = e1[0] * e2[1] - e1[1] * e2[0];
    float scale = 0.5f * sqrtf(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]) / ((float)(n * n) * h * h);
    /* the sub-triangles' centroids: n (n + 1) / 2 pointing like the triangle, n (n - 1) / 2 the other way */
    for (uint32_t i = 0; i < n; i++)
      for (uint32_t j = 0; i + j < n; j++)
        for (int flip = 0; flip < 2 && (flip == 0 || i + j + 1 < n); flip++) {
          float o = flip ? 2.0f / 3.0f : 1.0f / 3.0f;
          s[k][0] = t;
          s[k][1] = bits(((float)i + o) / (float)n);
          s[k][2] = bits(((float)j + o) / (float)n);
          s[k][3] = bits(scale);
          k++;
        }
  }
  *out = s;
  *count = k;
  return true;
}
