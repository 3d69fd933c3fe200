/* sim/mpm/snow_implicit_cpu: the CPU reference of the semi-implicit velocity
 * solve of MPM snow (Stomakhin et al. 2013 step 6; the algorithm, its
 * formulas and citations: sim/mpm/snow_implicit.h), for
 * tests/unit/test_snow_implicit_cpu.c and the GPU-vs-CPU comparison in
 * tests/gpu/test_snow_implicit.c. It works on the GPU buffers' contents
 * (mpm_shared.h layouts, sim/mpm/snow_cpu.h particles) but computes in double:
 *  - weights and gradients from the float positions, in double;
 *  - the polar rotation R of F_E by Newton's iteration X <- (X + X^-T) / 2
 *    (Higham 1986) to a relative change below 1e-14, not the float SVD of the
 *    GPU: S = R^T F_E symmetrized, (tr(S) I - S)^-1 by the adjugate;
 *  - hardening as G2P: mu, lambda = mu0, lambda0 exp(min(xi (1 - J_P), ln 50)).
 * The solve mirrors the GPU kernels step for step (node classification, the
 * start z0 = sqrt(m) v*, the conjugate residual recursion, the early out on
 * r.r <= tol^2 b.b and on a breakdown, the final collisions); only the
 * precision and the summation order differ. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "mpm_shared.h"
#include "sim/mpm/snow_cpu.h"

/* What a CPU solve did. */
typedef struct {
  uint32_t iterations;      /* CR updates of v taken */
  uint32_t free_nodes;      /* nodes in the system (the others are held) */
  bool broke_down;          /* stopped by a breakdown (Bp.Bp <= 0, r.Br = 0, non-finite) */
  double recursive_residual; /* sqrt(r.r / b.b) of the recursion at the end */
} fl_snow_implicit_cpu_report;

/* free_nodes[i] = 1 when node i is in the system (m_i >= params.z, m_i > 0, and the grid update's
 * collision rule left its v* unchanged, re-derived from acc as mpm/implicit_init.comp does), else 0.
 * gridv is the grid update's output, acc the P2G accumulator. Returns the free count. */
uint32_t fl_snow_implicit_cpu_free_nodes(const fl_mpm_push *push, const fl_snow_material *grid_material,
                                         const fl_gpu_collider *colliders, const uint32_t *acc,
                                         const float (*gridv)[4], uint8_t *free_nodes);
/* hu = H u over every node (fl_snow_cpu_nodes of them): (H u)_i = sum_p V0 dP(F_E)[(sum_j u_j g_jp^T) F_E]
 * F_E^T g_ip (snow_implicit.h HESSIAN PRODUCT). u is not projected here. False when out of memory. */
bool fl_snow_implicit_cpu_hessian(const fl_mpm_push *push, const fl_snow_material *materials,
                                  const fl_snow_cpu_particles *p, const double (*u)[3], double (*hu)[3]);
/* The elastic grid forces with the nodes displaced by dx: f_i = -sum_p V0 P(F^_p) F_E^T g_ip,
 * F^_p = (I + sum_j dx_j g_jp^T) F_E (dx = NULL: no displacement, P2G's force / dt). */
bool fl_snow_implicit_cpu_forces(const fl_mpm_push *push, const fl_snow_material *materials,
                                 const fl_snow_cpu_particles *p, const double (*dx)[3], double (*f)[3]);
/* out = A v with A = I + beta dt^2 m^-1 H on free nodes, u = v projected (held entries 0 in the
 * product) and out_i = v_i on held nodes; masses from gridv[2i].w. */
bool fl_snow_implicit_cpu_operator(const fl_mpm_push *push, const fl_snow_material *materials,
                                   const fl_snow_cpu_particles *p, float beta, const float (*gridv)[4],
                                   const uint8_t *free_nodes, const double (*v)[3], double (*out)[3]);
/* Step 6 on gridv (the grid update's output; acc the P2G accumulator): classifies the nodes, solves
 * by at most `iterations` CR updates with early out at `tolerance`, writes v^{n+1} (float) into
 * gridv[2i].xyz of free nodes after the collision rule. v_solved (may be NULL; every node) gets the
 * solution before the collisions (held nodes: their v*). report may be NULL. */
bool fl_snow_implicit_cpu_solve(const fl_mpm_push *push, const fl_snow_material *materials,
                                const fl_gpu_collider *colliders, const fl_snow_cpu_particles *p, float beta,
                                const uint32_t *acc, float (*gridv)[4], uint32_t iterations, double tolerance,
                                double (*v_solved)[3], fl_snow_implicit_cpu_report *report);
/* One substep with the solve (snow_spec.h steps 0-3 with step 6 between the grid update and G2P,
 * FL_SNOW_CR_ITERATIONS and FL_SNOW_CR_TOLERANCE), like fl_snow_cpu_substep. */
bool fl_snow_implicit_cpu_substep(const fl_mpm_push *push, const fl_snow_material *materials,
                                  const fl_gpu_collider *colliders, float beta, fl_snow_cpu_particles *p,
                                  uint32_t stats[FL_SNOW_STAT_WORDS], fl_snow_implicit_cpu_report *report);
