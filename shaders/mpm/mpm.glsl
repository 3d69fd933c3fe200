// mpm/mpm.glsl: what every MPM snow kernel shares (src/sim/mpm/snow_spec.h):
// the B-spline weights (cubic for the paper's PIC/FLIP, quadratic for
// MLS-MPM/APIC), stencil node indices, the fixed-point encoding of the P2G
// accumulator, and the collision rule of Stomakhin et al. 2013 (NOTES.md
// section 4) against colliders and domain walls.
#ifndef FL_MPM_GLSL
#define FL_MPM_GLSL
#extension GL_EXT_control_flow_attributes : require
#include "mpm_shared.h"
#include "sdf.glsl"

// Whether a material word's transfer is APIC. A constant in the kernels built
// for one transfer (FL_MPM_ONLY_PIC_FLIP, FL_MPM_ONLY_APIC; snow.c picks them
// from the scene's materials): llvmpipe runs both sides of a branch with lanes
// masked (a branch on a uniform value too), so a kernel that could meet either
// transfer pays for both stencils at every particle (docs/PERFORMANCE.md,
// "Where the snow step's time goes on lavapipe").
#if defined(FL_MPM_ONLY_APIC)
#define FL_MPM_IS_APIC(transfer) true
#elif defined(FL_MPM_ONLY_PIC_FLIP)
#define FL_MPM_IS_APIC(transfer) false
#else
#define FL_MPM_IS_APIC(transfer) ((transfer) == FL_SNOW_TRANSFER_APIC)
#endif

// The weights of a particle at fx = (x - origin) / h: nodes base + (a, b, c)
// with a, b, c < 4 (cubic) or < 3 (quadratic; the 4th entries are 0); w* the
// per-axis weights N(d), d* their derivatives dN/dd (cubic only). The nodes
// lie in the 2x2x2 blocks from block0 (the sparse grid, snow_spec.h GRID):
// slots_lo holds the slots of the blocks block0 + (dx, dy, 0) at dy * 2 + dx,
// slots_hi those of block0 + (dx, dy, 1).
struct fl_mpm_stencil {
  ivec3 base;
  vec4 wx, wy, wz;
  vec4 dx, dy, dz;
  ivec3 block0;
  uvec4 slots_lo, slots_hi;
};

// The key of block b of the block lattice (mpm_shared.h fl_mpm_push.block_grid_*).
uint fl_mpm_block_key(ivec3 b, fl_mpm_push pc)
{
  return (uint(b.z) * pc.block_grid_y + uint(b.y)) * pc.block_grid_x + uint(b.x);
}

// The block hash's start entry for a key (a 32-bit integer mix, lowbias32).
uint fl_mpm_block_hash(uint key, fl_mpm_push pc)
{
  uint x = key;
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x & pc.hash_mask;
}

// The blocks a particle's stencil touches, in cells from floor(fx) - 1 to floor(fx) + 2 per axis
// (the cubic stencil; the quadratic one lies inside it), widened by `margin` cells on each side:
// first and last block per axis.
void fl_mpm_block_range(vec3 x, fl_mpm_push pc, int margin, out ivec3 first, out ivec3 last)
{
  ivec3 cell = ivec3(floor((x - pc.grid_origin) * pc.inv_h));
  first = (cell - 1 - margin) >> 2;
  last = (cell + 2 + margin) >> 2;
}

// The cubic B-spline N(d) of the paper and dN/dd (snow_spec.h WEIGHTS), for
// d = fx - node: zero from |d| >= 2 on. Shared by the scatter's stencil and the gathered P2G.
void fl_mpm_cubic_at(float d, out float w, out float dw)
{
  float ad = abs(d);
  if (ad < 1.0) {
    w = 0.5 * ad * ad * ad - d * d + 2.0 / 3.0;
    dw = 1.5 * d * ad - 2.0 * d;
  } else if (ad < 2.0) {
    w = -ad * ad * ad / 6.0 + d * d - 2.0 * ad + 4.0 / 3.0;
    dw = -0.5 * d * ad + 2.0 * d - 2.0 * sign(d);
  } else {
    w = 0.0;
    dw = 0.0;
  }
}

// The quadratic B-spline (snow_spec.h WEIGHTS) at |d| <= 1.5: valid on the stencil's three nodes only.
float fl_mpm_quadratic_at(float ad) { return ad < 0.5 ? 0.75 - ad * ad : 0.5 * (1.5 - ad) * (1.5 - ad); }

void fl_mpm_cubic(float fx, out int base, out vec4 w, out vec4 dw)
{
  base = int(floor(fx)) - 1;
  [[unroll]] for (int k = 0; k < 4; k++) {
    float wk, dwk;
    fl_mpm_cubic_at(fx - float(base + k), wk, dwk);
    w[k] = wk;
    dw[k] = dwk;
  }
}

void fl_mpm_quadratic(float fx, out int base, out vec4 w)
{
  base = int(floor(fx - 0.5));
  [[unroll]] for (int k = 0; k < 3; k++) w[k] = fl_mpm_quadratic_at(abs(fx - float(base + k)));
  w[3] = 0.0;
}

// The first node of a particle's stencil at fx = (x - origin) / h (what fl_mpm_cubic and
// fl_mpm_quadratic return as base). The gathered P2G bins a particle by the cell base + 1.
ivec3 fl_mpm_stencil_base(vec3 fx, bool quadratic)
{
  return quadratic ? ivec3(floor(fx - 0.5)) : ivec3(floor(fx)) - 1;
}

#ifdef FL_MPM_BLOCK_HASH  // defined by kernels that declare `block_hash` (uint, 2 per entry: key, slot)
#ifndef FL_MPM_HASH  // word i of the hash looked up (mpm/g2p2g.glsl switches between two hashes)
#define FL_MPM_HASH(i) block_hash[i]
#endif
// The slot of a block, FL_SNOW_NO_BLOCK when it is not allocated.
uint fl_mpm_block_find(uint key, fl_mpm_push pc)
{
  uint e = fl_mpm_block_hash(key, pc);
  for (uint probe = 0u; probe <= pc.hash_mask; probe++) {
    uint k = FL_MPM_HASH(2u * e);
    if (k == key) return FL_MPM_HASH(2u * e + 1u);
    if (k == FL_SNOW_NO_BLOCK) break;
    e = (e + 1u) & pc.hash_mask;
  }
  return FL_SNOW_NO_BLOCK;
}

uint fl_mpm_block_slot(ivec3 block0, ivec3 last, int dx, int dy, int dz, fl_mpm_push pc)
{
  ivec3 b = block0 + ivec3(dx, dy, dz);
  return any(greaterThan(b, last)) ? FL_SNOW_NO_BLOCK : fl_mpm_block_find(fl_mpm_block_key(b, pc), pc);
}

// The slot of block b, FL_SNOW_NO_BLOCK outside the block lattice (whose keys would alias others').
uint fl_mpm_block_slot_checked(ivec3 b, fl_mpm_push pc)
{
  ivec3 dims = ivec3(pc.block_grid_x, pc.block_grid_y, (pc.grid_dims.z + 3u) / 4u);
  if (any(lessThan(b, ivec3(0))) || any(greaterThanEqual(b, dims))) return FL_SNOW_NO_BLOCK;
  return fl_mpm_block_find(fl_mpm_block_key(b, pc), pc);
}

// The index of lattice node n in the sparse grid, FL_SNOW_NO_NODE when its block is not allocated.
uint fl_mpm_node_of(ivec3 n, fl_mpm_push pc)
{
  uint slot = fl_mpm_block_slot_checked(n >> 2, pc);
  uvec3 l = uvec3(n & 3);
  return slot == FL_SNOW_NO_BLOCK ? FL_SNOW_NO_NODE : slot * FL_SNOW_BLOCK_NODES + (l.z * 16u + l.y * 4u + l.x);
}

fl_mpm_stencil fl_mpm_stencil_of(vec3 x, fl_mpm_push pc, bool quadratic)
{
  vec3 fx = (x - pc.grid_origin) * pc.inv_h;
  fl_mpm_stencil s;
  ivec3 last;
  fl_mpm_block_range(x, pc, 0, s.block0, last);
  s.slots_lo = uvec4(fl_mpm_block_slot(s.block0, last, 0, 0, 0, pc), fl_mpm_block_slot(s.block0, last, 1, 0, 0, pc),
                     fl_mpm_block_slot(s.block0, last, 0, 1, 0, pc), fl_mpm_block_slot(s.block0, last, 1, 1, 0, pc));
  s.slots_hi = uvec4(fl_mpm_block_slot(s.block0, last, 0, 0, 1, pc), fl_mpm_block_slot(s.block0, last, 1, 0, 1, pc),
                     fl_mpm_block_slot(s.block0, last, 0, 1, 1, pc), fl_mpm_block_slot(s.block0, last, 1, 1, 1, pc));
  s.dx = s.dy = s.dz = vec4(0.0);
  if (quadratic) {
    fl_mpm_quadratic(fx.x, s.base.x, s.wx);
    fl_mpm_quadratic(fx.y, s.base.y, s.wy);
    fl_mpm_quadratic(fx.z, s.base.z, s.wz);
  } else {
    fl_mpm_cubic(fx.x, s.base.x, s.wx, s.dx);
    fl_mpm_cubic(fx.y, s.base.y, s.wy, s.dy);
    fl_mpm_cubic(fx.z, s.base.z, s.wz, s.dz);
  }
  return s;
}

// Loops over the stencil with constant trip counts, so the compiler unrolls
// them and the weight vectors are indexed by constants (llvmpipe, like most
// compilers, spills dynamically indexed arrays to memory). BODY uses a, b, c.
#define FL_MPM_FOR_STENCIL(width, BODY)                                                    \
  [[unroll]] for (int c = 0; c < width; c++)[[unroll]] for (int b = 0; b < width; b++)     \
      [[unroll]] for (int a = 0; a < width; a++) { BODY; }

float fl_mpm_weight(fl_mpm_stencil s, int a, int b, int c) { return s.wx[a] * s.wy[b] * s.wz[c]; }

// grad w_ip (cubic): the derivative of the weight with respect to x_p.
vec3 fl_mpm_weight_gradient(fl_mpm_stencil s, int a, int b, int c, float inv_h)
{
  return vec3(s.dx[a] * s.wy[b] * s.wz[c], s.wx[a] * s.dy[b] * s.wz[c], s.wx[a] * s.wy[b] * s.dz[c]) * inv_h;
}

// The index of stencil node (a, b, c) in the sparse grid's buffers, FL_SNOW_NO_NODE when its block
// is not allocated (the grid ran out of blocks: the frame's stats say so).
uint fl_mpm_node(fl_mpm_stencil s, int a, int b, int c, fl_mpm_push pc)
{
  ivec3 n = s.base + ivec3(a, b, c);
  ivec3 d = (n >> 2) - s.block0;
  uvec4 q = d.z == 0 ? s.slots_lo : s.slots_hi;
  uint slot = d.y == 0 ? (d.x == 0 ? q.x : q.y) : (d.x == 0 ? q.z : q.w);
  uvec3 l = uvec3(n & 3);
  return slot == FL_SNOW_NO_BLOCK ? FL_SNOW_NO_NODE : slot * FL_SNOW_BLOCK_NODES + (l.z * 16u + l.y * 4u + l.x);
}
#endif

#ifdef FL_MPM_BLOCK_LIST  // defined by kernels that declare `blocks` (the key of each slot)
// The lattice coordinates of node i of the sparse grid (its slot's block key, its place in the block).
uvec3 fl_mpm_node_coords(uint i, fl_mpm_push pc)
{
  uint key = blocks[i / FL_SNOW_BLOCK_NODES], l = i % FL_SNOW_BLOCK_NODES;
  uvec3 b = uvec3(key % pc.block_grid_x, (key / pc.block_grid_x) % pc.block_grid_y,
                  key / (pc.block_grid_x * pc.block_grid_y));
  return b * 4u + uvec3(l & 3u, (l >> 2) & 3u, l >> 4);
}

// The world position of node i of the sparse grid.
vec3 fl_mpm_node_world(uint i, fl_mpm_push pc) { return pc.grid_origin + vec3(fl_mpm_node_coords(i, pc)) * pc.h; }
#endif

// The world position of stencil node (a, b, c).
vec3 fl_mpm_node_position(fl_mpm_stencil s, int a, int b, int c, fl_mpm_push pc)
{
  return pc.grid_origin + vec3(s.base + ivec3(a, b, c)) * pc.h;
}

// Fixed point: round half to even (the CPU reference uses rintf), saturated to int32.
int fl_mpm_fixed(float v, float scale)
{
  return int(clamp(roundEven(v * scale), -2147483520.0, 2147483520.0));
}

// The collision rule: v_rel = v - v_co; nothing when separating (v_n >= 0);
// else the tangential part stops when |v_t| <= -mu v_n, or loses mu |v_n|.
vec3 fl_mpm_collide_rule(vec3 v, vec3 v_co, vec3 n, float mu)
{
  vec3 v_rel = v - v_co;
  float v_n = dot(v_rel, n);
  if (v_n >= 0.0) return v;
  vec3 v_t = v_rel - n * v_n;
  float t_len = length(v_t);
  v_rel = t_len <= -mu * v_n ? vec3(0.0) : v_t + mu * v_n * v_t / t_len;
  return v_rel + v_co;
}

#ifdef FL_MPM_COLLIDERS  // defined by kernels that declare the `colliders` uniform before this include
// Applies every collider with phi(x, t) <= touch, then every domain wall x is on or beyond (within
// touch: FL_SNOW_TOUCH h, so that a node on a wall is on it whatever the rounding of origin + i h).
vec3 fl_mpm_collide(vec3 x, vec3 v, float mu, fl_mpm_push pc)
{
  float t = pc.time, touch = float(FL_SNOW_TOUCH) * pc.h;
  bool tetra = (pc.flags & FL_MPM_TETRA_NORMALS) != 0u;
  for (uint c = 0u; c < pc.collider_count; c++) {
    fl_gpu_collider col = colliders[c];
    if (fl_collider_sdf(col, x, t) <= touch)
      v = fl_mpm_collide_rule(v, fl_collider_velocity(col, x, t), fl_collider_normal_select(col, x, t, tetra), mu);
  }
  for (int a = 0; a < 3; a++) {
    vec3 n = vec3(0.0);
    n[a] = 1.0;
    if (x[a] <= pc.domain_min[a] + touch) v = fl_mpm_collide_rule(v, vec3(0.0), n, mu);
    if (x[a] >= pc.domain_max[a] - touch) v = fl_mpm_collide_rule(v, vec3(0.0), -n, mu);
  }
  return v;
}
#endif

#endif
