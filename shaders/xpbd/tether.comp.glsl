// xpbd/tether.comp: long range attachments (Kim, Chentanez and Mueller 2012, "Long Range Attachments: A
// Method to Simulate Inextensible Clothing in Computer Games"; xpbd_spec.h step 4b): a particle of a cloth
// with "tethers" may be no farther from its two pinned particles (flurry_shared.h fl_gpu_tether) than
// their distances across the sheet at rest: projected onto the two spheres in turn, FL_TETHER_ROUNDS times
// (alternating projections onto two balls approach their intersection).
// C = |x_i - x_pin| - rest <= 0 with w_pin = 0, so the projection moves x_i alone, whatever its mass (a
// load the coupling adds to it too): onto the sphere around the pin. Pins never move here, so the
// particles are independent.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_TETHER) readonly buffer Tethers { fl_gpu_tether tethers[]; };

// Particle k put back on the sphere of radius rest around pin `pin` when it is outside it.
void tether(uint k, uint pin, float rest)
{
  if (pin == FL_TETHER_NONE) return;
  vec3 d = pos[k].xyz - pos[pin].xyz;
  float len = length(d);
  if (len > rest) pos[k].xyz = pos[pin].xyz + d * (rest / len);
}

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  fl_gpu_tether t = tethers[k];
  for (int round = 0; round < FL_TETHER_ROUNDS; round++) {
    tether(k, t.pin0, t.rest0);
    tether(k, t.pin1, t.rest1);
  }
}
