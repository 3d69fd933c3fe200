/* sim/xpbd/xpbd_cpu: the CPU reference of the XPBD substep of xpbd_spec.h
 * and softbody_spec.h (cloth, soft bodies, balloons), run on the arrays of an
 * fl_xpbd_build. The GPU kernels of shaders/xpbd/ must match it
 * (tests/gpu/test_cloth.c, tests/gpu/test_softbody_gpu.c). */
#pragma once
#include "sim/xpbd/tri_contact_build.h"
#include "sim/xpbd/xpbd_build.h"

typedef struct {
  const fl_xpbd_build *build;
  float (*x)[4];                /* positions, w = inverse mass */
  float (*prev)[4];
  float (*v)[4];
  float (*older)[4], (*v_old)[4]; /* BDF2: positions and velocities one substep before prev and v */
  bool bdf2_history;            /* BDF2: a substep has recorded older and v_old */
  float *distance_lambda, *bend_lambda, *area_lambda;
  float *tet_lambda;            /* 2 per tet record: [c] volume or NH deviatoric, [tet.count + c] NH hydrostatic */
  float (*body_state)[4];       /* per body, as the GPU's (FL_BODY_STATE_VEC4S): x volume after the last
                                 * substep, y overpressure lambda, z / w smallest / largest V / (k V0) */
  uint32_t *contact;            /* per particle: 1 after a contact in the last contact passes */
  float (*load)[4];             /* per particle: the body volume correction its weight spared this substep
                                 * (global conservation), the collider contacts' normal load (softbody_spec.h) */
  /* Scratch of fl_xpbd_cpu_substep (private to xpbd_cpu.c). */
  float (*accel)[4];            /* wind acceleration, then the edge-damping velocity change */
  float (*delta)[4];            /* particle contacts: the sums of the pushes (w: contact count) */
  float (*friction)[4];         /* particle contacts: pushes plus friction (w: contact count) */
  float *dlambda;               /* Jacobi: dlambda per constraint */
  float (*corr)[4];             /* Jacobi: w_k grad_k C dlambda per constraint slot */
  float (*body_grad)[4];        /* body volumes: grad_i V (xyz), w: this substep's displacement r_i */
  float (*body_weight)[4];      /* body volumes: x smoothed s_i, y 1 for a free surface vertex, z W_i, w omega_i */
  uint32_t *tri_first;          /* bodies: particle -> triangles CSR (particle_count + 1 offsets) */
  uint32_t *tri_items;
  uint32_t *cell_first;         /* self-collision hash: hash_size + 1 offsets */
  uint32_t *cell_items;         /* particles sorted by hash bucket */
  uint32_t *cell_of;            /* bucket per particle */
  uint32_t hash_size;           /* power of two */
  fl_tri_contacts tri;          /* triangle contacts (tri_contact_build.h) */
  int32_t (*tri_accum)[4];      /* their fixed-point sums per particle */
  float (*tri_list_x)[4];       /* the positions their pair list was found from (the first pass's; the
                                 * start's with the contact guard) */
  float *tri_guard_bound;       /* the contact guard's bound per particle (scratch) */
  float (*hier_x0)[4];          /* hierarchical PBD: the positions before the coarse levels */
  float *hier_lambda;           /* hierarchical PBD: a lambda per coarse constraint */
} fl_xpbd_cpu;

/* Copies the build's initial state (positions, velocities; body states
 * x = V0, y = 0, z = 1e30, w = 0; contact flags 0). */
bool fl_xpbd_cpu_create(const fl_xpbd_build *b, fl_xpbd_cpu *out);
/* Frees the state and scratch arrays and zeroes *c. */
void fl_xpbd_cpu_destroy(fl_xpbd_cpu *c);
/* One substep of length h ending at time t, with `colliders` (packed as for the GPU). */
void fl_xpbd_cpu_substep(fl_xpbd_cpu *c, const fl_sim_desc *sim, const fl_gpu_collider *colliders,
                          uint32_t collider_count, float h, float t);

/* Distance constraint on xi, xj: *c_out = |xi - xj| - rest and grad_i = (xi - xj)/|xi - xj|
 * (grad_j = -grad_i). False, with C = 0 and a zero gradient, when |xi - xj| < 1e-12. */
bool fl_xpbd_distance_eval(const fl_gpu_distance *d, const float xi[3], const float xj[3], float *c_out,
                            float grad_i[3]);
/* Bend constraint `b` on the stencil x (x0, x1, x2, x3 in its idx order, xyz each): C and
 * grad (grad_k C at 3k). False, with zero gradients, where xpbd_spec.h skips it (C is
 * still set where defined). */
bool fl_xpbd_bend_eval(const fl_gpu_bend *b, const float x[12], float *c_out, float grad[12]);
/* Area constraint `a` (docs/AREA.md) on x (x0, x1, x2 in its idx order, xyz each): C and grad
 * (grad_k C at 3k, k < 3), mirroring fl_area_eval of shaders/xpbd/constraints.glsl. False, with
 * zero gradients, for a degenerate triangle. */
bool fl_area_eval_cpu(const fl_gpu_area *a, const float x[9], float *c_out, float grad[9]);
/* Tet volume constraint `t` (FL_TET_VOLUME, softbody_spec.h) on x (x0..x3 in its idx order, xyz
 * each): C and grad (grad_k C at 3k), mirroring fl_tet_eval of shaders/xpbd/constraints.glsl. */
bool fl_tet_eval_cpu(const fl_gpu_tet *t, const float x[12], float *c_out, float grad[12]);
/* Both constraints of a Neo-Hookean tet `t` (FL_TET_NEOHOOKEAN) on x from one F: C[0] = C_D =
 * sqrt(tr F^T F) with gradients gd, C[1] = C_H = det F - gamma with gh (grad_k at 3k), mirroring
 * fl_tet_nh_eval. False, with gd = 0, where the deviatoric one is skipped (C_D < 1e-9). */
bool fl_tet_nh_eval_cpu(const fl_gpu_tet *t, const float x[12], float C[2], float gd[12], float gh[12]);
/* Their coupled XPBD step (the 2x2 solve of softbody_spec.h, mirroring fl_tet_nh_dlambda): dl
 * (deviatoric, hydrostatic) for inverse masses w, compliances (deviatoric, hydrostatic), step h and
 * accumulated lambdas. */
void fl_tet_nh_dlambda_cpu(const float C[2], bool dev, const float gd[12], const float gh[12], const float w[4],
                           const float compliance[2], float h, const float lambda[2], float dl[2]);
