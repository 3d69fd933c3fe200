/* shaders/common/mpm_shared.h: layouts and constants of the MPM snow kernels
 * (shaders/mpm/), shared by C (src/sim/mpm/) and GLSL. The algorithm:
 * src/sim/mpm/snow_spec.h. */
#ifndef FL_MPM_SHARED_H
#define FL_MPM_SHARED_H
#include "flurry_shared.h"

#define FL_SNOW_MAX_MATERIALS 16     /* snow objects per scene (uniform array) */
#define FL_SNOW_STICKY 1e30          /* friction of a "sticky" material: mu = infinity */
#define FL_SNOW_HARDENING_MAX 50.0   /* cap of exp(xi (1 - J_P)) (stability; snow_spec.h) */
#define FL_SNOW_CFL 0.4              /* particles move at most this many cells per substep */
#define FL_SNOW_ELASTIC_CFL 0.5      /* dt <= this h / (elastic wave speed) */
#define FL_SNOW_IMPLICIT_ELASTIC_GAIN 4.0 /* beta > 0: the elastic limit times this (tests/gpu/test_snow_implicit) */
#define FL_SNOW_MAX_SUBSTEPS 256     /* per frame */
#define FL_SNOW_LIGHT_NODE 1e-3      /* nodes lighter than this x the largest particle mass get no internal force */
#define FL_SNOW_TOUCH 1e-4           /* a point within this x h of a collider or wall touches it: grid nodes
                                        on a wall (origin + i h) land a rounding either side, which FMA
                                        contraction (GPUs) and separate rounding (CPUs) decide differently */
#define FL_SNOW_GRAB_CELLS 3.0       /* the mouse's grab pulls the snow within this many grid spacings (mpm/grab) */
#define FL_SNOW_GRAB_TIME 0.05       /* ... towards the cursor's point at the distance it would close in this (s) */
/* Fixed-point P2G (snow_spec.h GRID ACCUMULATOR): mass_scale = 2^MASS_BITS / m_max,
 * momentum_scale = 2^MOMENTUM_BITS / m_max; int32 headroom is checked for nodes of snow
 * compressed FL_SNOW_FIXED_COMPRESSION times (sim/mpm/snow_build.c). */
#define FL_SNOW_FIXED_MASS_BITS 20
#define FL_SNOW_FIXED_MOMENTUM_BITS 20
#define FL_SNOW_FIXED_COMPRESSION 4.0

/* The sparse grid (snow_spec.h GRID): nodes live in blocks of 4x4x4, allocated each substep where
 * particles are, found through an open-addressing hash of the block's key. */
#define FL_SNOW_BLOCK_NODES 64u      /* nodes per block; node i of slot s is s * 64 + (z * 16 + y * 4 + x) */
#define FL_SNOW_NO_BLOCK 0xffffffffu /* an empty hash entry, a block not allocated */
#define FL_SNOW_NO_NODE 0xffffffffu  /* fl_mpm_node of a stencil node whose block is not allocated */

#define FL_SNOW_TRANSFER_PIC_FLIP 0u /* the paper: cubic B-splines, PIC/FLIP blend */
#define FL_SNOW_TRANSFER_APIC 1u     /* MLS-MPM: quadratic B-splines, APIC */

/* fl_mpm_push.flags */
#define FL_MPM_FIXED_POINT 1u        /* the accumulator holds int32 fixed point */
#define FL_MPM_FOLD_IMPULSE 2u       /* no pic_flip material: Q folded into P */
#define FL_MPM_TETRA_NORMALS 4u      /* collider normals by the tetrahedral difference */

/* stats words (uint) */
#define FL_SNOW_STAT_MAX_SPEED 0     /* float bits, atomicMax (>= 0) */
#define FL_SNOW_STAT_JP_MIN 1        /* float bits, atomicMin (J_P > 0) */
#define FL_SNOW_STAT_JP_MAX 2        /* float bits, atomicMax */
#define FL_SNOW_STAT_CLAMPED 3       /* particles clamped in the last substep */
#define FL_SNOW_STAT_NONFINITE 4     /* particles with a non-finite state seen this frame */
#define FL_SNOW_STAT_BLOCKS 5        /* grid blocks allocated in the current substep (the allocator's counter) */
#define FL_SNOW_STAT_BLOCKS_PEAK 6   /* the most blocks any substep of the frame asked for (atomicMax) */
#define FL_SNOW_STAT_GRID_FULL 7     /* blocks of the frame that found no free slot (sticky for the frame) */
#define FL_SNOW_STAT_WORDS 8

/* One snow object's material. */
FL_STRUCT_BEGIN(fl_snow_material)
  float mu0, lambda0; /* Lame parameters before hardening (Pa) */
  float xi;         /* hardening coefficient */
  float flip;       /* PIC/FLIP: the FLIP share alpha */
  float stretch_min; /* 1 - theta_c: the smallest elastic singular value */
  float stretch_max; /* 1 + theta_s: the largest */
  float friction;   /* Coulomb coefficient against colliders (FL_SNOW_STICKY: sticky) */
  uint transfer;    /* FL_SNOW_TRANSFER_* */
FL_STRUCT_END(fl_snow_material)

/* Push constants of every MPM kernel. */
FL_STRUCT_BEGIN(fl_mpm_push)
  vec3 grid_origin;  /* position of node (0,0,0) */
  float h;           /* node spacing (m) */
  uvec3 grid_dims;   /* nodes per axis of the (virtual, dense) lattice over sim.domain */
  uint node_count;   /* nodes allocated: block_capacity x 64 (the sparse grid's buffers) */
  vec3 domain_min;
  float dt;          /* substep length (s) */
  vec3 domain_max;
  float time;        /* at the end of the substep (s) */
  vec3 gravity;      /* m/s^2 */
  float mass_scale;  /* fixed-point P2G: units per kg */
  float momentum_scale; /* fixed-point P2G: units per kg m/s */
  float inv_h;       /* 1 / h */
  float light_node_mass; /* nodes lighter than this get no elastic impulse (kg; snow_spec.h step 2) */
  float beta;        /* the semi-implicit solve's weight (snow_implicit.h) */
  uint count;        /* particles */
  uint collider_count;
  uint flags;        /* FL_MPM_* */
  uint arg;          /* kernel-specific: permute: vec4s per particle | implicit: mode | iteration << 8 |
                        cell_keys: bits of the cell in the key | p2g, volumes: the first particle */
  uint block_capacity; /* grid blocks allocated (node_count = 64 x this) */
  uint hash_mask;    /* block hash entries - 1 (a power of two >= 2 x block_capacity) */
  uint block_grid_x; /* blocks per axis of the block lattice over grid_dims: the key is */
  uint block_grid_y; /* (bz * block_grid_y + by) * block_grid_x + bx */
FL_STRUCT_END(fl_mpm_push)

/* Semi-implicit velocity solve (Stomakhin 2013 step 6, beta > 0; src/sim/mpm/snow_implicit.h):
 * conjugate residual on the mass-scaled unknowns z_i = sqrt(m_i) v_i, a fixed iteration count per
 * substep with a device-side early out. The implicit kernels read beta from the push's beta. */
#define FL_SNOW_CR_ITERATIONS 20     /* CR updates of v recorded per substep */
#define FL_SNOW_CR_TOLERANCE 1e-4    /* early out: |r|_M <= this |v*|_M (mass-weighted, free nodes) */
#define FL_SNOW_CR_PARTICLE_VEC4S 5  /* per-particle data of the solve (snow_implicit.h PARTICLE DATA) */
/* result slots of the solve's fl_reduce (floats) */
#define FL_SNOW_CR_SLOT_BB 0         /* |b|^2, b = sqrt(m) v* on free nodes */
#define FL_SNOW_CR_SLOT_APAP 1       /* (A p) . (A p) */
#define FL_SNOW_CR_SLOT_RAR0 2       /* r . A r, two slots used alternately */
#define FL_SNOW_CR_SLOT_RAR1 3
#define FL_SNOW_CR_SLOT_RR 4         /* r . r */
#define FL_SNOW_CR_SLOT_ITERATIONS 5 /* CR updates that changed v in the latest solve */
#define FL_SNOW_CR_SLOT_STOP 6       /* 1 after a breakdown */
#define FL_SNOW_CR_SLOT_COUNT 7
/* fl_mpm_push.arg of mpm/implicit_update.comp: mode | iteration << 8 */
#define FL_SNOW_CR_RESIDUAL 0u       /* r = p = b - A x0 */
#define FL_SNOW_CR_PRODUCT_FIRST 1u  /* A r, and A p = A r */
#define FL_SNOW_CR_PRODUCT 2u        /* A r */
#define FL_SNOW_CR_STEP 3u           /* x += alpha p, r -= alpha A p */
#define FL_SNOW_CR_DIRECTION 4u      /* p = r + beta p, A p = A r + beta A p */
/* fl_mpm_push.arg of mpm/implicit_apply_*.comp */
#define FL_SNOW_CR_APPLY_ALWAYS 1u   /* run whatever the residual (the product with x0) */

#endif
