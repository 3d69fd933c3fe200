/* sim/massspring/ms_cpu: the CPU reference of ms_spec.h. Every integrator is
 * written as a velocity change dv from the current state followed by
 * v += dv, x += h v. Per-particle sums (HO impulses, Jacobi updates, the CG
 * matrix product) gather over the particle's CSR spring list in ascending
 * order, as one GPU thread per particle would. */
#include "sim/massspring/ms_cpu.h"

#include "scene/scene.h"

#include "core/log.h"
#include "sim/common/sheet_grid.h"
#include "sim/massspring/ms_ho.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RESOLUTION 4096u
#define MIN_LENGTH 1e-12

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* The other end of spring s seen from particle k. */
static uint32_t other_end(const fl_ms_spring *s, uint32_t k) { return s->i == k ? s->j : s->i; }

/* out = m a (3x3 times 3-vector, row-major). */
static void mul3(const double m[9], const double a[3], double out[3])
{
  for (int r = 0; r < 3; r++) out[r] = m[3 * r] * a[0] + m[3 * r + 1] * a[1] + m[3 * r + 2] * a[2];
}

/* Inverse of a 3x3 matrix by cofactors; false when it is singular or not finite. */
static bool inverse3(const double a[9], double out[9])
{
  double c00 = a[4] * a[8] - a[5] * a[7], c01 = a[5] * a[6] - a[3] * a[8], c02 = a[3] * a[7] - a[4] * a[6];
  double det = a[0] * c00 + a[1] * c01 + a[2] * c02;
  if (!(fabs(det) > 0) || !isfinite(det)) return false;
  double id = 1.0 / det;
  out[0] = c00 * id;
  out[1] = (a[2] * a[7] - a[1] * a[8]) * id;
  out[2] = (a[1] * a[5] - a[2] * a[4]) * id;
  out[3] = c01 * id;
  out[4] = (a[0] * a[8] - a[2] * a[6]) * id;
  out[5] = (a[2] * a[3] - a[0] * a[5]) * id;
  out[6] = c02 * id;
  out[7] = (a[1] * a[6] - a[0] * a[7]) * id;
  out[8] = (a[0] * a[4] - a[1] * a[3]) * id;
  return true;
}

/* Geometry of spring k: length, direction from i to j, strain and strain rate.
 * False when the spring is skipped (shorter than MIN_LENGTH, or both ends pinned). */
static bool spring_state(const fl_ms_system *s, uint32_t k, double xhat[3], double *delta, double *rate)
{
  const fl_ms_spring *sp = &s->springs[k];
  if (s->inv_mass[sp->i] == 0 && s->inv_mass[sp->j] == 0) return false;
  double d[3], dvel[3];
  for (int c = 0; c < 3; c++) {
    d[c] = s->x[sp->j][c] - s->x[sp->i][c];
    dvel[c] = s->v[sp->j][c] - s->v[sp->i][c];
  }
  double l = sqrt(dot3(d, d));
  if (!(l >= MIN_LENGTH)) return false;
  for (int c = 0; c < 3; c++) xhat[c] = d[c] / l;
  *delta = l - sp->rest;
  *rate = dot3(xhat, dvel);
  return true;
}

static bool alloc_all(fl_ms_system *s)
{
  size_t n = s->particle_count, e = s->spring_count ? s->spring_count : 1;
  s->x = calloc(n, sizeof *s->x);
  s->v = calloc(n, sizeof *s->v);
  s->inv_mass = calloc(n, sizeof *s->inv_mass);
  s->springs = calloc(e, sizeof *s->springs);
  s->particle_first = calloc(n + 1, sizeof *s->particle_first);
  s->particle_springs = calloc(2 * e, sizeof *s->particle_springs);
  s->dv = calloc(n, sizeof *s->dv);
  s->dv_next = calloc(n, sizeof *s->dv_next);
  s->rhs = calloc(n, sizeof *s->rhs);
  s->phi = calloc(n, sizeof *s->phi);
  s->cg_r = calloc(n, sizeof *s->cg_r);
  s->cg_p = calloc(n, sizeof *s->cg_p);
  s->cg_q = calloc(n, sizeof *s->cg_q);
  s->diag = calloc(n, sizeof *s->diag);
  s->spring_k = calloc(e, sizeof *s->spring_k);
  s->spring_b = calloc(e, sizeof *s->spring_b);
  return s->x && s->v && s->inv_mass && s->springs && s->particle_first && s->particle_springs && s->dv &&
         s->dv_next && s->rhs && s->phi && s->cg_r && s->cg_p && s->cg_q && s->diag && s->spring_k &&
         s->spring_b;
}

bool fl_ms_system_create(uint32_t particle_count, const fl_ms_spring *springs, uint32_t spring_count,
                         double kappa, double damping, fl_ms_system *out)
{
  memset(out, 0, sizeof *out);
  if (particle_count == 0 || particle_count > MAX_RESOLUTION * MAX_RESOLUTION)
    return fl_error_set("mass-spring: %u particles, need 1..%u", (unsigned)particle_count,
                        MAX_RESOLUTION * MAX_RESOLUTION);
  if (!(kappa >= 0 && isfinite(kappa)) || !(damping >= 0 && isfinite(damping)))
    return fl_error_set("mass-spring: stiffness %g and damping %g must be finite and >= 0", kappa, damping);
  for (uint32_t k = 0; k < spring_count; k++) {
    const fl_ms_spring *sp = &springs[k];
    if (sp->i >= particle_count || sp->j >= particle_count || sp->i == sp->j || !(sp->rest >= 0) ||
        !isfinite(sp->rest))
      return fl_error_set("mass-spring: spring %u (%u, %u, rest %g) is invalid", (unsigned)k, (unsigned)sp->i,
                          (unsigned)sp->j, sp->rest);
  }
  out->particle_count = particle_count;
  out->spring_count = spring_count;
  out->kappa = kappa;
  out->damping = damping;
  if (!alloc_all(out)) {
    fl_ms_system_destroy(out);
    return fl_error_set("mass-spring: out of memory for %u particles", (unsigned)particle_count);
  }
  if (spring_count) memcpy(out->springs, springs, spring_count * sizeof *springs);
  for (uint32_t k = 0; k < particle_count; k++) out->inv_mass[k] = 1.0;
  /* CSR: count, prefix sum, fill in spring order (ascending per particle). */
  for (uint32_t k = 0; k < spring_count; k++) {
    out->particle_first[springs[k].i + 1]++;
    out->particle_first[springs[k].j + 1]++;
  }
  for (uint32_t k = 0; k < particle_count; k++) out->particle_first[k + 1] += out->particle_first[k];
  uint32_t *fill = calloc(particle_count, sizeof *fill);
  if (!fill) {
    fl_ms_system_destroy(out);
    return fl_error_set("mass-spring: out of memory for %u particles", (unsigned)particle_count);
  }
  for (uint32_t k = 0; k < spring_count; k++) {
    uint32_t a = springs[k].i, b = springs[k].j;
    out->particle_springs[out->particle_first[a] + fill[a]++] = k;
    out->particle_springs[out->particle_first[b] + fill[b]++] = k;
  }
  free(fill);
  return true;
}

bool fl_ms_grid_create(const fl_ms_grid_desc *d, fl_ms_system *out)
{
  memset(out, 0, sizeof *out);
  uint32_t nx = d->nx, ny = d->ny;
  if (nx < 2 || ny < 2 || nx > MAX_RESOLUTION || ny > MAX_RESOLUTION)
    return fl_error_set("mass-spring grid: resolution %ux%u is outside 2..%u on an axis", (unsigned)nx,
                        (unsigned)ny, MAX_RESOLUTION);
  if (!(d->size[0] > 0 && d->size[1] > 0 && isfinite(d->size[0]) && isfinite(d->size[1])) ||
      !(d->mass > 0 && isfinite(d->mass)))
    return fl_error_set("mass-spring grid: size [%g, %g] and mass %g must be finite and > 0", d->size[0],
                        d->size[1], d->mass);
  uint32_t groups = d->springs ? d->springs : FL_MS_SPRINGS_STRUCTURAL | FL_MS_SPRINGS_SHEAR | FL_MS_SPRINGS_BEND;
  uint32_t count = (nx - 1) * ny + nx * (ny - 1) + 2 * (nx - 1) * (ny - 1) + (nx > 2 ? (nx - 2) * ny : 0) +
                   (ny > 2 ? nx * (ny - 2) : 0);
  fl_ms_spring *springs = calloc(count, sizeof *springs);
  if (!springs) return fl_error_set("mass-spring grid: out of memory for %u springs", (unsigned)count);
  uint32_t e = 0;
#define IDX(i, j) ((uint32_t)(j) * nx + (uint32_t)(i))
  if (groups & FL_MS_SPRINGS_STRUCTURAL) {
    for (uint32_t j = 0; j < ny; j++)
      for (uint32_t i = 0; i + 1 < nx; i++) springs[e++] = (fl_ms_spring){IDX(i, j), IDX(i + 1, j), 0};
    for (uint32_t j = 0; j + 1 < ny; j++)
      for (uint32_t i = 0; i < nx; i++) springs[e++] = (fl_ms_spring){IDX(i, j), IDX(i, j + 1), 0};
  }
  if (groups & FL_MS_SPRINGS_SHEAR) {
    for (uint32_t j = 0; j + 1 < ny; j++)
      for (uint32_t i = 0; i + 1 < nx; i++) springs[e++] = (fl_ms_spring){IDX(i, j), IDX(i + 1, j + 1), 0};
    for (uint32_t j = 0; j + 1 < ny; j++)
      for (uint32_t i = 0; i + 1 < nx; i++) springs[e++] = (fl_ms_spring){IDX(i + 1, j), IDX(i, j + 1), 0};
  }
  if (groups & FL_MS_SPRINGS_BEND) {
    for (uint32_t j = 0; j < ny; j++)
      for (uint32_t i = 0; i + 2 < nx; i++) springs[e++] = (fl_ms_spring){IDX(i, j), IDX(i + 2, j), 0};
    for (uint32_t j = 0; j + 2 < ny; j++)
      for (uint32_t i = 0; i < nx; i++) springs[e++] = (fl_ms_spring){IDX(i, j), IDX(i, j + 2), 0};
  }
#undef IDX
  bool ok = fl_ms_system_create(nx * ny, springs, e, d->kappa, d->damping, out);
  free(springs);
  if (!ok) return false;
  double w = (double)(nx * ny) / d->mass;
  fl_sheet_grid g = {.center = {d->center[0], d->center[1], d->center[2]}, .size = {d->size[0], d->size[1]},
                     .plane_xy = d->plane_xy, .nx = nx, .ny = ny};
  for (uint32_t j = 0; j < ny; j++)
    for (uint32_t i = 0; i < nx; i++) {
      fl_sheet_grid_point(&g, i, j, out->x[j * nx + i]);
      out->inv_mass[j * nx + i] = w;
    }
  memcpy(out->gravity, d->gravity, sizeof out->gravity);
  fl_ms_set_rest_lengths(out);
  return true;
}

void fl_ms_system_destroy(fl_ms_system *s)
{
  free(s->x);
  free(s->v);
  free(s->inv_mass);
  free(s->springs);
  free(s->particle_first);
  free(s->particle_springs);
  free(s->dv);
  free(s->dv_next);
  free(s->rhs);
  free(s->phi);
  free(s->cg_r);
  free(s->cg_p);
  free(s->cg_q);
  free(s->diag);
  free(s->spring_k);
  free(s->spring_b);
  memset(s, 0, sizeof *s);
}

void fl_ms_pin(fl_ms_system *s, uint32_t k)
{
  s->inv_mass[k] = 0;
  s->v[k][0] = s->v[k][1] = s->v[k][2] = 0;
}

void fl_ms_set_rest_lengths(fl_ms_system *s)
{
  for (uint32_t k = 0; k < s->spring_count; k++) {
    fl_ms_spring *sp = &s->springs[k];
    double d[3] = {s->x[sp->j][0] - s->x[sp->i][0], s->x[sp->j][1] - s->x[sp->i][1],
                   s->x[sp->j][2] - s->x[sp->i][2]};
    sp->rest = sqrt(dot3(d, d));
  }
}

double fl_ms_reduced_mass(const fl_ms_system *s, uint32_t spring)
{
  double w = s->inv_mass[s->springs[spring].i] + s->inv_mass[s->springs[spring].j];
  return w > 0 ? 1.0 / w : 0.0;
}

void fl_ms_spring_jacobian(const double xi[3], const double xj[3], double rest, double kappa, bool definite,
                           double k_out[9])
{
  double d[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]};
  double l = sqrt(dot3(d, d));
  if (!(l >= MIN_LENGTH)) {
    memset(k_out, 0, 9 * sizeof *k_out);
    return;
  }
  double xh[3] = {d[0] / l, d[1] / l, d[2] / l};
  double t = 1.0 - rest / l; /* K = kappa [P + t (I - P)] */
  if (definite && t < 0) t = 0;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      double p = xh[r] * xh[c];
      k_out[3 * r + c] = kappa * (p + t * ((r == c ? 1.0 : 0.0) - p));
    }
}

void fl_ms_forces(const fl_ms_system *s, double (*f)[3])
{
  for (uint32_t k = 0; k < s->particle_count; k++) {
    double w = s->inv_mass[k];
    for (int c = 0; c < 3; c++) f[k][c] = w > 0 ? s->gravity[c] / w : 0.0;
  }
  for (uint32_t k = 0; k < s->spring_count; k++) {
    double xh[3], delta, rate;
    if (!spring_state(s, k, xh, &delta, &rate)) continue;
    double mag = s->kappa * delta + s->damping * rate;
    for (int c = 0; c < 3; c++) {
      f[s->springs[k].i][c] += mag * xh[c];
      f[s->springs[k].j][c] -= mag * xh[c];
    }
  }
}

/* HO impulses phi_i (with m_i g h) of every particle into s->phi (ms_spec.h). */
static void ho_impulses(fl_ms_system *s, const fl_ms_step_params *p)
{
  /* per spring: phi_ij xhat_ij into spring_k[k][0..2] (scratch), gathered per particle below */
  for (uint32_t k = 0; k < s->spring_count; k++) {
    double xh[3], delta, rate;
    double *out = s->spring_k[k];
    out[0] = out[1] = out[2] = 0;
    if (!spring_state(s, k, xh, &delta, &rate)) continue;
    double phi = fl_ms_ho_impulse(delta, rate, fl_ms_reduced_mass(s, k), s->kappa, s->damping, p->h);
    for (int c = 0; c < 3; c++) out[c] = phi * xh[c];
  }
  for (uint32_t k = 0; k < s->particle_count; k++) {
    double wk = s->inv_mass[k];
    double *acc = s->phi[k];
    acc[0] = acc[1] = acc[2] = 0;
    if (wk == 0) continue;
    for (uint32_t a = s->particle_first[k]; a < s->particle_first[k + 1]; a++) {
      uint32_t e = s->particle_springs[a];
      const fl_ms_spring *sp = &s->springs[e];
      double wo = s->inv_mass[other_end(sp, k)];
      double share = p->split == FL_MS_SPLIT_PAPER ? wk / (wk + wo) : 1.0;
      double sign = sp->i == k ? 1.0 : -1.0; /* xhat_ji = -xhat_ij */
      for (int c = 0; c < 3; c++) acc[c] += sign * share * s->spring_k[e][c];
    }
    for (int c = 0; c < 3; c++) acc[c] += s->gravity[c] / wk * p->h;
  }
}

/* Assembles the implicit system of ms_spec.h: K and B per spring, A_ii^-1 per
 * particle into s->diag, b into s->rhs. False when a diagonal block is singular. */
static bool assemble(fl_ms_system *s, const fl_ms_step_params *p, const double (*f)[3])
{
  double h = p->h;
  for (uint32_t k = 0; k < s->spring_count; k++) {
    double xh[3], delta, rate;
    double *kk = s->spring_k[k], *bb = s->spring_b[k];
    if (!spring_state(s, k, xh, &delta, &rate)) {
      memset(kk, 0, 9 * sizeof *kk);
      memset(bb, 0, 9 * sizeof *bb);
      continue;
    }
    fl_ms_spring_jacobian(s->x[s->springs[k].i], s->x[s->springs[k].j], s->springs[k].rest, s->kappa,
                          p->definite, kk);
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) bb[3 * r + c] = h * h * kk[3 * r + c] + h * s->damping * xh[r] * xh[c];
  }
  for (uint32_t k = 0; k < s->particle_count; k++) {
    double wk = s->inv_mass[k], a[9] = {0};
    double *b = s->rhs[k];
    b[0] = b[1] = b[2] = 0;
    if (wk == 0) {
      memset(s->diag[k], 0, sizeof s->diag[k]);
      continue;
    }
    a[0] = a[4] = a[8] = 1.0 / wk;
    double jv[3] = {0, 0, 0};
    for (uint32_t i = s->particle_first[k]; i < s->particle_first[k + 1]; i++) {
      uint32_t e = s->particle_springs[i];
      uint32_t o = other_end(&s->springs[e], k);
      double rel[3] = {s->v[o][0] - s->v[k][0], s->v[o][1] - s->v[k][1], s->v[o][2] - s->v[k][2]}, t[3];
      mul3(s->spring_k[e], rel, t);
      for (int c = 0; c < 3; c++) jv[c] += t[c];
      for (int c = 0; c < 9; c++) a[c] += s->spring_b[e][c];
    }
    for (int c = 0; c < 3; c++) b[c] = h * f[k][c] + h * h * jv[c];
    if (!inverse3(a, s->diag[k]))
      return fl_error_set("mass-spring: singular diagonal block at particle %u", (unsigned)k);
  }
  return true;
}

/* `iterations` Jacobi sweeps on A dv = s->rhs from dv = 0, or from dv = rhs / m (ms_spec.h), into dv. */
static void jacobi(fl_ms_system *s, uint32_t iterations, bool explicit_start, double (*dv)[3])
{
  uint32_t n = s->particle_count;
  for (uint32_t k = 0; k < n; k++)
    for (int c = 0; c < 3; c++) dv[k][c] = explicit_start ? s->rhs[k][c] * s->inv_mass[k] : 0.0;
  for (uint32_t it = 0; it < iterations; it++) {
    for (uint32_t k = 0; k < n; k++) {
      double *out = s->dv_next[k];
      out[0] = out[1] = out[2] = 0;
      if (s->inv_mass[k] == 0) continue;
      double r[3] = {s->rhs[k][0], s->rhs[k][1], s->rhs[k][2]}, t[3];
      for (uint32_t i = s->particle_first[k]; i < s->particle_first[k + 1]; i++) {
        uint32_t e = s->particle_springs[i];
        mul3(s->spring_b[e], dv[other_end(&s->springs[e], k)], t);
        for (int c = 0; c < 3; c++) r[c] += t[c];
      }
      mul3(s->diag[k], r, out);
    }
    memcpy(dv, s->dv_next, n * sizeof *dv);
  }
}

/* q = A p over the free particles (pinned rows 0; p is 0 there). */
static void apply_a(const fl_ms_system *s, const double (*p)[3], double (*q)[3])
{
  for (uint32_t k = 0; k < s->particle_count; k++) {
    double wk = s->inv_mass[k];
    if (wk == 0) {
      q[k][0] = q[k][1] = q[k][2] = 0;
      continue;
    }
    double acc[3] = {p[k][0] / wk, p[k][1] / wk, p[k][2] / wk}, t[3];
    for (uint32_t i = s->particle_first[k]; i < s->particle_first[k + 1]; i++) {
      uint32_t e = s->particle_springs[i];
      uint32_t o = other_end(&s->springs[e], k);
      double rel[3] = {p[k][0] - p[o][0], p[k][1] - p[o][1], p[k][2] - p[o][2]};
      mul3(s->spring_b[e], rel, t);
      for (int c = 0; c < 3; c++) acc[c] += t[c];
    }
    memcpy(q[k], acc, sizeof acc);
  }
}

static double dot_all(const fl_ms_system *s, const double (*a)[3], const double (*b)[3])
{
  double sum = 0;
  for (uint32_t k = 0; k < s->particle_count; k++) sum += dot3(a[k], b[k]);
  return sum;
}

/* Conjugate gradients on A dv = s->rhs from dv = 0 (ms_spec.h), into dv. */
static bool conjugate_gradients(fl_ms_system *s, const fl_ms_step_params *p, double (*dv)[3])
{
  uint32_t n = s->particle_count;
  double tol = p->cg_tolerance > 0 ? p->cg_tolerance : 1e-10;
  uint32_t max_it = p->cg_max_iterations ? p->cg_max_iterations : 30 * n;
  memset(dv, 0, n * sizeof *dv);
  memcpy(s->cg_r, s->rhs, n * sizeof *s->cg_r);
  memcpy(s->cg_p, s->rhs, n * sizeof *s->cg_p);
  double bnorm = sqrt(dot_all(s, (const double (*)[3])s->rhs, (const double (*)[3])s->rhs));
  double rr = bnorm * bnorm;
  s->cg_iterations = 0;
  s->cg_relative_residual = 0;
  if (bnorm == 0) return true;
  uint32_t it = 0;
  while (it < max_it && sqrt(rr) > tol * bnorm) {
    apply_a(s, (const double (*)[3])s->cg_p, s->cg_q);
    double pq = dot_all(s, (const double (*)[3])s->cg_p, (const double (*)[3])s->cg_q);
    if (!(pq > 0)) return fl_error_set("mass-spring: IM matrix is not positive definite (p.Ap = %g)", pq);
    double alpha = rr / pq;
    for (uint32_t k = 0; k < n; k++)
      for (int c = 0; c < 3; c++) {
        dv[k][c] += alpha * s->cg_p[k][c];
        s->cg_r[k][c] -= alpha * s->cg_q[k][c];
      }
    double rr_new = dot_all(s, (const double (*)[3])s->cg_r, (const double (*)[3])s->cg_r);
    double beta = rr_new / rr;
    rr = rr_new;
    for (uint32_t k = 0; k < n; k++)
      for (int c = 0; c < 3; c++) s->cg_p[k][c] = s->cg_r[k][c] + beta * s->cg_p[k][c];
    it++;
  }
  s->cg_iterations = it;
  s->cg_relative_residual = sqrt(rr) / bnorm;
  return true;
}

bool fl_ms_velocity_change(fl_ms_system *s, const fl_ms_step_params *p, double (*dv)[3])
{
  uint32_t n = s->particle_count;
  if (!(p->h > 0 && isfinite(p->h))) return fl_error_set("mass-spring: step %g must be finite and > 0", p->h);
  if (p->split != FL_MS_SPLIT_PAPER && p->split != FL_MS_SPLIT_MOMENTUM)
    return fl_error_set("mass-spring: unknown impulse split %d", (int)p->split);
  switch (p->method) {
  case FL_MS_E:
    fl_ms_forces(s, dv);
    for (uint32_t k = 0; k < n; k++)
      for (int c = 0; c < 3; c++) dv[k][c] *= p->h * s->inv_mass[k];
    return true;
  case FL_MS_HO:
    ho_impulses(s, p);
    for (uint32_t k = 0; k < n; k++)
      for (int c = 0; c < 3; c++) dv[k][c] = s->phi[k][c] * s->inv_mass[k];
    return true;
  case FL_MS_JI:
  case FL_MS_IM:
  case FL_MS_HY:
    if (p->method == FL_MS_HY) ho_impulses(s, p); /* uses spring_k as scratch: before assemble */
    fl_ms_forces(s, dv);                          /* f, in dv as scratch */
    if (!assemble(s, p, (const double (*)[3])dv)) return false;
    if (p->method == FL_MS_HY)
      for (uint32_t k = 0; k < n; k++)
        for (int c = 0; c < 3; c++) s->rhs[k][c] = 0.5 * (s->rhs[k][c] + s->phi[k][c]);
    if (p->method == FL_MS_IM) return conjugate_gradients(s, p, dv);
    jacobi(s, p->iterations, p->explicit_start, dv);
    return true;
  }
  return fl_error_set("mass-spring: unknown method %d", (int)p->method);
}

bool fl_ms_step(fl_ms_system *s, const fl_ms_step_params *p)
{
  if (!fl_ms_velocity_change(s, p, s->dv)) return false;
  for (uint32_t k = 0; k < s->particle_count; k++) {
    if (s->inv_mass[k] == 0) {
      s->v[k][0] = s->v[k][1] = s->v[k][2] = 0;
      continue;
    }
    for (int c = 0; c < 3; c++) {
      s->v[k][c] += s->dv[k][c];
      s->x[k][c] += p->h * s->v[k][c];
    }
  }
  return true;
}

double fl_ms_energy(const fl_ms_system *s)
{
  double e = 0;
  for (uint32_t k = 0; k < s->particle_count; k++) {
    double w = s->inv_mass[k];
    if (w == 0) continue;
    e += 0.5 * dot3(s->v[k], s->v[k]) / w - dot3(s->gravity, s->x[k]) / w;
  }
  for (uint32_t k = 0; k < s->spring_count; k++) {
    const fl_ms_spring *sp = &s->springs[k];
    double d[3] = {s->x[sp->j][0] - s->x[sp->i][0], s->x[sp->j][1] - s->x[sp->i][1],
                   s->x[sp->j][2] - s->x[sp->i][2]};
    double delta = sqrt(dot3(d, d)) - sp->rest;
    e += 0.5 * s->kappa * delta * delta;
  }
  return e;
}

void fl_ms_momentum(const fl_ms_system *s, double out[3])
{
  out[0] = out[1] = out[2] = 0;
  for (uint32_t k = 0; k < s->particle_count; k++) {
    double w = s->inv_mass[k];
    if (w == 0) continue;
    for (int c = 0; c < 3; c++) out[c] += s->v[k][c] / w;
  }
}
