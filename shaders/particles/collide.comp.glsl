// particles/collide.comp: resolves particle-collider contacts after a substep.
// For each collider (through common/sdf.glsl) and each domain wall: a particle
// of radius r closer than r is pushed out along the normal; its velocity
// relative to the collider loses its approaching normal part (restitution e)
// and its tangential part is Coulomb-limited: |dv_t| <= mu (1 + e) |v_n|.
// CPU reference: src/sim/particles/particles_cpu.c (fl_particles_cpu_collide).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_COLLIDERS_BINDING 2 // the collider block (common/sdf.glsl)
#define FL_COLLIDER_TAIL_BINDING 3 // the same buffer, for the tail (common/sdf.glsl)
#include "compute.glsl"
#include "flurry_shared.h"
#include "sdf.glsl"

layout(std430, binding = 0) buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) buffer Velocities { vec4 vel[]; };
layout(push_constant) uniform Push { fl_particles_push pc; };

// Applies one contact with outward normal n, penetration depth > 0, surface velocity vs.
void contact(inout vec3 x, inout vec3 v, vec3 n, float depth, vec3 vs, float mu, float e)
{
  x += n * depth;
  vec3 vr = v - vs;
  float vn = dot(vr, n);
  if (vn >= 0.0) return;  // already separating
  vec3 vt = vr - vn * n;
  float vt_len = length(vt);
  float slow = mu * (1.0 + e) * (-vn);
  vt = vt_len > slow ? vt * (1.0 - slow / vt_len) : vec3(0.0);
  v = vs + vt - e * vn * n;
}

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.count) return;
  vec4 p = pos[i];
  if (p.w == 0.0) return;  // pinned
  vec3 x = p.xyz, v = vel[i].xyz;
  float r = pc.radius, e = pc.restitution, t = pc.time, mu_scale = pc.friction;
  for (uint c = 0u; c < pc.collider_count; c++) {
    fl_gpu_collider col = colliders[c];
    float d = fl_collider_sdf(col, x, t) - r;
    if (d < 0.0) contact(x, v, fl_collider_normal_select(col, x, t, pc.tetrahedral_normals != 0u), -d, fl_collider_velocity(col, x, t), col.friction * mu_scale, e);
  }
  for (int a = 0; a < 3; a++) {  // domain walls: static, friction = mu_scale
    vec3 n = vec3(0.0);
    n[a] = 1.0;
    float lo = x[a] - (pc.domain_min[a] + r), hi = (pc.domain_max[a] - r) - x[a];
    if (lo < 0.0) contact(x, v, n, -lo, vec3(0.0), mu_scale, e);
    if (hi < 0.0) contact(x, v, -n, -hi, vec3(0.0), mu_scale, e);
  }
  pos[i] = vec4(x, p.w);
  vel[i] = vec4(v, 0.0);
}
