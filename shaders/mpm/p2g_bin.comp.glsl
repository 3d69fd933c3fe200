// mpm/p2g_bin.comp: the first pass of the gathered P2G (issue 14; the scatter
// it replaces is mpm/p2g.glsl), one thread per particle: the particle's bin is
// the grid node at base + 1 of its stencil (snow_spec.h WEIGHTS: floor(fx) for
// the cubic stencil, the nearest node for the quadratic one), so every node its
// stencil reaches lies within -1 .. +2 of the bin per axis. Counts the bin's
// particles (one int atomic per particle, against 448 float adds of the
// scatter) and keeps the particle's (bin, rank in the bin); mpm/p2g_list then
// places it after the scan of the counts. A particle whose bin's block has no
// slot (the grid ran out; mpm/blocks counted it) gets FL_SNOW_NO_NODE and adds
// nothing, as in the scatter. counts is zeroed before this pass.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
layout(std430, binding = 3) readonly buffer BlockHash { uint block_hash[]; };
#define FL_MPM_BLOCK_HASH
#include "mpm.glsl"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Stress { vec4 stress[]; };
layout(std140, binding = 2) uniform Materials { fl_snow_material materials[FL_SNOW_MAX_MATERIALS]; };
layout(std430, binding = 4) buffer Counts { uint counts[]; };
layout(std430, binding = 5) writeonly buffer Bins { uvec2 bins[]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

void main()
{
  uint p = fl_thread_index();
  if (p >= pc.count) return;
  bool quadratic = materials[uint(stress[2u * p + 1u].w)].transfer == FL_SNOW_TRANSFER_APIC;
  ivec3 bin = fl_mpm_stencil_base((pos[p].xyz - pc.grid_origin) * pc.inv_h, quadratic) + 1;
  uint node = fl_mpm_node_of(bin, pc);
  bins[p] = uvec2(node, node == FL_SNOW_NO_NODE ? 0u : atomicAdd(counts[node], 1u));
}
