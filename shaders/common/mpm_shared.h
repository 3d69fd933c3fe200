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
#define FL_SNOW_MAX_SUBSTEPS 256     /* per frame */
#define FL_SNOW_LIGHT_NODE 1e-3      /* nodes lighter than this x the largest particle mass get no internal force */

#define FL_SNOW_TRANSFER_PIC_FLIP 0  /* the paper: cubic B-splines, PIC/FLIP blend */
#define FL_SNOW_TRANSFER_APIC 1      /* MLS-MPM: quadratic B-splines, APIC */

/* push.counts.z flags */
#define FL_MPM_FIXED_POINT 1u        /* the accumulator holds int32 fixed point */
#define FL_MPM_FOLD_IMPULSE 2u       /* no pic_flip material: Q folded into P */
#define FL_MPM_TETRA_NORMALS 4u      /* collider normals by the tetrahedral difference */

/* stats words (uint) */
#define FL_SNOW_STAT_MAX_SPEED 0     /* float bits, atomicMax (>= 0) */
#define FL_SNOW_STAT_JP_MIN 1        /* float bits, atomicMin (J_P > 0) */
#define FL_SNOW_STAT_JP_MAX 2        /* float bits, atomicMax */
#define FL_SNOW_STAT_CLAMPED 3       /* particles clamped in the last substep */
#define FL_SNOW_STAT_NONFINITE 4     /* particles with a non-finite state seen this frame */
#define FL_SNOW_STAT_WORDS 8

/* One snow object's material. */
FL_STRUCT_BEGIN(fl_snow_material)
  vec4 elastic;  /* x: mu0, y: lambda0, z: xi, w: flip alpha */
  vec4 plastic;  /* x: 1 - theta_c, y: 1 + theta_s, z: friction (FL_SNOW_STICKY: sticky), w: transfer */
FL_STRUCT_END(fl_snow_material)

/* Push constants of every MPM kernel. */
FL_STRUCT_BEGIN(fl_mpm_push)
  vec4 grid_origin;  /* xyz: position of node (0,0,0); w: h */
  uvec4 grid_dims;   /* xyz: nodes per axis; w: node count */
  vec4 domain_min;   /* xyz; w: dt of the substep */
  vec4 domain_max;   /* xyz; w: time at the end of the substep */
  vec4 gravity;      /* xyz; w: fixed-point mass scale */
  vec4 params;       /* x: fixed-point momentum scale, y: 1 / h, z: light-node mass, w: unused */
  uvec4 counts;      /* x: particles, y: colliders, z: FL_MPM_* flags, w: kernel-specific */
FL_STRUCT_END(fl_mpm_push)

#endif
