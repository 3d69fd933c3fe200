/* app/kang_runs: the measurements behind the Kang 2018 experiment
 * (docs/KANG2018.md): a stability trial of one integrator on the paper's
 * cloth, the bisection that finds the largest stable stiffness or step, and
 * the timestamped cost of a step. Everything runs on the GPU kernels of
 * sim/massspring/ms_gpu; only a divergence flag is read back between chunks.
 *
 * The cloth: n x n particles on a sqrt(2) x sqrt(2) m square (2 m^2), 40 kg,
 * structural + shear + bend springs (ms_spec.h), released horizontal with its
 * top row (j = n - 1) pinned, so it swings down like a curtain under gravity.
 * Stability criterion: over the trial (duration seconds of simulated time,
 * at least FL_KANG_MIN_STEPS steps) no position becomes non-finite and no
 * spring's strain |l - l0| / l0 exceeds FL_KANG_STRAIN_LIMIT, checked on the
 * GPU after every chunk of steps. */
#pragma once
#include "gpu/gpu.h"
#include "gpu/rec.h"
#include "sim/massspring/ms_gpu.h"

#define FL_KANG_MIN_STEPS 100
#define FL_KANG_STRAIN_LIMIT 1.0
#define FL_KANG_MASS 40.0
#define FL_KANG_SIDE 1.4142135623730951 /* m: a 2 m^2 square */

typedef struct {
  fl_gpu *gpu;
  fl_descriptor_cache *sets;     /* reset whenever a trial's cloth is freed */
  double duration;               /* simulated seconds per stability trial */
  uint32_t trials;               /* trials run so far (for the log) */
} fl_kang_context;

typedef struct {
  uint32_t n;                    /* particles per side */
  double damping, kappa, h;
  fl_ms_method method;
} fl_kang_setup;

/* Runs one stability trial; false only on a GPU or memory error. */
bool fl_kang_stable(fl_kang_context *c, const fl_kang_setup *s, bool *stable);
/* The largest stable kappa (vary = 'k') or h (vary = 'h') of setup s, from a
 * bracket grown by 4x steps around `guess` and geometric bisection to a ratio
 * below 1.1. *out is the largest stable value found (0 if none down to
 * guess / 4^8); *capped is true when even guess * 4^8 was stable (a lower bound).
 * Assumes one threshold: where stability comes in windows (HO's and HY's
 * impulse is periodic in omega h) it finds one edge. */
bool fl_kang_largest_stable(fl_kang_context *c, fl_kang_setup s, char vary, double guess, double *out, bool *capped);
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
