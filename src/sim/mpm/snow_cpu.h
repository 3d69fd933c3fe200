/* sim/mpm/snow_cpu: the CPU reference of one MPM snow substep (snow_spec.h;
 * Stomakhin et al. 2013, NOTES.md section 4; MLS-MPM/APIC, Hu et al. 2018),
 * working on exactly the GPU buffers' contents (mpm_shared.h layouts), for
 * tests/unit/test_snow_cpu.c and the GPU-vs-CPU comparison. Explicit only
 * (beta = 0: the semi-implicit solve lives in snow_implicit.h).
 *
 * Caller's duties:
 *  - acc (8 words per node) needs no zeroing: fl_snow_cpu_p2g overwrites it all.
 *  - stats: the caller sets the per-frame words before a frame's first substep:
 *    MAX_SPEED = 0, JP_MIN = 0x7f7fffff (FLT_MAX bits), JP_MAX = 0, NONFINITE = 0
 *    (CLAMPED too when calling fl_snow_cpu_g2p directly); fl_snow_cpu_substep
 *    zeroes CLAMPED itself (spec step 0). g2p folds into the words as the GPU's
 *    uint atomicMax/atomicMin on float bits do; a particle with a non-finite x, v
 *    or J_P adds to NONFINITE, speed 0 and no J_P; J_P enters as max(J_P, 0).
 *  - materials holds a record for every material index fe[3p+1].w in use (the
 *    index is read from fe[3p+1].w; G2P copies it to stress[2p+1].w, where the
 *    GPU's P2G reads it). */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "mpm_shared.h"

#include <string.h>

/* The accumulator's words read as what P2G stored in them (float or fixed-point int32 bits). */
static inline float fl_snow_bits_float(uint32_t u)
{
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static inline int32_t fl_snow_bits_int(uint32_t u)
{
  int32_t i;
  memcpy(&i, &u, sizeof i);
  return i;
}

static inline uint32_t fl_snow_float_bits(float f)
{
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* The nodes of the CPU reference's grid: dense over grid_dims, node (i, j, k) at (k n_y + j) n_x + i
 * (the GPU's sparse grid holds the same nodes in blocks; push->node_count counts those). */
static inline uint32_t fl_snow_cpu_nodes(const fl_mpm_push *push)
{
  return push->grid_dims[0] * push->grid_dims[1] * push->grid_dims[2];
}

/* The particle arrays of the MPM system (snow_spec.h PARTICLE STATE). */
typedef struct {
  uint32_t count;
  float (*pos)[4];    /* count: (x, m) */
  float (*vel)[4];    /* count: (v, V0) */
  float (*fe)[4];     /* 3 * count: rows of F_E; w: J_P, material index, clamped flag */
  float (*stress)[4]; /* 2 * count: (Kxx, Kyy, Kzz, Kxy), (Kxz, Kyz, 0, material) */
  float (*affine)[4]; /* 3 * count: rows of C_p (APIC) */
} fl_snow_cpu_particles;

/* Step 1, P2G (Eq. 1, 6): overwrites acc (8 words per node, fl_snow_cpu_nodes of them) with
 * (P.xyz, m, Q.xyz, 0): float bits of per-node double sums, or the sum of round-half-even
 * int32 contributions (FL_MPM_FIXED_POINT; scales mass_scale, momentum_scale).
 * False (fl_error_set) when the float-mode scratch cannot be allocated, or when a fixed-point
 * node sum leaves int32 (the GPU's would wrap: the accumulator's headroom is exceeded). */
bool fl_snow_cpu_p2g(const fl_mpm_push *push, const fl_snow_material *materials, const fl_snow_cpu_particles *p,
                     uint32_t *acc);
/* Step 2, grid update: gridv[2i] = (v_{n+1}, m_i), gridv[2i+1] = (v_n, 0), node
 * collisions with grid_material's friction (the first snow object's). */
void fl_snow_cpu_grid_update(const fl_mpm_push *push, const fl_snow_material *grid_material,
                             const fl_gpu_collider *colliders, const uint32_t *acc, float (*gridv)[4]);
/* Step 3, G2P: velocities, F_E with plasticity, stress K, particle collisions,
 * advection, domain clamp; folds this step into stats (see above). */
void fl_snow_cpu_g2p(const fl_mpm_push *push, const fl_snow_material *materials, const fl_gpu_collider *colliders,
                     const float (*gridv)[4], fl_snow_cpu_particles *p, uint32_t stats[FL_SNOW_STAT_WORDS]);
/* First-step volumes (Eq. step 2): V0_p = m_p / (sum_i m_i w_ip / h^3) into vel[p].w, from
 * a gridv made by P2G and a dt = 0 grid update; materials pick each particle's weights. */
void fl_snow_cpu_volumes(const fl_mpm_push *push, const fl_snow_material *materials, const float (*gridv)[4],
                         fl_snow_cpu_particles *p);
/* One substep (steps 0-3) with its own grid scratch; false (fl_error_set) when out of memory. */
bool fl_snow_cpu_substep(const fl_mpm_push *push, const fl_snow_material *materials,
                         const fl_gpu_collider *colliders, fl_snow_cpu_particles *p,
                         uint32_t stats[FL_SNOW_STAT_WORDS]);
/* The spec's collision rule on velocity v at position x, time push->domain_max.w, with
 * friction mu: every collider with phi <= 0 in order, then the walls x-min, x-max, y-min, ... */
void fl_snow_cpu_collide(const fl_mpm_push *push, const fl_gpu_collider *colliders, float mu, const float x[3],
                         float v[3]);
