/* sim/mpm/snow_implicit: the optional semi-implicit velocity solve of MPM snow
 * (Stomakhin et al. 2013 step 6, NOTES.md section 4), on the GPU, used when
 * the snow's `beta` > 0. The CPU reference is sim/mpm/snow_implicit_cpu.h.
 *
 * THE SYSTEM. After the grid update (snow_spec.h step 2: v* = gridv[2i].xyz,
 * collisions applied) and before G2P, solve
 *     sum_j (I delta_ij + beta dt^2 m_i^-1 H_ij) v_j^{n+1} = v*_i,
 * H = d2Phi/dx^2 the Hessian of the elastic potential in the grid node
 * positions at x^n (Eq. 6 differentiated), then write v^{n+1} to gridv[2i].xyz
 * and apply the collision rule again at the node (fl_mpm_collide, the grid's
 * friction). gridv[2i+1] (v_n, for FLIP) is left alone.
 *
 * HESSIAN PRODUCT (matrix-free). For a grid vector u,
 *     dF_p = (sum_j u_j g_jp^T) F_E,p,
 *     (H u)_i = sum_p V0_p dP(F_E,p)[dF_p] F_E,p^T g_ip,
 * g_ip = grad w_ip (cubic, PIC/FLIP particles) or (4/h^2) w_ip (x_i - x_p)
 * (quadratic, APIC particles: the MLS-MPM form P2G uses, Hu et al. 2018), so
 * -H u is the differential of P2G's force f_i = -sum_p V0 P(F^_p) F_E^T g_ip
 * with F^_p = (I + sum_j (x^_j - x_j) g_jp^T) F_E,p. P is the hardened
 * fixed-corotated stress of snow_spec.h,
 *     P(F) = 2 mu (F - R) + lambda (J - 1) J F^-T,  mu, lambda = mu0, lambda0 exp(min(xi (1 - J_P), ln 50)),
 *     dP = 2 mu (dF - dR) + lambda ((C : dF) C + (J - 1) dC),  C = J F^-T = cof F,
 * dC from C = [f1 x f2, f2 x f0, f0 x f1] (f_k the columns of F), and the
 * differential of the polar rotation F = R S: R^T dR = [w]x is skew and
 * R^T dF - dF^T R = [w]x S + S [w]x = [(tr(S) I - S) w]x, so
 *     w = (tr(S) I - S)^-1 axial(R^T dF - dF^T R),  dR = R [w]x
 * (Stomakhin et al. 2013, technical report "Material point method for snow
 * simulation", the derivative of R; Sifakis and Barbic 2012, "FEM simulation
 * of 3D deformable solids", SIGGRAPH course notes). With S = V diag(s) V^T,
 * (tr(S) I - S)^-1 = V diag(1 / (s1 + s2), 1 / (s0 + s2), 1 / (s0 + s1)) V^T:
 * bounded, since G2P keeps the singular values of F_E >= 1 - theta_c > 0.
 * H is symmetric (the Hessian of an energy), not necessarily definite.
 *
 * HELD NODES (projection). A node is FREE when m_i >= params.z (the light-node
 * mass: lighter nodes get no internal force, snow_spec.h step 2) and the grid
 * update's collision rule did not change its v* (re-derived from the
 * accumulator the same way). Every other node (empty, light, collided) is
 * HELD: its row is the identity, its right-hand side its v*, and it enters
 * every product as u_i = 0. So held nodes keep exactly the grid update's
 * velocity, and the free block solves A_FF v_F = v*_F: the paper's "degrees of
 * freedom of colliding nodes are projected out during the solve". (The
 * coupling term A_FC v*_C is dropped: held nodes' motion adds no implicit
 * force, as light nodes get no explicit one; for a sticky static collider
 * v*_C = 0 and it is exact.)
 *
 * SOLVER. With the lumped masses M, A = I + beta dt^2 M^-1 H is symmetric in
 * the M inner product. The solve runs on z = M^1/2 v, where the operator
 * B = I + beta dt^2 M^-1/2 H M^-1/2 is symmetric: conjugate residual
 * (Stomakhin's choice: H may be indefinite) on B z = b, b = M^1/2 v* (free
 * nodes), starting from z0 = b (v = v*), minimizing |r|_2 = |M^1/2 (A v - v*)|
 * (the mass-weighted residual) over the Krylov space:
 *     r = b - B z0; p = r; Br = B r; Bp = Br
 *     repeat FL_SNOW_CR_ITERATIONS times:
 *       alpha = (r.Br) / (Bp.Bp); z += alpha p; r -= alpha Bp
 *       (not on the last:) Br = B r; beta_k = (r.Br)_new / (r.Br)_old;
 *                          p = r + beta_k p; Bp = Br + beta_k Bp
 * All scalars stay on the GPU (fl_reduce dot products into result slots
 * FL_SNOW_CR_SLOT_*, read by the next kernels); the command buffer holds a
 * FIXED count of iterations, FL_SNOW_CR_ITERATIONS (one B product each, plus
 * one for r0: 21 products), no readback. Early out on the device: once
 * r.r <= FL_SNOW_CR_TOLERANCE^2 b.b, or after a breakdown (Bp.Bp <= 0,
 * r.Br = 0, a non-finite beta_k; flag STOP), every remaining kernel returns
 * at once (the dot products still run, over the grid).
 *
 * KERNELS (shaders/mpm/), one substep:
 *   implicit_prepare (particles): R, (tr S I - S)^-1, hardened 2 V0 mu, V0 lambda
 *   implicit_init (nodes): classify, info = 1/sqrt(m) or 0, z0 = b, zero the accumulator
 *   implicit_apply_float / _cas (particles): hacc += H (info z), atomics
 *   implicit_update (nodes): the CR vector steps (modes FL_SNOW_CR_*)
 *   implicit_finish (nodes): v = z / sqrt(m), collisions, gridv[2i].xyz
 *
 * PARTICLE DATA (pdata, FL_SNOW_CR_PARTICLE_VEC4S vec4s per particle): see
 * shaders/mpm/implicit.glsl. Float atomics when the device has them and P2G
 * uses them; with sim.mpm_atomics "fixed" (or a device without float atomics)
 * the product adds floats by compare-and-swap on their bits.
 *
 * The adaptive substep count (snow.c, snow_spec.h SUBSTEPS) lets the elastic
 * limit grow by FL_SNOW_IMPLICIT_ELASTIC_GAIN when beta > 0, so the solve buys
 * fewer substeps; the particle-speed limit stays. */
#pragma once
#include "gpu/rec.h"
#include "sim/common/reduce.h"
#include "mpm_shared.h"

/* The snow system's buffers the solve reads and writes (snow.h). */
typedef struct {
  const fl_buffer *pos, *vel, *fe;      /* particles (read) */
  const fl_buffer *acc;                 /* P2G accumulator (read: the collided-node test) */
  const fl_buffer *gridv;               /* grid velocities (read, and v^{n+1} written) */
  const fl_buffer *colliders, *materials;
  const fl_buffer *block_hash, *blocks; /* the sparse grid's blocks of the substep (snow_spec.h GRID) */
  uint32_t particles, nodes;            /* nodes: allocated in the sparse grid (block capacity x 64) */
  bool compare_and_swap;                /* no float atomics: the _cas product */
} fl_snow_implicit_inputs;

typedef struct {
  fl_gpu *gpu;
  fl_snow_implicit_inputs in;
  uint32_t particles, nodes;
  bool compare_and_swap;
  fl_buffer pdata;                      /* FL_SNOW_CR_PARTICLE_VEC4S vec4 per particle */
  fl_buffer info;                       /* float per node: 1 / sqrt(m) (free) or 0 (held) */
  fl_buffer hacc;                       /* 4 words per node: H u (float bits) */
  fl_buffer z, r, p, br, bp;            /* vec4 per node: the CR vectors */
  fl_reduce reduce;                     /* FL_SNOW_CR_SLOT_COUNT result slots */
  fl_reduce_binding dot_bb, dot_bpbp, dot_rbr[2], dot_rr;
} fl_snow_implicit;

/* Creates the buffers; the inputs' buffers must outlive the solver. */
bool fl_snow_implicit_create(fl_gpu *gpu, const fl_snow_implicit_inputs *in, fl_snow_implicit *out);
/* Frees everything; accepts a zeroed solver. */
void fl_snow_implicit_destroy(fl_snow_implicit *im);
/* Records the solve of one substep after the grid update (its barrier recorded), with the
 * substep's push constants (dt, t) and beta; ends with a compute barrier. */
void fl_snow_implicit_record(const fl_snow_implicit *im, fl_rec *r, const fl_mpm_push *push, float beta);
/* Bytes one recorded solve moves (for GB/s; the full iteration count, no early out). */
uint64_t fl_snow_implicit_bytes(const fl_snow_implicit *im);
/* After a solve (waits; off the hot path): CR updates taken, and sqrt(r.r / b.b) of the last
 * r.r computed (the mass-weighted relative residual of the recursion). */
bool fl_snow_implicit_read_status(fl_snow_implicit *im, uint32_t *iterations, float *relative_residual);
