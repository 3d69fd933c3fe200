// mpm/p2g.glsl: the P2G scatter (snow_spec.h step 1), a template included by
// p2g_float.glsl (float atomics, VK_EXT_shader_atomic_float) and p2g_fixed.glsl
// (int32 fixed point), which define FL_ACC_TYPE, FL_ACC_ADD(word, value, scale),
// FL_TILE_TYPE, FL_TILE_ADD(word, value, scale), FL_TILE_BITS(word) and
// FL_FLUSH_ADD(word, bits); the kernels p2g_{float,fixed}_tile.comp and
// p2g_float_tile_shared.comp define FL_P2G_TILED for the shared-memory tile.
// Push arg: the first particle (the load-time pass submits P2G in chunks).
// Each particle adds to the 64 (cubic, PIC/FLIP) or 27 (quadratic, APIC)
// nodes of its stencil: mass m_i, momentum P_i and impulse Q_i = dt f_i
// (Stomakhin 2013 Eq. 6: f_i = -sum_p V0_p (dPsi/dF_E) F_E^T grad w_ip;
// MLS-MPM, Hu 2018: grad w_ip ~ (4/h^2) w_ip (x_i - x_p)).
// CPU reference: src/sim/mpm/snow_cpu.c (fl_snow_cpu_p2g).
// Nodes are those of the sparse grid (snow_spec.h GRID): the stencil finds its
// blocks' slots in the block hash that mpm/blocks.comp filled this substep.
#include "compute.glsl"
layout(std430, binding = 6) readonly buffer BlockHash { uint block_hash[]; };
#define FL_MPM_BLOCK_HASH
#include "mpm.glsl"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Velocities { vec4 vel[]; };
layout(std430, binding = 2) readonly buffer Stress { vec4 stress[]; };
layout(std430, binding = 3) readonly buffer Affine { vec4 affine[]; };
layout(std430, binding = 4) buffer Accumulator { FL_ACC_TYPE acc[]; };
layout(std140, binding = 5) uniform Materials { fl_snow_material materials[FL_SNOW_MAX_MATERIALS]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

// The workgroup's tile (issue 14 item 2): its particles are consecutive in block
// and cell order, so their stencils usually fit one box of FL_P2G_TILE^3 nodes.
// Then every particle adds into the tile in shared memory, and the tile is
// written out once, one global add per node word (instead of one per particle
// per node word: 448 a particle with cubic weights). A workgroup whose nodes
// do not fit adds straight into the grid, as every workgroup of the kernels
// built without FL_P2G_TILED does (CPU drivers: their shared-memory atomics
// cost what global ones do, docs/PERFORMANCE.md; and llvmpipe compiles the
// kernel without the tile in a fraction of the time). FL_TILE_ADD(word, value,
// scale) adds into tile[word], FL_TILE_BITS(word) reads it as bits (0: nothing added),
// FL_FLUSH_ADD(word, bits) adds those bits' value into acc[word].
#define FL_P2G_TILE 8
#define FL_P2G_TILE_NODES 512u
#ifdef FL_P2G_TILED
shared FL_TILE_TYPE tile[FL_P2G_TILE_NODES * 7u];
shared int s_lo[3], s_hi[3];
#endif

// Adds one particle's mass, momentum and impulse to node i of the grid, or of the tile when `tiled`
// (the impulse folded into the momentum when `fold`).
void scatter(bool tiled, uint i, float mass, vec3 mom, vec3 imp, bool fold)
{
  if (i == FL_SNOW_NO_NODE) return;  // the grid ran out of blocks (counted by mpm/blocks)
  float mass_scale = pc.mass_scale, momentum_scale = pc.momentum_scale;
  if (fold) mom += imp;
#ifdef FL_P2G_TILED
  if (tiled) {
    FL_TILE_ADD(7u * i + 0u, mom.x, momentum_scale);
    FL_TILE_ADD(7u * i + 1u, mom.y, momentum_scale);
    FL_TILE_ADD(7u * i + 2u, mom.z, momentum_scale);
    FL_TILE_ADD(7u * i + 3u, mass, mass_scale);
    if (!fold) {
      FL_TILE_ADD(7u * i + 4u, imp.x, momentum_scale);
      FL_TILE_ADD(7u * i + 5u, imp.y, momentum_scale);
      FL_TILE_ADD(7u * i + 6u, imp.z, momentum_scale);
    }
    return;
  }
#endif
  FL_ACC_ADD(8u * i + 0u, mom.x, momentum_scale);
  FL_ACC_ADD(8u * i + 1u, mom.y, momentum_scale);
  FL_ACC_ADD(8u * i + 2u, mom.z, momentum_scale);
  FL_ACC_ADD(8u * i + 3u, mass, mass_scale);
  if (!fold) {
    FL_ACC_ADD(8u * i + 4u, imp.x, momentum_scale);
    FL_ACC_ADD(8u * i + 5u, imp.y, momentum_scale);
    FL_ACC_ADD(8u * i + 6u, imp.z, momentum_scale);
  }
}

// Stencil node (a, b, c): its index in the tile (whose first node is lo), or in the grid.
uint target(bool tiled, fl_mpm_stencil s, int a, int b, int c, ivec3 lo)
{
  if (!tiled) return fl_mpm_node(s, a, b, c, pc);
  ivec3 t = s.base + ivec3(a, b, c) - lo;
  return uint((t.z * FL_P2G_TILE + t.y) * FL_P2G_TILE + t.x);
}

// One particle's contributions (snow_spec.h step 1).
void particle(uint p, fl_mpm_stencil s, bool tiled, ivec3 lo)
{
  vec4 xm = pos[p];
  vec3 x = xm.xyz, v = vel[p].xyz;
  float m = xm.w, dt = pc.dt;
  vec4 s0 = stress[2u * p], s1 = stress[2u * p + 1u];
  mat3 K = mat3(s0.x, s0.w, s1.x, s0.w, s0.y, s1.y, s1.x, s1.y, s0.z);  // symmetric
  fl_snow_material mat = materials[uint(s1.w)];
  bool apic = mat.transfer == FL_SNOW_TRANSFER_APIC;
  bool fold = (pc.flags & FL_MPM_FOLD_IMPULSE) != 0u;
  mat3 C = mat3(0.0);
  if (apic) C = transpose(mat3(affine[3u * p].xyz, affine[3u * p + 1u].xyz, affine[3u * p + 2u].xyz));
  float inv_h = pc.inv_h, mls = 4.0 * inv_h * inv_h;
  if (apic) {
    FL_MPM_FOR_STENCIL(3, {
      float w = fl_mpm_weight(s, a, b, c);
      vec3 dx = fl_mpm_node_position(s, a, b, c, pc) - x;
      vec3 mom = w * m * (v + C * dx);
      scatter(tiled, target(tiled, s, a, b, c, lo), w * m, mom, -dt * mls * w * (K * dx), fold);
    })
  } else {
    FL_MPM_FOR_STENCIL(4, {
      float w = fl_mpm_weight(s, a, b, c);
      vec3 imp = -dt * (K * fl_mpm_weight_gradient(s, a, b, c, inv_h));
      scatter(tiled, target(tiled, s, a, b, c, lo), w * m, w * m * v, imp, fold);
    })
  }
}

void main()
{
  uint p = pc.arg + fl_thread_index(), local = gl_LocalInvocationIndex, size = gl_WorkGroupSize.x;  // arg: first
  bool valid = p < pc.count;
  fl_mpm_stencil s;
  if (valid) s = fl_mpm_stencil_of(pos[p].xyz, pc, materials[uint(stress[2u * p + 1u].w)].transfer ==
                                                      FL_SNOW_TRANSFER_APIC);
#ifndef FL_P2G_TILED
  if (valid) particle(p, s, false, ivec3(0));
#else
  if (local == 0u) {
    s_lo[0] = s_lo[1] = s_lo[2] = 0x7fffffff;
    s_hi[0] = s_hi[1] = s_hi[2] = -0x7fffffff;
  }
  barrier();
  if (valid)
    for (int a = 0; a < 3; a++) {
      atomicMin(s_lo[a], s.base[a]);
      atomicMax(s_hi[a], s.base[a]);
    }
  barrier();
  ivec3 lo = ivec3(s_lo[0], s_lo[1], s_lo[2]), extent = ivec3(s_hi[0], s_hi[1], s_hi[2]) - lo + 4;
  bool tiled = all(lessThanEqual(extent, ivec3(FL_P2G_TILE)));  // the same in every invocation
  if (!tiled) {
    if (valid) particle(p, s, false, lo);
    return;
  }
  for (uint k = local; k < FL_P2G_TILE_NODES * 7u; k += size) tile[k] = FL_TILE_TYPE(0);
  barrier();
  if (valid) particle(p, s, true, lo);
  barrier();
  for (uint n = local; n < FL_P2G_TILE_NODES; n += size) {
    bool any_word = false;
    for (uint k = 0u; k < 7u; k++) any_word = any_word || FL_TILE_BITS(7u * n + k) != 0u;
    if (!any_word) continue;
    ivec3 node = lo + ivec3(n % 8u, (n / 8u) % 8u, n / 64u);
    uint slot = fl_mpm_block_find(fl_mpm_block_key(node >> 2, pc), pc);
    if (slot == FL_SNOW_NO_BLOCK) continue;  // counted by mpm/blocks
    uvec3 l = uvec3(node & 3);
    uint i = slot * FL_SNOW_BLOCK_NODES + (l.z * 16u + l.y * 4u + l.x);
    for (uint k = 0u; k < 7u; k++)
      if (FL_TILE_BITS(7u * n + k) != 0u) FL_FLUSH_ADD(8u * i + k, FL_TILE_BITS(7u * n + k));
  }
#endif
}
