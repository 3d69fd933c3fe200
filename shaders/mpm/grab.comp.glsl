// mpm/grab.comp: grabbing snow with the mouse (issue 14 item 7), one thread
// per particle, at the start of each substep while the snow is held (the
// picker, sim/common/pick.h, found a snow particle under the cursor). Snow has
// no particle to pin: its particles are re-sorted every frame and a single one
// would tear out of the grid. So the grab is a soft handle: every particle
// within `radius` of the drag target is pulled towards it,
//   v <- mix(v, (target - x) / FL_SNOW_GRAB_TIME, 1 - |target - x| / radius),
// and P2G carries that velocity to the grid, where the snow around it follows
// through the stress (a sphere of snow dragged along with the cursor).
// Push: fl_pick_push (target, radius, count).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "mpm_shared.h"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) buffer Velocities { vec4 vel[]; };
layout(push_constant) uniform Push { fl_pick_push pc; };

void main()
{
  uint p = fl_thread_index();
  if (p >= pc.count) return;
  vec3 to_target = pc.target - pos[p].xyz;
  float d = length(to_target);
  if (!(d < pc.radius)) return;
  vec4 v = vel[p];  // w: the volume V0, kept
  vel[p] = vec4(mix(v.xyz, to_target / FL_SNOW_GRAB_TIME, 1.0 - d / pc.radius), v.w);
}
