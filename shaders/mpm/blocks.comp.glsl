// mpm/blocks.comp: allocates the sparse grid's blocks for one substep
// (snow_spec.h GRID), one thread per particle. Every block of 4x4x4 nodes that
// the particle's stencil touches (cells floor(fx) - 1 .. floor(fx) + 2 per
// axis: 1 to 8 blocks) is inserted into the block hash (open addressing,
// linear probing, atomicCompSwap on the key); the thread that inserts a key
// takes the next slot from the stats' block counter and writes the slot
// beside the key and the key into the slot's entry of `blocks`. Particles are
// sorted by cell once a frame, so a thread whose predecessor touches the same
// blocks inserts nothing. A block past block_capacity gets no slot and counts
// in the stats' GRID_FULL word (the health watch then names the snow).
// Before this pass the hash is filled with FL_SNOW_NO_BLOCK and the counter zeroed.
// Push arg: a margin of cells added on each side (1 for the next substep's grid of the fused
// mpm/g2p2g, which the particles reach after moving less than a cell; 0 otherwise).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "mpm.glsl"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) buffer BlockHash { uint block_hash[]; };
layout(std430, binding = 2) writeonly buffer Blocks { uint blocks[]; };
layout(std430, binding = 3) buffer Stats { uint stats[]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

void insert(uint key)
{
  uint e = fl_mpm_block_hash(key, pc);
  for (uint probe = 0u; probe <= pc.hash_mask; probe++) {
    uint seen = atomicCompSwap(block_hash[2u * e], FL_SNOW_NO_BLOCK, key);
    if (seen == FL_SNOW_NO_BLOCK) {
      uint slot = atomicAdd(stats[FL_SNOW_STAT_BLOCKS], 1u);
      atomicMax(stats[FL_SNOW_STAT_BLOCKS_PEAK], slot + 1u);
      bool fits = slot < pc.block_capacity;
      block_hash[2u * e + 1u] = fits ? slot : FL_SNOW_NO_BLOCK;
      if (fits) blocks[slot] = key;
      else atomicAdd(stats[FL_SNOW_STAT_GRID_FULL], 1u);
      return;
    }
    if (seen == key) return;
    e = (e + 1u) & pc.hash_mask;
  }
  atomicAdd(stats[FL_SNOW_STAT_GRID_FULL], 1u);  // the hash itself is full
}

void main()
{
  uint p = fl_thread_index();
  if (p >= pc.count) return;
  ivec3 first, last;
  int margin = int(pc.arg);
  fl_mpm_block_range(pos[p].xyz, pc, margin, first, last);
  if (p > 0u) {
    ivec3 first_prev, last_prev;
    fl_mpm_block_range(pos[p - 1u].xyz, pc, margin, first_prev, last_prev);
    if (first_prev == first && last_prev == last) return;
  }
  for (int z = first.z; z <= last.z; z++)
    for (int y = first.y; y <= last.y; y++)
      for (int x = first.x; x <= last.x; x++) insert(fl_mpm_block_key(ivec3(x, y, z), pc));
}
