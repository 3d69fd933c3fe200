/* app/kang_runs: the measurements behind the Kang 2018 experiment
 * (docs/KANG2018.md): a stability trial of one integrator on the paper's
 * cloth, the bisection that finds the largest stable stiffness or step, and
 * the timestamped cost of a step. Everything runs on the GPU kernels of
 * sim/massspring/ms_gpu; only a divergence flag is read back between chunks.
 *
 * The cloth: n x n particles on a sqrt(2) x sqrt(2) m square (2 m^2), 40 kg,
 * structural + shear + bend springs (ms_spec.h), released horizontal with its
 * top row (j = n - 1) pinned, so it swings down like a curtain under gravity.
 * Stability criterion (like with like across methods): over the trial
 * (duration seconds of simulated time, at least min_steps steps) no
 * position becomes non-finite, no spring's strain |l - l0| / l0 exceeds the
 * setup's strain limit (checked on the GPU), and the total energy (kinetic +
 * spring - gravity work, fl_ms_energy in double on the CPU) never rises above
 * its start by more than FL_KANG_ENERGY_GROWTH x M g L (M the cloth's mass, L
 * its side: the potential a falling cloth can release), checked after every
 * chunk of steps. The energy of a damped cloth can only fall; an unstable one
 * grows without bound, so a stable trial's largest growth is the evidence
 * that it stayed bounded (reported per cell). */
#pragma once
#include "gpu/gpu.h"
#include "gpu/rec.h"
#include "sim/massspring/ms_gpu.h"

#define FL_KANG_STRAIN_LIMIT 0.1     /* Table 1: the cloth is stiff, so 10 % strain is a failure */
#define FL_KANG_SOFT_STRAIN_LIMIT 1.0 /* Table 3: kappa 512 sags more than 10 % under its own weight */
#define FL_KANG_ENERGY_GROWTH 0.1
#define FL_KANG_MASS 40.0
#define FL_KANG_SIDE 1.4142135623730951 /* m: a 2 m^2 square */

typedef struct {
  fl_gpu *gpu;
  fl_descriptor_cache *sets;     /* reset whenever a trial's cloth is freed */
  double duration;               /* simulated seconds per stability trial */
  uint32_t min_steps;            /* at least this many steps per trial (the paper's criterion needs >= 3000) */
  uint32_t trials;               /* trials run so far (for the log) */
} fl_kang_context;

typedef struct {
  uint32_t n;                    /* particles per side */
  double damping, kappa, h;
  fl_ms_method method;
  bool definite;                 /* JI, HY: the clamped Jacobian instead of the exact one (ms_spec.h) */
  uint32_t jacobi_iterations;    /* JI, HY: 0 means the paper's (JI 3, HY 1: Eq. 32 is one diagonal solve) */
  bool explicit_start;           /* JI, HY: Jacobi from the explicit step's dv = b / m instead of 0 */
  double strain_limit;           /* 0 means FL_KANG_STRAIN_LIMIT */
} fl_kang_setup;

typedef struct {
  bool stable;
  double energy_growth;          /* largest (E(t) - E(0)) / (M g L) seen at the checks */
  uint64_t steps;                /* steps run (an unstable trial stops at the check that failed) */
  double fall;                   /* m: how far the free particles' mean height fell over the trial: a solve
                                  * that damps everything (a huge diagonal) keeps the cloth up */
  const char *failure;           /* unstable: "strain or non-finite" or "energy growth"; NULL when stable */
} fl_kang_trial;

/* Runs one stability trial; false only on a GPU or memory error. */
bool fl_kang_stable(fl_kang_context *c, const fl_kang_setup *s, fl_kang_trial *out);
/* The largest stable kappa (vary = 'k') or h (vary = 'h') of setup s, from a
 * bracket grown by 4x steps around `guess` and geometric bisection to a ratio
 * below 1.1. *out is the largest stable value found (0 if none down to
 * guess / 4^8); *capped is true when even guess * 4^8 was stable (a lower bound).
 * *largest_trial is the trial at *out (its energy growth shows it stayed bounded), *first_unstable
 * the one at the smallest unstable value (what failed there).
 * Assumes one threshold: where stability comes in windows (HO's and HY's
 * impulse is periodic in omega h) it finds one edge. */
bool fl_kang_largest_stable(fl_kang_context *c, fl_kang_setup s, char vary, double guess, double *out, bool *capped,
                            fl_kang_trial *largest_trial, fl_kang_trial *first_unstable);
/* The E-stability estimate used as the bracket's start: the kappa (or h) at which
 * a spring between two particles of mass m reaches mu = h / h_c = 0.25. */
double fl_kang_guess_kappa(uint32_t n, double h);
double fl_kang_guess_h(uint32_t n, double kappa);

/* The cost of a step, timed with timestamps over `steps` steps after `warmup`
 * (IM: its CG budget set first to the iterations a probe step needed, returned
 * in *cg_iterations). Per pass: ms per step and bytes per step. */
#define FL_KANG_MAX_PASSES 4
typedef struct {
  double step_ms;
  uint32_t pass_count;
  const char *pass_names[FL_KANG_MAX_PASSES];
  double pass_ms[FL_KANG_MAX_PASSES];
  uint64_t pass_bytes[FL_KANG_MAX_PASSES];
  uint32_t cg_iterations;
} fl_kang_cost;
bool fl_kang_time_step(fl_kang_context *c, const fl_kang_setup *s, uint32_t warmup, uint32_t steps, fl_kang_cost *out);
