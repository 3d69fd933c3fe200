/* sim/massspring/ms_gpu: one mass-spring object on the GPU with the five
 * integrators of Kang 2018 (the algorithm: ms_spec.h; the float twin of the
 * CPU reference ms_cpu.c, which builds its initial state).
 *
 * Design: per particle, a list of links (other end, rest length) in CSR form;
 * every kernel runs one thread per particle and reads its neighbours through
 * it, so nothing needs atomics (shaders/massspring/). A step is:
 *   E   explicit (force, v and x fused: reads pos/vel, writes pos_next/vel_next;
 *       on a grid of ms_spec.h, explicit_offset.comp: neighbours by index offset,
 *       no links), then the pair swaps on the CPU while recording, so pos/vel always name
 *       the current state for every pass recorded after it; the divergence check
 *       of the state it starts from is inside (fl_ms_gpu_checks_in_step)
 *   HO  ho                                         then advance
 *   JI  setup (A_ii, b, first Jacobi iterate), (iterations - 1) x jacobi, advance
 *       (explicit start: setup writes the start dv = b / m, then iterations x jacobi)
 *   HY  as JI, setup averaging b with the HO impulse (Eq. 32)
 *   IM  setup (r = p = b), cg_iterations x [cg_apply, p.q, cg_step, r.r,
 *       cg_direction], advance. The iteration count is fixed when recording (no
 *       readback); a converged solve makes the remaining iterations no-ops, and
 *       the iterations used and the final residual stay on the GPU for reports.
 * Divergence: check (a NaN, or a spring strain above divergence_strain) sets
 * a flag, which freezes the object as it blew up (advance moves nothing); E's
 * step runs the same test on the state it starts from and freezes the particles
 * that fail it at once; the next step freezes the rest of the object and puts
 * the particles that moved back to that state (the other buffer of the pair
 * still holds it), so E freezes where the check would have;
 * once a frame, reset zeroes a frozen object's velocities and, after
 * FL_MS_RESET_HOLD_FRAMES frozen frames, puts it back to its initial state,
 * and hold counts the frames, unfreezes it and counts the reset
 * (fl_ms_gpu_record_watch). */
#pragma once
#include "gpu/rec.h"
#include "flurry_shared.h"
#include "sim/common/reduce.h"
#include "sim/massspring/ms_cpu.h"

typedef struct {
  fl_ms_method method;
  fl_ms_split split;           /* HO, HY */
  bool definite;               /* JI, IM, HY: clamped Jacobian (ms_spec.h) */
  uint32_t jacobi_iterations;  /* JI, HY: >= 1 */
  bool explicit_start;         /* JI, HY: Jacobi from dv = b / m instead of 0 (ms_spec.h) */
  uint32_t cg_iterations;      /* IM: iterations recorded per step, >= 1 */
  float cg_tolerance;          /* IM: relative residual |r| <= tol |b| */
  float kappa, damping;
  float gravity[3];
  float divergence_strain;     /* check: |l - l0| / l0 above this is a divergence */
  uint32_t grid[2];            /* E: particles per row and rows when the object is a grid of ms_spec.h
                                * ({0, 0}: unknown); links that are the grid's run explicit_offset.comp */
} fl_ms_gpu_params;

typedef struct {
  fl_gpu *gpu;
  fl_ms_gpu_params params;
  uint32_t cg_budget;          /* IM: CG iterations recorded per step, 1..params.cg_iterations
                                * (fl_ms_gpu_create sets the maximum; ms_object adapts it) */
  uint32_t cg_recorded;        /* IM: the budget of the last step recorded */
  uint32_t particle_count, link_count;
  char name[64];
  fl_buffer pos, vel, first, links, dv, dv_next, rhs, diag, cg_r, cg_p, cg_q, initial, status;
  fl_buffer pos_next, vel_next; /* E: the ping-pong twins of pos and vel (fl_ms_gpu_record_step swaps them) */
  bool offsets;                /* E: the links are those of params.grid: explicit_offset.comp, no links read */
  uint32_t grid_classes;       /* E on a grid: the spring classes present (bit FL_MS_CLASS_*) ... */
  float grid_rest[FL_MS_CLASS_COUNT]; /* ... and their rest lengths */
  uint32_t steps_recorded;     /* E: steps recorded so far (fl_ms_push.step of the last) */
  fl_reduce reduce;            /* IM only */
  fl_reduce_binding dot_bb, dot_pq, dot_rr[2];
} fl_ms_gpu;

/* What a step's passes must move, bytes (for the profiler's GB/s). */
typedef struct {
  uint64_t method, jacobi, cg_iteration, advance;
} fl_ms_pass_bytes;

/* Uploads the CPU system's state (x, v, inverse masses, springs) as the GPU
 * object's initial state; `name` names its buffers and errors. False with one
 * line on bad parameters or too little memory (sizes are checked first). */
bool fl_ms_gpu_create(fl_gpu *gpu, const fl_ms_system *initial, const fl_ms_gpu_params *params, const char *name,
                      fl_ms_gpu *out);
void fl_ms_gpu_destroy(fl_ms_gpu *s);
/* Checks params: one line naming what is wrong. */
bool fl_ms_gpu_params_check(const fl_ms_gpu_params *p, const char *name);
/* Records one step of length h (every pass followed by a barrier); each
 * pass is a scope named "<prefix>/<pass>" (prefix e.g. "ms/HY"). E only: prefix
 * NULL records its one dispatch with no scope of its own, for a caller that
 * times several steps in one scope (fl_ms_object_record_frame). */
void fl_ms_gpu_record_step(fl_ms_gpu *s, fl_rec *r, float h, const char *prefix);
/* Whether the step checks the state it starts from (E: the check is inside its
 * kernel), so that no fl_ms_gpu_record_check is needed between steps: a
 * divergence then freezes the particles that show it in the next step, the
 * rest of the object one step later, and the watch after the last step checks
 * the state the steps end in. */
bool fl_ms_gpu_checks_in_step(const fl_ms_gpu *s);
/* Records the divergence check alone (after a step: a divergence freezes the object at once). */
void fl_ms_gpu_record_check(fl_ms_gpu *s, fl_rec *r);
/* Records the divergence check; with `reset`, then a frozen object's frame of
 * the hold (its reset after FL_MS_RESET_HOLD_FRAMES of them, counted). Without,
 * the flag is sticky: it says whether the object ever diverged since creation. */
void fl_ms_gpu_record_watch(fl_ms_gpu *s, fl_rec *r, bool reset);
/* Bytes each pass must move (compulsory traffic: every array read or written once). */
fl_ms_pass_bytes fl_ms_gpu_pass_bytes(const fl_ms_gpu *s);
/* Reads positions and velocities back (xyz of each; w of positions: inverse
 * mass) into caller arrays of particle_count vec4. Waits for the GPU. */
bool fl_ms_gpu_read(fl_ms_gpu *s, float (*pos)[4], float (*vel)[4]);
/* Reads the status words (FL_MS_STATUS_*) and, for IM, the CG iterations and
 * relative residual of the last step (0 otherwise). Waits for the GPU. */
bool fl_ms_gpu_read_status(fl_ms_gpu *s, uint32_t status[FL_MS_STATUS_WORDS], uint32_t *cg_iterations,
                           float *cg_relative_residual);
/* The fl_ms_step_params of the CPU reference equivalent to these GPU params at step h. */
fl_ms_step_params fl_ms_gpu_cpu_params(const fl_ms_gpu_params *p, double h);
/* The integrator's name ("E", "HO", "JI", "IM", "HY"). */
const char *fl_ms_method_name(fl_ms_method m);
