// mpm/g2p2g.glsl, the kernels mpm/g2p2g (any materials), g2p2g_pic_flip and g2p2g_apic: G2P of
// one substep fused with the P2G of the next (G2P2G, Wang et al. 2020, "A massively parallel and
// scalable multi-GPU material point method", Claymore), one thread per particle. The thread runs
// mpm/g2p.glsl's step (snow_spec.h step 3) and, from the state it has just written (x, v, m, the
// stress K and the affine C), adds the particle's mass, momentum and impulse into the NEXT grid
// (snow_spec.h step 1), so the next substep's P2G pass, and its reads of x, v, K, C, go away.
// The next grid has its own block hash (binding 12, filled by mpm/blocks with a margin of one
// cell before this pass: by the CFL limit a particle moves less than a cell in a substep), since
// this pass still reads the current grid's velocities through the current hash (binding 9).
// A particle that moved past that margin finds no block for part of its stencil: its lost
// contributions count in the stats' GRID_FULL word (the health watch reports it).
// The adds are float atomics straight into the accumulator (no shared-memory arena: on CPU drivers
// a shared-memory atomic costs what a global one does, docs/PERFORMANCE.md), so the kernel needs
// VK_EXT_shader_atomic_float (snow.c refuses sim.snow_transfer "g2p2g" without it).
// The same sums as mpm/p2g.glsl's scatter (CPU reference: fl_snow_cpu_p2g after fl_snow_cpu_g2p).
#extension GL_EXT_shader_atomic_float : require
layout(std430, binding = 11) buffer Accumulator { float acc[]; };
layout(std430, binding = 12) readonly buffer NextBlockHash { uint next_hash[]; };
bool fl_next_hash = false;  // which hash fl_mpm_block_find reads (mpm.glsl FL_MPM_HASH)
#define FL_MPM_HASH(i) (fl_next_hash ? next_hash[i] : block_hash[i])
#define FL_G2P2G
void fl_g2p2g_scatter(vec3 x, vec3 v, float m, vec4 k0, vec4 k1, mat3 C, bool apic);
#include "g2p.glsl"

bool fl_lost = false;  // a stencil node of the next grid had no block

// Adds one particle's contributions to node i of the next grid (the impulse folded into the momentum
// when `fold`), as mpm/p2g.glsl's scatter does.
void fl_g2p2g_add(uint i, float mass, vec3 mom, vec3 imp, bool fold)
{
  if (i == FL_SNOW_NO_NODE) {
    fl_lost = fl_lost || mass != 0.0;
    return;
  }
  if (fold) mom += imp;
  atomicAdd(acc[8u * i + 0u], mom.x);
  atomicAdd(acc[8u * i + 1u], mom.y);
  atomicAdd(acc[8u * i + 2u], mom.z);
  atomicAdd(acc[8u * i + 3u], mass);
  if (!fold) {
    atomicAdd(acc[8u * i + 4u], imp.x);
    atomicAdd(acc[8u * i + 5u], imp.y);
    atomicAdd(acc[8u * i + 6u], imp.z);
  }
}

// The next substep's P2G of one particle (snow_spec.h step 1; mpm/p2g.glsl particle()), from the state
// G2P wrote: K rebuilt symmetric from its six stored words, as P2G reads it.
void fl_g2p2g_scatter(vec3 x, vec3 v, float m, vec4 k0, vec4 k1, mat3 C, bool apic)
{
  fl_next_hash = true;
  fl_mpm_stencil s = fl_mpm_stencil_of(x, pc, apic);
  fl_next_hash = false;
  mat3 K = mat3(k0.x, k0.w, k1.x, k0.w, k0.y, k1.y, k1.x, k1.y, k0.z);
  bool fold = (pc.flags & FL_MPM_FOLD_IMPULSE) != 0u;
  float dt = pc.dt, inv_h = pc.inv_h, mls = 4.0 * inv_h * inv_h;
  if (apic) {
    FL_MPM_FOR_STENCIL(3, {
      float w = fl_mpm_weight(s, a, b, c);
      vec3 dx = fl_mpm_node_position(s, a, b, c, pc) - x;
      fl_g2p2g_add(fl_mpm_node(s, a, b, c, pc), w * m, w * m * (v + C * dx), -dt * mls * w * (K * dx), fold);
    })
  } else {
    FL_MPM_FOR_STENCIL(4, {
      float w = fl_mpm_weight(s, a, b, c);
      fl_g2p2g_add(fl_mpm_node(s, a, b, c, pc), w * m, w * m * v, -dt * (K * fl_mpm_weight_gradient(s, a, b, c, inv_h)),
                   fold);
    })
  }
  if (fl_lost) atomicAdd(stats[FL_SNOW_STAT_GRID_FULL], 1u);
}
