// mpm/cell_keys.comp: the sort keys of the particles (snow_spec.h SORT): key =
// the block key of the grid block holding the particle's cell
// floor((x - origin) / h), shifted left by push arg bits (6 when the lattice's
// blocks times 64 fit in 32 bits, else 0) and, in those bits, the cell's place
// in its block; value = the particle's index. The radix sort then orders the
// particles by block (and by cell within it), so P2G's neighbouring threads
// touch the same blocks and neighbouring nodes.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "mpm.glsl"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) writeonly buffer Values { uint values[]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

void main()
{
  uint p = fl_thread_index();
  if (p >= pc.count) return;
  ivec3 n = ivec3(pc.grid_dims);
  ivec3 c = clamp(ivec3(floor((pos[p].xyz - pc.grid_origin) * pc.inv_h)), ivec3(0), n - 1);
  uint key = fl_mpm_block_key(c >> 2, pc);
  if (pc.arg != 0u) key = (key << pc.arg) | uint((c.z & 3) * 16 + (c.y & 3) * 4 + (c.x & 3));
  keys[p] = key;
  values[p] = p;
}
