// mpm/p2g_gather.glsl, the kernels mpm/p2g_gather (any materials),
// p2g_gather_pic_flip and p2g_gather_apic (one transfer each, mpm.glsl
// FL_MPM_IS_APIC): P2G without atomics (issue 14), one thread per grid node:
// node n sums the contributions (snow_spec.h step 1: mass m_p w_ip,
// momentum, impulse -dt K_p grad w_ip, or APIC's m_p w_ip (v_p + C_p (x_i - x_p))
// and -dt (4/h^2) w_ip K_p (x_i - x_p)) of the particles binned by mpm/p2g_bin
// in the cells n - 2 .. n + 1 per axis (64; n - 1 .. n + 1, 27, when every
// material is APIC: FL_MPM_FOLD_IMPULSE), read through mpm/p2g_list's list,
// and writes its accumulator words once, in the accumulator's format (float
// bits, or int32 fixed point under FL_MPM_FIXED_POINT: the rounded sum), so
// the grid update reads it as it reads the scatter's. The weights are the
// stencil's (mpm.glsl fl_mpm_cubic_at, fl_mpm_quadratic_at) at the same
// d = fx - node, so each term equals the scatter's; only the order of the sum
// differs. Nodes of unused slots are written zero (the accumulator is not
// cleared on this path). CPU reference: src/sim/mpm/snow_cpu.c (fl_snow_cpu_p2g).
#include "compute.glsl"
layout(std430, binding = 6) readonly buffer BlockHash { uint block_hash[]; };
#define FL_MPM_BLOCK_HASH
layout(std430, binding = 7) readonly buffer Blocks { uint blocks[]; };
#define FL_MPM_BLOCK_LIST
#include "mpm.glsl"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Velocities { vec4 vel[]; };
layout(std430, binding = 2) readonly buffer Stress { vec4 stress[]; };
layout(std430, binding = 3) readonly buffer Affine { vec4 affine[]; };
layout(std430, binding = 4) writeonly buffer Accumulator { uint acc[]; };
layout(std140, binding = 5) uniform Materials { fl_snow_material materials[FL_SNOW_MAX_MATERIALS]; };
layout(std430, binding = 8) readonly buffer Starts { uint starts[]; };
layout(std430, binding = 9) readonly buffer List { uint list[]; };
layout(std430, binding = 10) readonly buffer Stats { uint stats[]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

// Adds particle p's contributions to node n (lattice coordinates) into mass, mom and imp.
void add_particle(uint p, ivec3 n, inout float mass, inout vec3 mom, inout vec3 imp)
{
  vec4 xm = pos[p];
  vec3 x = xm.xyz, v = vel[p].xyz;
  float m = xm.w, dt = pc.dt, inv_h = pc.inv_h;
  vec4 s0 = stress[2u * p], s1 = stress[2u * p + 1u];
  mat3 K = mat3(s0.x, s0.w, s1.x, s0.w, s0.y, s1.y, s1.x, s1.y, s0.z);  // symmetric
  vec3 fx = (x - pc.grid_origin) * inv_h, d = fx - vec3(n);
  if (FL_MPM_IS_APIC(materials[uint(s1.w)].transfer)) {
    ivec3 k = n - fl_mpm_stencil_base(fx, true);
    if (any(lessThan(k, ivec3(0))) || any(greaterThan(k, ivec3(2)))) return;  // not in the stencil
    float w = fl_mpm_quadratic_at(abs(d.x)) * fl_mpm_quadratic_at(abs(d.y)) * fl_mpm_quadratic_at(abs(d.z));
    mat3 C = transpose(mat3(affine[3u * p].xyz, affine[3u * p + 1u].xyz, affine[3u * p + 2u].xyz));
    vec3 dx = (pc.grid_origin + vec3(n) * pc.h) - x;
    mass += w * m;
    mom += w * m * (v + C * dx);
    imp += -dt * (4.0 * inv_h * inv_h) * w * (K * dx);
  } else {
    float wx, wy, wz, dwx, dwy, dwz;
    fl_mpm_cubic_at(d.x, wx, dwx);
    fl_mpm_cubic_at(d.y, wy, dwy);
    fl_mpm_cubic_at(d.z, wz, dwz);
    float w = wx * wy * wz;
    vec3 grad = vec3(dwx * wy * wz, wx * dwy * wz, wx * wy * dwz) * inv_h;
    mass += w * m;
    mom += w * m * v;
    imp += -dt * (K * grad);
  }
}

uint encode(float value, float scale)
{
  return (pc.flags & FL_MPM_FIXED_POINT) != 0u ? uint(fl_mpm_fixed(value, scale)) : floatBitsToUint(value);
}

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.node_count) return;
  float mass = 0.0;
  vec3 mom = vec3(0.0), imp = vec3(0.0);
  bool fold = (pc.flags & FL_MPM_FOLD_IMPULSE) != 0u;
  if (i / FL_SNOW_BLOCK_NODES < min(stats[FL_SNOW_STAT_BLOCKS], pc.block_capacity)) {
    ivec3 n = ivec3(fl_mpm_node_coords(i, pc));
    // The bins n + lo .. n + 1 per axis span at most 2 blocks per axis: their slots, found once.
    int lo = fold ? -1 : -2, width = 2 - lo;
    fl_mpm_stencil s;
    s.base = n + lo;
    s.block0 = s.base >> 2;
    ivec3 b1 = (n + 1) >> 2;
    uint sl[8];
    [[unroll]] for (int k = 0; k < 8; k++) {
      ivec3 b = s.block0 + ivec3(k & 1, (k >> 1) & 1, k >> 2);
      sl[k] = any(greaterThan(b, b1)) ? FL_SNOW_NO_BLOCK : fl_mpm_block_slot_checked(b, pc);
    }
    s.slots_lo = uvec4(sl[0], sl[1], sl[2], sl[3]);
    s.slots_hi = uvec4(sl[4], sl[5], sl[6], sl[7]);
    for (int c = 0; c < width; c++)
      for (int b = 0; b < width; b++)
        for (int a = 0; a < width; a++) {
          uint bin = fl_mpm_node(s, a, b, c, pc);
          if (bin == FL_SNOW_NO_NODE) continue;
          for (uint k = starts[bin], end = starts[bin + 1u]; k < end; k++) add_particle(list[k], n, mass, mom, imp);
        }
  }
  if (fold) {
    mom += imp;
    imp = vec3(0.0);
  }
  float ms = pc.mass_scale, ps = pc.momentum_scale;
  acc[8u * i + 0u] = encode(mom.x, ps);
  acc[8u * i + 1u] = encode(mom.y, ps);
  acc[8u * i + 2u] = encode(mom.z, ps);
  acc[8u * i + 3u] = encode(mass, ms);
  acc[8u * i + 4u] = encode(imp.x, ps);
  acc[8u * i + 5u] = encode(imp.y, ps);
  acc[8u * i + 6u] = encode(imp.z, ps);
  acc[8u * i + 7u] = 0u;
}
