// xpbd/self_friction.comp: step 6 of the substep, second pass (xpbd_spec.h): the same contacts as
// xpbd/self_collide, from the same positions, with friction (Macklin 2014) on the relative displacement
// after every particle's push, so that the static friction of one contact does not hold back the push-out
// of another (a particle wedged between two contacts with crossed normals: docs/SOFTBODY.md, "Coming to
// rest"). Writes the pushes plus friction and the count into its own buffer, which add_delta applies (not
// body_volume's scratch: its weights must outlive the substep for Diziol's velocity correction).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "particle_contacts.glsl"
layout(std430, binding = FL_XPBD_B_CONTACT_CORRECTIONS) writeonly buffer Corrections { vec4 corrections[]; };

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.particle_count) return;
  corrections[i] = pos[i].w > 0.0 && delta[i].w > 0.0 ? particle_contacts(i, true) : vec4(0.0);
}
