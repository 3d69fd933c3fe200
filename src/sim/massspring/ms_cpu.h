/* sim/massspring/ms_cpu: the CPU reference of the mass-spring system and its
 * integrators E, HO, JI, IM, HY (ms_spec.h, Kang 2018), in double precision,
 * on plain arrays: positions, velocities, inverse masses, springs and the
 * per-particle spring lists (CSR). */
#pragma once
#include <stdbool.h>
#include <stdint.h>

typedef struct {
  uint32_t i, j; /* particle indices, i < j for the grid */
  double rest;   /* rest length l0 */
} fl_ms_spring;

typedef enum { FL_MS_E, FL_MS_HO, FL_MS_JI, FL_MS_IM, FL_MS_HY } fl_ms_method;

/* How HO (and HY) share a spring's impulse between its ends (ms_spec.h). */
typedef enum {
  FL_MS_SPLIT_PAPER,    /* Eq. 22: s_i = m_j/(m_i+m_j); not momentum conserving */
  FL_MS_SPLIT_MOMENTUM, /* s = 1 at both ends, +phi and -phi: momentum conserving */
} fl_ms_split;

typedef struct {
  fl_ms_method method;
  double h;                   /* step */
  uint32_t iterations;        /* Jacobi iterations of JI and HY (the paper: 3) */
  fl_ms_split split;          /* HO and HY */
  double cg_tolerance;        /* IM: relative residual; 0 means 1e-10 */
  uint32_t cg_max_iterations; /* IM: 0 means 10 * 3n */
  bool definite;              /* clamp 1 - l0/l to >= 0 in the Jacobian (ms_spec.h) */
  bool explicit_start;        /* JI, HY: Jacobi from dv = b / m (the explicit step) instead of 0 */
} fl_ms_step_params;

typedef struct {
  uint32_t particle_count, spring_count;
  double (*x)[3], (*v)[3];
  double *inv_mass;          /* 0: pinned */
  fl_ms_spring *springs;
  uint32_t *particle_first;  /* particle_count + 1 offsets into particle_springs */
  uint32_t *particle_springs; /* per particle, the springs touching it, ascending */
  double kappa, damping;     /* every spring's stiffness and damping c_d */
  double gravity[3];
  /* IM diagnostics of the last solve. */
  uint32_t cg_iterations;
  double cg_relative_residual;
  /* Scratch (private to ms_cpu.c). */
  double (*dv)[3], (*dv_next)[3], (*rhs)[3], (*phi)[3], (*cg_r)[3], (*cg_p)[3], (*cg_q)[3];
  double (*diag)[9];         /* A_ii per particle */
  double (*spring_k)[9];     /* K per spring (HO: phi_ij xhat_ij in the first 3) */
  double (*spring_b)[9];     /* B_s = h^2 K + h c_d P per spring */
} fl_ms_system;

/* A grid cloth of ms_spec.h, on the xz plane (or xy: rows j along +y, as cloth). */
typedef struct {
  uint32_t nx, ny;           /* particles per side, >= 2 */
  double size[2];            /* extent along x and z (y for the xy plane) */
  bool plane_xy;
  uint32_t springs;          /* FL_MS_SPRINGS_* groups (scene/scene.h); 0 = all three */
  double center[3];
  double mass;               /* total, shared equally */
  double kappa, damping;
  double gravity[3];
} fl_ms_grid_desc;

/* Allocates a system of n particles (x = v = 0, inverse mass 1) with the given
 * springs and builds the CSR; false with a one-line error on bad indices. */
bool fl_ms_system_create(uint32_t particle_count, const fl_ms_spring *springs, uint32_t spring_count,
                         double kappa, double damping, fl_ms_system *out);
/* Builds the grid cloth of ms_spec.h (no pins); false with a one-line error on bad sizes. */
bool fl_ms_grid_create(const fl_ms_grid_desc *d, fl_ms_system *out);
/* Frees every array and zeroes *s. */
void fl_ms_system_destroy(fl_ms_system *s);
/* Pins particle k: inverse mass 0, velocity 0. */
void fl_ms_pin(fl_ms_system *s, uint32_t k);
/* Sets every spring's rest length to its current length. */
void fl_ms_set_rest_lengths(fl_ms_system *s);
/* Reduced mass of spring s: 1/(w_i + w_j); 0 when both ends are pinned. */
double fl_ms_reduced_mass(const fl_ms_system *s, uint32_t spring);
/* The block K = df_i/dx_j (row-major 3x3) of a spring from x_i to x_j (ms_spec.h). */
void fl_ms_spring_jacobian(const double xi[3], const double xj[3], double rest, double kappa,
                           bool definite, double k_out[9]);
/* Force on every particle: gravity (free particles) plus spring and damping forces. */
void fl_ms_forces(const fl_ms_system *s, double (*f)[3]);
/* The velocity change of one step of p->method from the current state, into dv
 * (pinned: 0); x and v are unchanged. False with an error on invalid params. */
bool fl_ms_velocity_change(fl_ms_system *s, const fl_ms_step_params *p, double (*dv)[3]);
/* Advances the system one step of p->method (v += dv, x += h v; E: its own update). */
bool fl_ms_step(fl_ms_system *s, const fl_ms_step_params *p);
/* Kinetic + spring potential (kappa/2 delta^2) - sum m g.x over free particles. */
double fl_ms_energy(const fl_ms_system *s);
/* Linear momentum sum m v of the free particles. */
void fl_ms_momentum(const fl_ms_system *s, double out[3]);
