// xpbd/self_collide.comp: step 6 of the substep, first pass (xpbd_spec.h): every particle's particle
// contacts (xpbd/particle_contacts.glsl) without friction. It writes the sum of the normal pushes and the
// contact count into delta, which xpbd/self_friction reads, and flags a particle with a contact. Positions
// are not moved here.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "particle_contacts.glsl"
layout(std430, binding = FL_XPBD_B_CONTACT) buffer Contact { uint contact[]; };

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.particle_count) return;
  if (pos[i].w <= 0.0) {
    delta[i] = vec4(0.0);
    return;
  }
  vec4 r = particle_contacts(i, false);
  if (r.w > 0.0) contact[i] = 1u;
  delta[i] = r;
}
