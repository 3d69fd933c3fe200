// coupling/release.comp: after the XPBD substeps that carried the attached
// parcels (docs/COUPLING.md, substep order), one thread per coupled XPBD
// particle p parts it from its parcel. With v_a the velocity the XPBD substeps
// left the pair (attach[p] from contact.comp; attach[p][1].w > 0 when p carries a parcel, its own
// or its surface samples' shares, coupling/surface_release):
//   particle: v_p = v_a + its offset (0: it moved with the pair); its own inverse mass back in pos.w;
//   parcel:   its velocity becomes v_a + its slip u': every node of it changes velocity by
//             delta = v_a + u' - v_s (v_s its velocity before the contact, which held the grid's
//             g h; the XPBD substeps gave the pair theirs), i.e. node i gains s_ip m_i delta (the
//             contact's shares, same stencil, int32 fixed point), so the parcel gains M delta and
//             impulse[p] records -M delta, what the snow gave p.
// The pair's momentum is conserved by construction: what XPBD's constraints gave
// the pair is split between the particle and the parcel.
// CPU reference: src/sim/coupling/coupling_cpu.c.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "coupling_shared.h"
layout(push_constant) uniform Push { fl_coupling_push pc; };
#include "coupling_bindings.glsl"

void main()
{
  uint p = fl_thread_index();
  if (p >= pc.particle_count || coupled[p] == 0u) return;
  uint o = FL_COUPLING_ATTACH_VEC4S * p;
  vec4 a1 = attach[o + 1u];
  if (!(a1.w > 0.0)) return;  // not carrying (its own parcel or samples' shares)
  vec4 a0 = attach[o];
  vec3 va = vel[p].xyz, delta = va + attach[o + 2u].xyz;
  vel[p] = vec4(va + a1.xyz, vel[p].w);
  pos[p].w = a1.w;
  if (!(a0.w > 0.0)) return;  // only samples' shares: coupling/surface_release gives those back
  fl_mpm_push m = fl_coupling_mpm_push();
  fl_mpm_stencil s = fl_mpm_stencil_of(a0.xyz, m, true);
  fl_coupling_spread(s, m, delta, 1.0, coupled[p]);
  vec3 J = a0.w * delta;
  impulse[p] += vec4(-J, length(J));
}
