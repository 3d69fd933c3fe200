// mpm/publish.comp: the render snapshot of a frame slot: each particle's
// position and the grid density there (kg/m^3, from the last substep's P2G),
// so the renderer can tell loose from packed snow.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "mpm_shared.h"
layout(std430, binding = 5) readonly buffer BlockHash { uint block_hash[]; };
#define FL_MPM_BLOCK_HASH

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Stress { vec4 stress[]; };
layout(std430, binding = 2) readonly buffer GridVelocity { vec4 gridv[]; };
layout(std430, binding = 3) writeonly buffer Snapshot { vec4 snap[]; };
layout(std140, binding = 4) uniform Materials { fl_snow_material materials[FL_SNOW_MAX_MATERIALS]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };
#include "density.glsl"

void main()
{
  uint p = fl_thread_index();
  if (p >= pc.count) return;
  vec3 x = pos[p].xyz;
  bool apic = materials[uint(stress[2u * p + 1u].w)].transfer == FL_SNOW_TRANSFER_APIC;
  snap[p] = vec4(x, fl_mpm_density(x, apic, pc));
}
