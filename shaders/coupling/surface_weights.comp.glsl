// coupling/surface_weights.comp: pass 1b of a coupling substep (docs/COUPLING.md, "Surface
// samples"): one thread per surface sample s of a closed body's triangle adds its quadratic B-spline
// weights w_is to W_i of the nodes it reaches, after coupling/weights added the particles' (the
// samples share the nodes' mass with the particles as one more set of contact points).
// CPU reference: src/sim/coupling/coupling_cpu.c.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "coupling_shared.h"
layout(push_constant) uniform Push { fl_coupling_push pc; };
#define FL_COUPLING_MARK
#include "surface_bindings.glsl"

void main()
{
  uint t = fl_thread_index();
  if (t >= pc.sample_count) return;
  fl_coupling_sample q = fl_coupling_sample_of(t);
  fl_coupling_add_weights(fl_coupling_sample_point(q, fl_coupling_sample_velocity(q)), q.scale);
}
