// xpbd/global_damping.comp: step 7, the "global" damping model (PBD survey,
// "Damping": damp each velocity's deviation from the body's rigid motion; the
// velocity-damping step of Mueller et al. 2007, Sec. 3.5). One workgroup per
// object; for objects with the global model:
//   x_cm = sum m_i x_i / M,  v_cm = sum m_i v_i / M,  r_i = x_i - x_cm,
//   L = sum m_i r_i x v_i,  I = sum m_i (|r_i|^2 E - r_i r_i^T),  w = I^-1 L,
//   v_i += k (v_cm + w x r_i - v_i),  k = min(damping h, 1).
// sum m_i dv_i = k (M v_cm - M v_cm) = 0 and sum m_i r_i x dv_i = k (I w - L) = 0:
// linear and angular momentum are kept while the motion relative to the rigid
// one decays by (1 - k) per substep. Pinned particles (w = 0) neither count nor
// change. A body whose I cannot be inverted (all particles on a line) keeps
// only v_cm (w = 0). Sums are reduced in a fixed order (workgroup_sum.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_VEL) buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer Objects { fl_gpu_xpbd_object objects[]; };
#include "workgroup_sum.glsl"

void main()
{
  fl_gpu_xpbd_object o = objects[gl_WorkGroupID.x];
  if (o.damping_model != FL_DAMPING_MODEL_GLOBAL || !(o.damping > 0.0)) return; // the same for the whole workgroup
  uint end = o.first + o.count, lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
  float m = 0.0;
  vec3 mx = vec3(0.0), mv = vec3(0.0);
  for (uint i = o.first + lid; i < end; i += wg) {
    vec4 p = pos[i];
    if (p.w <= 0.0) continue;
    float mi = 1.0 / p.w;
    m += mi;
    mx += mi * p.xyz;
    mv += mi * vel[i].xyz;
  }
  float total = workgroup_sum(m);
  if (!(total > 0.0)) return;
  vec3 x_cm = workgroup_sum3(mx) / total, v_cm = workgroup_sum3(mv) / total;
  vec3 l = vec3(0.0), diag = vec3(0.0), off = vec3(0.0); // I: diagonal, then (xy, xz, yz)
  for (uint i = o.first + lid; i < end; i += wg) {
    vec4 p = pos[i];
    if (p.w <= 0.0) continue;
    float mi = 1.0 / p.w;
    vec3 r = p.xyz - x_cm;
    l += mi * cross(r, vel[i].xyz);
    diag += mi * (vec3(dot(r, r)) - r * r);
    off -= mi * vec3(r.x * r.y, r.x * r.z, r.y * r.z);
  }
  l = workgroup_sum3(l);
  diag = workgroup_sum3(diag);
  off = workgroup_sum3(off);
  mat3 inertia = mat3(diag.x, off.x, off.y, off.x, diag.y, off.z, off.y, off.z, diag.z);
  float det = determinant(inertia), scale = diag.x + diag.y + diag.z;
  vec3 w = det > 1e-9 * scale * scale * scale ? inverse(inertia) * l : vec3(0.0);
  float k = min(o.damping * pc.h, 1.0);
  for (uint i = o.first + lid; i < end; i += wg) {
    vec4 p = pos[i];
    if (p.w <= 0.0) continue;
    vec3 v = vel[i].xyz;
    vel[i] = vec4(v + k * (v_cm + cross(w, p.xyz - x_cm) - v), 0.0);
  }
}
