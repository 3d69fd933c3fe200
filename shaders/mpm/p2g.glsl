// mpm/p2g.glsl: the P2G scatter (snow_spec.h step 1), a template included by
// p2g_float.comp (float atomics, VK_EXT_shader_atomic_float) and p2g_fixed.comp
// (int32 fixed point), which define FL_ACC_TYPE and FL_ACC_ADD(word, value, scale).
// Each particle adds to the 64 (cubic, PIC/FLIP) or 27 (quadratic, APIC)
// nodes of its stencil: mass m_i, momentum P_i and impulse Q_i = dt f_i
// (Stomakhin 2013 Eq. 6: f_i = -sum_p V0_p (dPsi/dF_E) F_E^T grad w_ip;
// MLS-MPM, Hu 2018: grad w_ip ~ (4/h^2) w_ip (x_i - x_p)).
// CPU reference: src/sim/mpm/snow_cpu.c (fl_snow_cpu_p2g).
#include "compute.glsl"
#include "mpm.glsl"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Velocities { vec4 vel[]; };
layout(std430, binding = 2) readonly buffer Stress { vec4 stress[]; };
layout(std430, binding = 3) readonly buffer Affine { vec4 affine[]; };
layout(std430, binding = 4) buffer Accumulator { FL_ACC_TYPE acc[]; };
layout(std140, binding = 5) uniform Materials { fl_snow_material materials[FL_SNOW_MAX_MATERIALS]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

// Adds one particle's mass, momentum and impulse to node i (the impulse folded into the momentum when `fold`).
void scatter(uint i, float mass, vec3 mom, vec3 imp, bool fold)
{
  float mass_scale = pc.mass_scale, momentum_scale = pc.momentum_scale;
  if (fold) mom += imp;
  FL_ACC_ADD(8u * i + 0u, mom.x, momentum_scale);
  FL_ACC_ADD(8u * i + 1u, mom.y, momentum_scale);
  FL_ACC_ADD(8u * i + 2u, mom.z, momentum_scale);
  FL_ACC_ADD(8u * i + 3u, mass, mass_scale);
  if (!fold) {
    FL_ACC_ADD(8u * i + 4u, imp.x, momentum_scale);
    FL_ACC_ADD(8u * i + 5u, imp.y, momentum_scale);
    FL_ACC_ADD(8u * i + 6u, imp.z, momentum_scale);
  }
}

void main()
{
  uint p = fl_thread_index();
  if (p >= pc.count) return;
  vec4 xm = pos[p];
  vec3 x = xm.xyz, v = vel[p].xyz;
  float m = xm.w, dt = pc.dt;
  vec4 s0 = stress[2u * p], s1 = stress[2u * p + 1u];
  mat3 K = mat3(s0.x, s0.w, s1.x, s0.w, s0.y, s1.y, s1.x, s1.y, s0.z);  // symmetric
  fl_snow_material mat = materials[uint(s1.w)];
  bool apic = mat.transfer == FL_SNOW_TRANSFER_APIC;
  bool fold = (pc.flags & FL_MPM_FOLD_IMPULSE) != 0u;
  mat3 C = mat3(0.0);
  if (apic) C = transpose(mat3(affine[3u * p].xyz, affine[3u * p + 1u].xyz, affine[3u * p + 2u].xyz));
  fl_mpm_stencil s = fl_mpm_stencil_of(x, pc, apic);
  float inv_h = pc.inv_h, mls = 4.0 * inv_h * inv_h;
  if (apic) {
    FL_MPM_FOR_STENCIL(3, {
      float w = fl_mpm_weight(s, a, b, c);
      vec3 dx = fl_mpm_node_position(s, a, b, c, pc) - x;
      vec3 mom = w * m * (v + C * dx);
      scatter(fl_mpm_node(s, a, b, c, pc), w * m, mom, -dt * mls * w * (K * dx), fold);
    })
  } else {
    FL_MPM_FOR_STENCIL(4, {
      float w = fl_mpm_weight(s, a, b, c);
      vec3 imp = -dt * (K * fl_mpm_weight_gradient(s, a, b, c, inv_h));
      scatter(fl_mpm_node(s, a, b, c, pc), w * m, w * m * v, imp, fold);
    })
  }
}
