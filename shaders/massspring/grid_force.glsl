// massspring/grid_force.glsl: E's spring force on one particle of a regular grid
// (ms_spec.h), its neighbours found by index offset (no links), for
// explicit_offset.comp. The includer declares `pc` (fl_ms_push: nx, ny, classes,
// rest0, rest1), x_at(int) and v_at(int) (a neighbour's x and v by index) and
// defines FL_MS_GRID_STRIDE (the index step of one row).
#ifndef FL_MS_GRID_FORCE_GLSL
#define FL_MS_GRID_FORCE_GLSL
#include "spring.glsl"

// The neighbours, two per class (FL_MS_CLASS_*), the one of the lower spring index first
// (ms_cpu.c numbers each group's springs row by row): the order of ms_gpu.c's links.
const ivec2 OFFSETS[12] = ivec2[](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1), ivec2(-1, -1), ivec2(1, 1),
                                  ivec2(1, -1), ivec2(-1, 1), ivec2(-2, 0), ivec2(2, 0), ivec2(0, -2), ivec2(0, 2));

bool inside(ivec2 g) { return all(greaterThanEqual(g, ivec2(0))) && g.x < int(pc.nx) && g.y < int(pc.ny); }
bool within(ivec2 a, int lo, int hi) { return all(greaterThanEqual(a, ivec2(lo))) && all(lessThan(a, ivec2(hi))); }

// The spring force on the particle of index c (grid cell g) at x, v; `bad`: one of its
// springs is strained beyond the divergence strain (or its length is NaN), as check.comp.
vec3 spring_force(int c, ivec2 g, vec3 x, vec3 v, out bool bad)
{
  vec3 f = vec3(0.0);
  bad = false;
  for (int o = 0; o < 12; o++) {
    int cls = o >> 1;
    if ((pc.classes & (1u << uint(cls))) == 0u || !inside(g + OFFSETS[o])) continue;
    int n = c + OFFSETS[o].y * int(FL_MS_GRID_STRIDE) + OFFSETS[o].x;
    float rest = cls < 4 ? pc.rest0[cls] : pc.rest1[cls - 4];
    vec3 d = x_at(n) - x;
    float len = length(d);
    bad = bad || !(abs(len - rest) <= pc.divergence_strain * rest);
    if (len < FL_MS_MIN_LENGTH) continue;
    vec3 xhat = d / max(len, FL_MS_MIN_LENGTH);
    float rate = dot(xhat, v_at(n) - v);
    f += (pc.kappa * (len - rest) + pc.damping * rate) * xhat;
  }
  return f;
}
#endif
