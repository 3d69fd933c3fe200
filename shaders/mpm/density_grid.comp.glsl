// mpm/density_grid.comp: the grid's density m_i / h^3 per node (kg/m^3) into a
// frame slot's float buffer, for the volume view of the snow. The volume is
// dense over grid_dims (the renderer marches it) and filled with 0 before this
// pass; one thread per node of the sparse grid writes its node where it has mass.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
layout(std430, binding = 2) readonly buffer Blocks { uint blocks[]; };
#define FL_MPM_BLOCK_LIST
#include "mpm.glsl"

layout(std430, binding = 0) readonly buffer GridVelocity { vec4 gridv[]; };
layout(std430, binding = 1) writeonly buffer Density { float density[]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.node_count) return;
  float m = gridv[2u * i].w;
  if (!(m > 0.0)) return;  // empty, or a slot no block took this substep
  uvec3 n = fl_mpm_node_coords(i, pc), d = pc.grid_dims;
  if (any(greaterThanEqual(n, d))) return;
  float h = pc.h;
  density[(n.z * d.y + n.y) * d.x + n.x] = m / (h * h * h);
}
