// coupling/surface_release.comp: after coupling/release (docs/COUPLING.md, "Surface samples"), one
// thread per attached surface sample s: its parcel's velocity becomes the velocity the XPBD
// substeps left its triangle at the sample, v_a = sum b_k v_k, plus its slip u': every node of it
// changes velocity by delta = v_a + u' - v_parcel (the contact's shares, same stencil, int32 fixed
// point), and impulse[particle_count + s] records -M delta, what the snow gave the body there.
// With the vertices' pairs (which carried b_k M of it) this conserves momentum as release.comp does.
// CPU reference: src/sim/coupling/coupling_cpu.c.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "coupling_shared.h"
layout(push_constant) uniform Push { fl_coupling_push pc; };
#include "surface_bindings.glsl"

void main()
{
  uint t = fl_thread_index();
  if (t >= pc.sample_count) return;
  uint o = FL_COUPLING_SAMPLE_VEC4S * t;
  vec4 a0 = sample_attach[o];
  if (!(a0.w > 0.0)) return;
  fl_coupling_sample q = fl_coupling_sample_of(t);
  vec3 delta = fl_coupling_sample_velocity(q) + sample_attach[o + 1u].xyz;
  fl_mpm_push m = fl_coupling_mpm_push();
  fl_mpm_stencil s = fl_mpm_stencil_of(a0.xyz, m, true);
  fl_coupling_spread(s, m, delta, q.scale, q.kind);
  vec3 J = a0.w * delta;
  impulse[pc.particle_count + t] += vec4(-J, length(J));
}
