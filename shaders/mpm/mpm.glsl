// mpm/mpm.glsl: what every MPM snow kernel shares (src/sim/mpm/snow_spec.h):
// the B-spline weights (cubic for the paper's PIC/FLIP, quadratic for
// MLS-MPM/APIC), stencil node indices, the fixed-point encoding of the P2G
// accumulator, and the collision rule of Stomakhin et al. 2013 (NOTES.md
// section 4) against colliders and domain walls.
#ifndef FL_MPM_GLSL
#define FL_MPM_GLSL
#extension GL_EXT_control_flow_attributes : require
#include "mpm_shared.h"
#include "sdf.glsl"

// The weights of a particle at fx = (x - origin) / h: nodes base + (a, b, c)
// with a, b, c < 4 (cubic) or < 3 (quadratic; the 4th entries are 0); w* the
// per-axis weights N(d), d* their derivatives dN/dd (cubic only).
struct fl_mpm_stencil {
  ivec3 base;
  vec4 wx, wy, wz;
  vec4 dx, dy, dz;
};

void fl_mpm_cubic(float fx, out int base, out vec4 w, out vec4 dw)
{
  base = int(floor(fx)) - 1;
  [[unroll]] for (int k = 0; k < 4; k++) {
    float d = fx - float(base + k), ad = abs(d);
    if (ad < 1.0) {
      w[k] = 0.5 * ad * ad * ad - d * d + 2.0 / 3.0;
      dw[k] = 1.5 * d * ad - 2.0 * d;
    } else if (ad < 2.0) {
      w[k] = -ad * ad * ad / 6.0 + d * d - 2.0 * ad + 4.0 / 3.0;
      dw[k] = -0.5 * d * ad + 2.0 * d - 2.0 * sign(d);
    } else {
      w[k] = 0.0;
      dw[k] = 0.0;
    }
  }
}

void fl_mpm_quadratic(float fx, out int base, out vec4 w)
{
  base = int(floor(fx - 0.5));
  [[unroll]] for (int k = 0; k < 3; k++) {
    float ad = abs(fx - float(base + k));
    w[k] = ad < 0.5 ? 0.75 - ad * ad : 0.5 * (1.5 - ad) * (1.5 - ad);
  }
  w[3] = 0.0;
}

fl_mpm_stencil fl_mpm_stencil_of(vec3 x, fl_mpm_push pc, bool quadratic)
{
  vec3 fx = (x - pc.grid_origin) * pc.inv_h;
  fl_mpm_stencil s;
  s.dx = s.dy = s.dz = vec4(0.0);
  if (quadratic) {
    fl_mpm_quadratic(fx.x, s.base.x, s.wx);
    fl_mpm_quadratic(fx.y, s.base.y, s.wy);
    fl_mpm_quadratic(fx.z, s.base.z, s.wz);
  } else {
    fl_mpm_cubic(fx.x, s.base.x, s.wx, s.dx);
    fl_mpm_cubic(fx.y, s.base.y, s.wy, s.dy);
    fl_mpm_cubic(fx.z, s.base.z, s.wz, s.dz);
  }
  return s;
}

// Loops over the stencil with constant trip counts, so the compiler unrolls
// them and the weight vectors are indexed by constants (llvmpipe, like most
// compilers, spills dynamically indexed arrays to memory). BODY uses a, b, c.
#define FL_MPM_FOR_STENCIL(width, BODY)                                                    \
  [[unroll]] for (int c = 0; c < width; c++)[[unroll]] for (int b = 0; b < width; b++)     \
      [[unroll]] for (int a = 0; a < width; a++) { BODY; }

float fl_mpm_weight(fl_mpm_stencil s, int a, int b, int c) { return s.wx[a] * s.wy[b] * s.wz[c]; }

// grad w_ip (cubic): the derivative of the weight with respect to x_p.
vec3 fl_mpm_weight_gradient(fl_mpm_stencil s, int a, int b, int c, float inv_h)
{
  return vec3(s.dx[a] * s.wy[b] * s.wz[c], s.wx[a] * s.dy[b] * s.wz[c], s.wx[a] * s.wy[b] * s.dz[c]) * inv_h;
}

// The linear index of stencil node (a, b, c).
uint fl_mpm_node(fl_mpm_stencil s, int a, int b, int c, fl_mpm_push pc)
{
  uvec3 n = pc.grid_dims;
  return (uint(s.base.z + c) * n.y + uint(s.base.y + b)) * n.x + uint(s.base.x + a);
}

// The world position of stencil node (a, b, c).
vec3 fl_mpm_node_position(fl_mpm_stencil s, int a, int b, int c, fl_mpm_push pc)
{
  return pc.grid_origin + vec3(s.base + ivec3(a, b, c)) * pc.h;
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
  float t = pc.time;
  bool tetra = (pc.flags & FL_MPM_TETRA_NORMALS) != 0u;
  for (uint c = 0u; c < pc.collider_count; c++) {
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
