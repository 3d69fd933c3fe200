// mpm/mpm.glsl: what every MPM snow kernel shares (src/sim/mpm/snow_spec.h):
// the B-spline weights (cubic for the paper's PIC/FLIP, quadratic for
// MLS-MPM/APIC), stencil node indices, the fixed-point encoding of the P2G
// accumulator, and the collision rule of Stomakhin et al. 2013 (NOTES.md
// section 4) against colliders and domain walls.
#ifndef FL_MPM_GLSL
#define FL_MPM_GLSL
#include "mpm_shared.h"
#include "sdf.glsl"

// Per-axis weights of a particle at fx = (x - origin) / h: nodes base + k,
// k < 4 (cubic) or k < 3 (quadratic; w[3] = 0). dw = dN/dd (cubic only).
struct fl_mpm_axis {
  int base;
  vec4 w, dw;
};

fl_mpm_axis fl_mpm_cubic(float fx)
{
  fl_mpm_axis a;
  a.base = int(floor(fx)) - 1;
  for (int k = 0; k < 4; k++) {
    float d = fx - float(a.base + k), ad = abs(d);
    if (ad < 1.0) {
      a.w[k] = 0.5 * ad * ad * ad - d * d + 2.0 / 3.0;
      a.dw[k] = 1.5 * d * ad - 2.0 * d;
    } else if (ad < 2.0) {
      a.w[k] = -ad * ad * ad / 6.0 + d * d - 2.0 * ad + 4.0 / 3.0;
      a.dw[k] = -0.5 * d * ad + 2.0 * d - 2.0 * sign(d);
    } else {
      a.w[k] = 0.0;
      a.dw[k] = 0.0;
    }
  }
  return a;
}

fl_mpm_axis fl_mpm_quadratic(float fx)
{
  fl_mpm_axis a;
  a.base = int(floor(fx - 0.5));
  for (int k = 0; k < 3; k++) {
    float ad = abs(fx - float(a.base + k));
    a.w[k] = ad < 0.5 ? 0.75 - ad * ad : 0.5 * (1.5 - ad) * (1.5 - ad);
    a.dw[k] = 0.0;
  }
  a.w[3] = 0.0;
  a.dw[3] = 0.0;
  return a;
}

// The weights of all three axes and the stencil width (4 cubic, 3 quadratic).
struct fl_mpm_stencil {
  fl_mpm_axis ax[3];
  int width;
};

fl_mpm_stencil fl_mpm_stencil_of(vec3 x, fl_mpm_push pc, bool quadratic)
{
  vec3 fx = (x - pc.grid_origin.xyz) * pc.params.y;
  fl_mpm_stencil s;
  for (int a = 0; a < 3; a++) s.ax[a] = quadratic ? fl_mpm_quadratic(fx[a]) : fl_mpm_cubic(fx[a]);
  s.width = quadratic ? 3 : 4;
  return s;
}

// The linear index of stencil node (a, b, c).
uint fl_mpm_node(fl_mpm_stencil s, int a, int b, int c, fl_mpm_push pc)
{
  uvec3 n = pc.grid_dims.xyz;
  return (uint(s.ax[2].base + c) * n.y + uint(s.ax[1].base + b)) * n.x + uint(s.ax[0].base + a);
}

// The world position of stencil node (a, b, c).
vec3 fl_mpm_node_position(fl_mpm_stencil s, int a, int b, int c, fl_mpm_push pc)
{
  return pc.grid_origin.xyz + vec3(s.ax[0].base + a, s.ax[1].base + b, s.ax[2].base + c) * pc.grid_origin.w;
}

// Fixed point: round half to even (the CPU reference uses rintf), saturated to int32.
int fl_mpm_fixed(float v, float scale)
{
  return int(clamp(roundEven(v * scale), -2147483520.0, 2147483520.0));
}

// The collision rule: v_rel = v - v_co; nothing when separating (v_n >= 0);
// else the tangential part stops when |v_t| <= -mu v_n, or loses mu |v_n|.
vec3 fl_mpm_collide_rule(vec3 v, vec3 v_co, vec3 n, float mu)
{
  vec3 v_rel = v - v_co;
  float v_n = dot(v_rel, n);
  if (v_n >= 0.0) return v;
  vec3 v_t = v_rel - n * v_n;
  float t_len = length(v_t);
  v_rel = t_len <= -mu * v_n ? vec3(0.0) : v_t + mu * v_n * v_t / t_len;
  return v_rel + v_co;
}

#ifdef FL_MPM_COLLIDERS  // defined by kernels that declare the `colliders` uniform before this include
// Applies every collider with phi(x, t) <= 0, then every domain wall x is on or beyond.
vec3 fl_mpm_collide(vec3 x, vec3 v, float mu, fl_mpm_push pc)
{
  float t = pc.domain_max.w;
  bool tetra = (pc.counts.z & FL_MPM_TETRA_NORMALS) != 0u;
  for (uint c = 0u; c < pc.counts.y; c++) {
    fl_gpu_collider col = colliders[c];
    if (fl_collider_sdf(col, x, t) <= 0.0)
      v = fl_mpm_collide_rule(v, fl_collider_velocity(col, t), fl_collider_normal_select(col, x, t, tetra), mu);
  }
  for (int a = 0; a < 3; a++) {
    vec3 n = vec3(0.0);
    n[a] = 1.0;
    if (x[a] <= pc.domain_min[a]) v = fl_mpm_collide_rule(v, vec3(0.0), n, mu);
    if (x[a] >= pc.domain_max[a]) v = fl_mpm_collide_rule(v, vec3(0.0), -n, mu);
  }
  return v;
}
#endif

#endif
