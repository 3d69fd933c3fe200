/* sim/coupling/coupling_cpu: the CPU reference of a coupling substep (see coupling_cpu.h); it
 * follows shaders/coupling/{weights,contact,apply}.comp.glsl step by step, in the same float
 * arithmetic, with the same int32 fixed-point sums. */
#include "sim/coupling/coupling_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int base[3];
  float w[3][3];
} stencil;

/* The quadratic B-spline weights (Hu et al. 2018 eq. 3; shaders/mpm/mpm.glsl fl_mpm_quadratic). */
static void quadratic(float fx, int *base, float w[3])
{
  *base = (int)floorf(fx - 0.5f);
  for (int k = 0; k < 3; k++) {
    float ad = fabsf(fx - (float)(*base + k));
    w[k] = ad < 0.5f ? 0.75f - ad * ad : 0.5f * (1.5f - ad) * (1.5f - ad);
  }
}

/* shaders/mpm/mpm.glsl fl_mpm_fixed: round half to even, saturated. */
static int32_t fixed(float v, float scale)
{
  float x = rintf(v * scale);
  if (x < -2147483520.0f) x = -2147483520.0f;
  if (x > 2147483520.0f) x = 2147483520.0f;
  return (int32_t)x;
}

/* The boundary point (coupling.glsl fl_coupling_point) and whether its stencil lies in the lattice. */
static bool point(const fl_coupling_push *pc, const float x[4], const float v[4], float out[3])
{
  bool inside = true;
  for (int a = 0; a < 3; a++) {
    out[a] = x[a] - pc->lag * v[a];
    float f = (out[a] - pc->grid_origin[a]) * pc->inv_h;
    inside &= f >= 1.0f && f < (float)pc->grid_dims[a] - 2.0f;
  }
  return inside;
}

static void stencil_of(const fl_coupling_push *pc, const float x[3], stencil *s)
{
  for (int a = 0; a < 3; a++) quadratic((x[a] - pc->grid_origin[a]) * pc->inv_h, &s->base[a], s->w[a]);
}

static uint64_t node_of(const fl_coupling_push *pc, const stencil *s, int a, int b, int c)
{
  uint64_t x = (uint64_t)(s->base[0] + a), y = (uint64_t)(s->base[1] + b), z = (uint64_t)(s->base[2] + c);
  return (z * pc->grid_dims[1] + y) * pc->grid_dims[0] + x;
}

/* The snow's collision rule (shaders/mpm/mpm.glsl fl_mpm_collide_rule) with v_co = 0. */
static void collide_rule(float v[3], const float n[3], float mu)
{
  float vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
  if (vn >= 0.0f) return;
  float t[3], tl2 = 0;
  for (int a = 0; a < 3; a++) {
    t[a] = v[a] - n[a] * vn;
    tl2 += t[a] * t[a];
  }
  float tl = sqrtf(tl2);
  for (int a = 0; a < 3; a++) v[a] = tl <= -mu * vn ? 0.0f : t[a] + mu * vn * t[a] / tl;
}

bool fl_coupling_cpu_substep(const fl_coupling_push *pc, uint32_t particle_count, const float (*pos)[4],
                             float (*vel)[4], const uint32_t *coupled, float (*impulse)[4], float (*grid)[8])
{
  uint64_t nodes = (uint64_t)pc->grid_dims[0] * pc->grid_dims[1] * pc->grid_dims[2];
  int32_t (*acc)[4] = calloc(nodes, sizeof *acc);
  if (!acc) return false;
  /* coupling/weights */
  for (uint32_t p = 0; p < particle_count; p++) {
    float x[3];
    stencil s;
    if (!coupled[p] || !point(pc, pos[p], vel[p], x)) continue;
    stencil_of(pc, x, &s);
    for (int c = 0; c < 3; c++)
      for (int b = 0; b < 3; b++)
        for (int a = 0; a < 3; a++) acc[node_of(pc, &s, a, b, c)][3] += fixed(s.w[0][a] * s.w[1][b] * s.w[2][c], pc->weight_scale);
  }
  /* coupling/contact */
  for (uint32_t p = 0; p < particle_count; p++) {
    float x[3], M = 0, P[3] = {0}, C[3] = {0};
    stencil s;
    if (!coupled[p] || !point(pc, pos[p], vel[p], x)) continue;
    stencil_of(pc, x, &s);
    float share[27];
    uint64_t node[27];
    for (int c = 0; c < 3; c++)
      for (int b = 0; b < 3; b++)
        for (int a = 0; a < 3; a++) {
          int k = (c * 3 + b) * 3 + a;
          node[k] = node_of(pc, &s, a, b, c);
          int32_t wq = fixed(s.w[0][a] * s.w[1][b] * s.w[2][c], pc->weight_scale);
          const float *g = grid[node[k]];
          share[k] = 0.0f;
          if (wq > 0 && g[3] > 0.0f) {
            share[k] = (float)wq / (float)acc[node[k]][3] * g[3];
            M += share[k];
            int off[3] = {a, b, c};
            for (int d = 0; d < 3; d++) {
              P[d] += share[k] * g[d];
              C[d] += share[k] * (pc->grid_origin[d] + (float)(s.base[d] + off[d]) * pc->h - x[d]);
            }
          }
        }
    if (!(M > pc->min_mass)) continue;
    float u[3], d[3], dl2 = 0, du[3], w = pos[p][3];
    for (int a = 0; a < 3; a++) {
      u[a] = P[a] / M - vel[p][a];
      d[a] = -C[a] / M;
      dl2 += d[a] * d[a];
    }
    float dl = sqrtf(dl2), after[3] = {u[0], u[1], u[2]};
    if (dl > 1e-3f * pc->h) {
      float n[3] = {-d[0] / dl, -d[1] / dl, -d[2] / dl};
      collide_rule(after, n, pc->friction);
    } else {
      after[0] = after[1] = after[2] = 0.0f;
    }
    float J[3], Jl2 = 0, red = M / (1.0f + M * w);
    for (int a = 0; a < 3; a++) {
      du[a] = after[a] - u[a];
      J[a] = du[a] * red;
      Jl2 += J[a] * J[a];
    }
    if (du[0] == 0.0f && du[1] == 0.0f && du[2] == 0.0f) continue;
    for (int k = 0; k < 27; k++)
      if (share[k] > 0.0f)
        for (int a = 0; a < 3; a++) acc[node[k]][a] += fixed(share[k] * (J[a] / M), pc->momentum_scale);
    for (int a = 0; a < 3; a++) {
      vel[p][a] -= J[a] * w;
      impulse[p][a] -= J[a];
    }
    impulse[p][3] += sqrtf(Jl2);
  }
  /* coupling/apply */
  for (uint64_t i = 0; i < nodes; i++) {
    if (!acc[i][0] && !acc[i][1] && !acc[i][2]) continue;
    if (grid[i][3] > 0.0f)
      for (int a = 0; a < 3; a++) grid[i][a] += (float)acc[i][a] / pc->momentum_scale / grid[i][3];
  }
  free(acc);
  return true;
}

