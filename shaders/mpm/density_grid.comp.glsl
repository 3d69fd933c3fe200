// mpm/density_grid.comp: the grid's density m_i / h^3 per node (kg/m^3) into a
// frame slot's float buffer, for the volume view of the snow.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "mpm_shared.h"

layout(std430, binding = 0) readonly buffer GridVelocity { vec4 gridv[]; };
layout(std430, binding = 1) writeonly buffer Density { float density[]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.node_count) return;
  float h = pc.h;
  density[i] = gridv[2u * i].w / (h * h * h);
}
