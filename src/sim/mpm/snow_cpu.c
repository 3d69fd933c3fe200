/* sim/mpm/snow_cpu: the CPU reference of one MPM snow substep, snow_spec.h
 * taken literally (Stomakhin et al. 2013, NOTES.md section 4; quadratic
 * MLS-MPM/APIC after Hu et al. 2018). Written for clarity, not speed.
 *
 * Floating-point formulation (all float, as the GPU; double only for the
 * float-mode node sums). Where the spec leaves a choice, the one taken here
 * is the one shaders/mpm/ makes:
 *  - h = grid_origin.w, 1/h = params.y; "/ h" is "* params.y" except rho = sum / (h h h):
 *    fx = (x_p - origin) * (1/h); grad w = (N'x Ny Nz, Nx N'y Nz, Nx Ny N'z) * (1/h);
 *    w = (Nx Ny) Nz; d = fx - (float)node; x_i = origin + (float)node * h;
 *    dx = x_i - x_p; 4/h^2 = 4 (1/h) (1/h).
 *  - stencil loops: z outer, x inner; nodes outside the grid are skipped (and a
 *    particle whose fx is not finite or far outside the grid touches no node).
 *  - P2G contributions: m: w m_p; P: (w m_p) (v_p [+ C_p dx]); Q: -dt (K grad w)
 *    (cubic) or ((-dt (4/h^2)) w) (K dx) (quadratic). FL_MPM_FOLD_IMPULSE: P + Q is
 *    one contribution to P and Q stays 0 (for every particle). Fixed point: the
 *    float value * scale rounded to nearest, ties to even (GLSL roundEven), clamped
 *    to +-2147483520 by fmaxf/fminf, then int32; the sums are kept in int64 and a
 *    sum beyond int32 (where the GPU's would wrap) is an error. Decoding: m = float(int32) / mass_scale,
 *    P, Q = float(int32) / momentum_scale.
 *  - grid: v_n = P / m; v* = ((P + Q) / m) + dt g (P / m + dt g below the light-node mass
 *    params.z); m <= 0 (or NaN): gridv all zero.
 *  - G2P: sums in stencil order; C = (4/h^2) (sum (w v_i) dx^T); F~ = (I + dt grad v) F_E;
 *    J_P *= (S0 S1 S2) / (S^0 S^1 S^2); hardening exponent min(xi (1 - J_P),
 *    logf(50)); K = V0 (U diag(2 mu (S^ - 1) S^) U^T + (lambda (J_E - 1) J_E) I).
 *    Literal spec: when F~ is inverted (S2 < 0) the clamp makes S^2 > 0, so F_E
 *    is un-inverted and J_P turns negative (the hardening cap then rules).
 *  - collisions: nothing when v_n >= 0; |v_t| <= -mu v_n sticks, else
 *    v_t + ((mu v_n) v_t) / |v_t|; mu is the material's friction (the collider's
 *    velocity.w is not used).
 *  - stats: bad = x, v or J_P not finite after the step; speed = bad ? 0 : |v|
 *    after collisions; J_P range over good particles of max(J_P, 0); the words are
 *    folded as uint atomicMax / atomicMin on float bits.
 *  - affine is written only for APIC particles (pic_flip rows are left as they are);
 *    stress[2p+1] = (K_xz, K_yz, 0, material index) as the spec says. */
#include "sim/mpm/snow_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "sim/common/sdf_cpu.h"
#include "sim/mpm/svd3_cpu.h"

/* Per-axis weights of one particle (cubic: 4 nodes, quadratic: 3). */
typedef struct {
  int base[3];
  int width;
  float n[3][4];  /* N(d) */
  float dn[3][4]; /* N'(d) (cubic only) */
} stencil;

static float cubic_n(float d)
{
  float a = fabsf(d);
  if (a < 1.0f) return 0.5f * a * a * a - d * d + 2.0f / 3.0f;
  if (a < 2.0f) return -1.0f / 6.0f * a * a * a + d * d - 2.0f * a + 4.0f / 3.0f;
  return 0.0f;
}

static float cubic_dn(float d)
{
  float a = fabsf(d);
  float sign = d > 0.0f ? 1.0f : (d < 0.0f ? -1.0f : 0.0f);
  if (a < 1.0f) return 1.5f * d * a - 2.0f * d;
  if (a < 2.0f) return -0.5f * d * a + 2.0f * d - 2.0f * sign;
  return 0.0f;
}

static float quadratic_n(float d)
{
  float a = fabsf(d);
  if (a < 0.5f) return 0.75f - d * d;
  if (a < 1.5f) {
    float b = 1.5f - a;
    return 0.5f * b * b;
  }
  return 0.0f;
}

static bool is_apic(const fl_snow_material *m) { return m->transfer == FL_SNOW_TRANSFER_APIC; }

/* The particle's material record: index fe[3p+1].w (0 when not a valid index). */
static const fl_snow_material *material_of(const fl_snow_material *materials, const fl_snow_cpu_particles *p,
                                           uint32_t i)
{
  float w = p->fe[3 * i + 1][3];
  uint32_t idx = w >= 0.0f && w < (float)FL_SNOW_MAX_MATERIALS ? (uint32_t)w : 0u;
  return &materials[idx];
}

/* WEIGHTS of snow_spec.h; false when fx is not finite or far outside the grid. */
static bool make_stencil(const fl_mpm_push *push, const float x[3], bool apic, stencil *s)
{
  float inv_h = push->inv_h;
  s->width = apic ? 3 : 4;
  for (int a = 0; a < 3; a++) {
    float fx = (x[a] - push->grid_origin[a]) * inv_h;
    if (!(fx > -8.0f && fx < (float)push->grid_dims[a] + 8.0f)) return false;
    s->base[a] = apic ? (int)floorf(fx - 0.5f) : (int)floorf(fx) - 1;
    for (int k = 0; k < s->width; k++) {
      float d = fx - (float)(s->base[a] + k);
      s->n[a][k] = apic ? quadratic_n(d) : cubic_n(d);
      s->dn[a][k] = apic ? 0.0f : cubic_dn(d);
    }
  }
  return true;
}

/* Linear index of stencil node (i, j, k) (offsets from base), or -1 outside the grid. */
static long node_index(const fl_mpm_push *push, const stencil *s, int i, int j, int k)
{
  long gi = (long)s->base[0] + i, gj = (long)s->base[1] + j, gk = (long)s->base[2] + k;
  if (gi < 0 || gj < 0 || gk < 0 || gi >= (long)push->grid_dims[0] || gj >= (long)push->grid_dims[1] ||
      gk >= (long)push->grid_dims[2])
    return -1;
  long n = (gk * (long)push->grid_dims[1] + gj) * (long)push->grid_dims[0] + gi;
  return n < (long)fl_snow_cpu_nodes(push) ? n : -1;
}

/* Stencil node (i, j, k) of a particle at x: weight w, gradient gw (cubic) and x_i - x (dx). */
static float node_weight(const fl_mpm_push *push, const stencil *s, const float x[3], int i, int j, int k, float gw[3],
                         float dx[3])
{
  const int o[3] = {i, j, k};
  float inv_h = push->inv_h, h = push->h;
  float nx = s->n[0][i], ny = s->n[1][j], nz = s->n[2][k];
  gw[0] = s->dn[0][i] * ny * nz * inv_h;
  gw[1] = nx * s->dn[1][j] * nz * inv_h;
  gw[2] = nx * ny * s->dn[2][k] * inv_h;
  for (int a = 0; a < 3; a++) dx[a] = (push->grid_origin[a] + (float)(s->base[a] + o[a]) * h) - x[a];
  return nx * ny * nz;
}

static uint32_t particle_count(const fl_mpm_push *push, const fl_snow_cpu_particles *p)
{
  return push->count < p->count ? push->count : p->count;
}

/* K_p (symmetric) from stress[2p], stress[2p+1]. */
static void load_stress(const fl_snow_cpu_particles *p, uint32_t i, float K[3][3])
{
  const float *s0 = p->stress[2 * i], *s1 = p->stress[2 * i + 1];
  K[0][0] = s0[0], K[1][1] = s0[1], K[2][2] = s0[2];
  K[0][1] = K[1][0] = s0[3];
  K[0][2] = K[2][0] = s1[0];
  K[1][2] = K[2][1] = s1[1];
}

/* int32 fixed point of value * scale: nearest, ties to even (default rounding mode:
 * GLSL roundEven), clamped to +-2147483520 (the largest float below 2^31) with
 * IEEE fmax/fmin, so NaN gives the lower bound as GLSL clamp does on them. */
static int32_t to_fixed(float value, float scale)
{
  return (int32_t)fminf(fmaxf(nearbyintf(value * scale), -2147483520.0f), 2147483520.0f);
}

bool fl_snow_cpu_p2g(const fl_mpm_push *push, const fl_snow_material *materials, const fl_snow_cpu_particles *p,
                     uint32_t *acc)
{
  uint32_t nodes = fl_snow_cpu_nodes(push);
  bool fixed = (push->flags & FL_MPM_FIXED_POINT) != 0, fold = (push->flags & FL_MPM_FOLD_IMPULSE) != 0;
  double *sum = NULL;   /* float mode: 7 sums per node (P, m, Q) */
  int64_t *isum = NULL; /* fixed point: the same sums of int32 contributions, exact */
  if (fixed) isum = calloc((size_t)nodes * 7u + 1u, sizeof *isum);
  else sum = calloc((size_t)nodes * 7u + 1u, sizeof *sum);
  if (!sum && !isum) return fl_error_set("snow CPU reference: out of memory for %u grid nodes", nodes);
  memset(acc, 0, (size_t)nodes * 8u * sizeof *acc);
  float dt = push->dt, inv_h = push->inv_h, d_inv = 4.0f * inv_h * inv_h;
  float mass_scale = push->mass_scale, momentum_scale = push->momentum_scale;
  for (uint32_t pi = 0; pi < particle_count(push, p); pi++) {
    const fl_snow_material *mat = material_of(materials, p, pi);
    bool apic = is_apic(mat);
    stencil s;
    if (!make_stencil(push, p->pos[pi], apic, &s)) continue;
    float m = p->pos[pi][3], K[3][3], C[3][3];
    load_stress(p, pi, K);
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) C[r][c] = apic ? p->affine[3 * pi + r][c] : 0.0f;
    for (int k = 0; k < s.width; k++)
      for (int j = 0; j < s.width; j++)
        for (int i = 0; i < s.width; i++) {
          long n = node_index(push, &s, i, j, k);
          if (n < 0) continue;
          float gw[3], dx[3], val[7];
          float w = node_weight(push, &s, p->pos[pi], i, j, k, gw, dx), wm = w * m;
          val[3] = wm;
          for (int a = 0; a < 3; a++) {
            if (apic) { /* P_i += w m_p (v_p + C_p dx); Q_i += -dt (4/h^2) w K_p dx (Hu 2018) */
              float cdx = C[a][0] * dx[0] + C[a][1] * dx[1] + C[a][2] * dx[2];
              float kdx = K[a][0] * dx[0] + K[a][1] * dx[1] + K[a][2] * dx[2];
              val[a] = wm * (p->vel[pi][a] + cdx);
              val[4 + a] = (-dt * d_inv * w) * kdx;
            } else { /* P_i += w m_p v_p; Q_i += -dt K_p grad w_ip (Eq. 6) */
              float kgw = K[a][0] * gw[0] + K[a][1] * gw[1] + K[a][2] * gw[2];
              val[a] = wm * p->vel[pi][a];
              val[4 + a] = -dt * kgw;
            }
            if (fold) {
              val[a] += val[4 + a];
              val[4 + a] = 0.0f;
            }
          }
          for (int q = 0; q < 7; q++) {
            if (fixed) isum[7 * n + q] += to_fixed(val[q], q == 3 ? mass_scale : momentum_scale);
            else sum[7 * n + q] += (double)val[q];
          }
        }
  }
  bool ok = true;
  for (uint32_t n = 0; n < nodes && ok; n++)
    for (uint32_t q = 0; q < 7; q++) {
      if (!fixed) {
        acc[8u * n + q] = fl_snow_float_bits((float)sum[7u * n + q]);
        continue;
      }
      /* int32 headroom (snow_spec.h GRID ACCUMULATOR): the GPU's sum would wrap here. */
      int64_t v = isum[7u * n + q];
      if (v > INT32_MAX || v < INT32_MIN) {
        ok = fl_error_set("snow CPU reference: node %u word %u sums to %lld fixed-point units, beyond int32 "
                          "(the accumulator's headroom, snow_spec.h)", n, q, (long long)v);
        break;
      }
      acc[8u * n + q] = (uint32_t)(int32_t)v;
    }
  free(sum);
  free(isum);
  return ok;
}

/* The rule of COLLISIONS for one body: normal n, body velocity vco, friction mu. */
static void collide_one(float v[3], const float n[3], const float vco[3], float mu)
{
  float vr[3] = {v[0] - vco[0], v[1] - vco[1], v[2] - vco[2]};
  float vn = vr[0] * n[0] + vr[1] * n[1] + vr[2] * n[2];
  if (vn >= 0.0f) return; /* separating: nothing */
  float vt[3] = {vr[0] - n[0] * vn, vr[1] - n[1] * vn, vr[2] - n[2] * vn};
  float lt = sqrtf(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]);
  for (int a = 0; a < 3; a++) {
    vr[a] = lt <= -mu * vn ? 0.0f : vt[a] + mu * vn * vt[a] / lt;
    v[a] = vr[a] + vco[a];
  }
}

void fl_snow_cpu_collide(const fl_mpm_push *push, const fl_gpu_collider *colliders, float mu, const float x[3],
                         float v[3])
{
  float t = push->time, touch = (float)FL_SNOW_TOUCH * push->h; /* mpm.glsl fl_mpm_collide */
  bool tetra = (push->flags & FL_MPM_TETRA_NORMALS) != 0;
  for (uint32_t c = 0; c < push->collider_count; c++) {
    if (!(fl_collider_sdf_cpu(&colliders[c], x, t) <= touch)) continue;
    float n[3], vco[3];
    fl_collider_normal_select_cpu(&colliders[c], x, t, tetra, n);
    fl_collider_velocity_cpu(&colliders[c], x, t, vco);
    collide_one(v, n, vco, mu);
  }
  static const float zero[3] = {0, 0, 0};
  for (int a = 0; a < 3; a++) {
    float n[3] = {0, 0, 0};
    if (x[a] <= push->domain_min[a] + touch) {
      n[a] = 1.0f;
      collide_one(v, n, zero, mu);
    }
    if (x[a] >= push->domain_max[a] - touch) {
      n[a] = -1.0f;
      collide_one(v, n, zero, mu);
    }
  }
}

void fl_snow_cpu_grid_update(const fl_mpm_push *push, const fl_snow_material *grid_material,
                             const fl_gpu_collider *colliders, const uint32_t *acc, float (*gridv)[4])
{
  bool fixed = (push->flags & FL_MPM_FIXED_POINT) != 0;
  float dt = push->dt, h = push->h;
  uint32_t nx = push->grid_dims[0], ny = push->grid_dims[1];
  for (uint32_t n = 0; n < fl_snow_cpu_nodes(push); n++) {
    float w[8];
    for (int q = 0; q < 8; q++) {
      uint32_t u = acc[8u * n + (uint32_t)q];
      w[q] = fixed ? (float)fl_snow_bits_int(u) / (q == 3 ? push->mass_scale : push->momentum_scale) : fl_snow_bits_float(u);
    }
    float m = w[3];
    float *out = gridv[2u * n], *old = gridv[2u * n + 1];
    if (!(m > 0.0f)) { /* empty node: all zero */
      memset(out, 0, 4 * sizeof *out);
      memset(old, 0, 4 * sizeof *old);
      continue;
    }
    float vs[3], x[3];
    uint32_t idx[3] = {n % nx, (n / nx) % ny, n / (nx * ny)};
    for (int a = 0; a < 3; a++) {
      old[a] = w[a] / m;                                     /* v_n = P / m */
      /* v* = (P + Q) / m + dt g (Eq. 4); a light node gets no internal force (snow_spec.h) */
      vs[a] = (m < push->light_node_mass ? w[a] : w[a] + w[4 + a]) / m + dt * push->gravity[a];
      x[a] = push->grid_origin[a] + (float)idx[a] * h;
    }
    fl_snow_cpu_collide(push, colliders, grid_material->friction, x, vs);
    for (int a = 0; a < 3; a++) out[a] = vs[a];
    out[3] = m;
    old[3] = 0.0f;
  }
}

/* Folds float f into a stats word as a uint atomicMax / atomicMin on its bits. */
static void stat_max(uint32_t *word, float f)
{
  uint32_t b = fl_snow_float_bits(f);
  if (b > *word) *word = b;
}

static void stat_min(uint32_t *word, float f)
{
  uint32_t b = fl_snow_float_bits(f);
  if (b < *word) *word = b;
}

void fl_snow_cpu_g2p(const fl_mpm_push *push, const fl_snow_material *materials, const fl_gpu_collider *colliders,
                     const float (*gridv)[4], fl_snow_cpu_particles *p, uint32_t stats[FL_SNOW_STAT_WORDS])
{
  float dt = push->dt, inv_h = push->inv_h, d_inv = 4.0f * inv_h * inv_h;
  const float ln_hmax = logf((float)FL_SNOW_HARDENING_MAX);
  for (uint32_t pi = 0; pi < particle_count(push, p); pi++) {
    const fl_snow_material *mat = material_of(materials, p, pi);
    bool apic = is_apic(mat);
    float x[3] = {p->pos[pi][0], p->pos[pi][1], p->pos[pi][2]};
    float vp[3] = {p->vel[pi][0], p->vel[pi][1], p->vel[pi][2]};
    float vpic[3] = {0, 0, 0}, dflip[3] = {0, 0, 0}, G[3][3] = {{0}}, reached = 0.0f, kept[3] = {0, 0, 0};
    stencil s;
    if (make_stencil(push, x, apic, &s))
      for (int k = 0; k < s.width; k++)
        for (int j = 0; j < s.width; j++)
          for (int i = 0; i < s.width; i++) {
            long n = node_index(push, &s, i, j, k);
            if (n < 0) continue;
            float gw[3], dx[3];
            float w = node_weight(push, &s, x, i, j, k, gw, dx);
            const float *v1 = gridv[2 * n], *v0 = gridv[2 * n + 1];
            reached += w * v0[3]; /* a node a closed surface reaches (coupling/surface_weights marks it; g2p.glsl) */
            for (int a = 0; a < 3; a++) {
              vpic[a] += w * v1[a];
              dflip[a] += w * (v1[a] - v0[a]);
              kept[a] += (w - w * v0[3]) * v0[a];
              for (int b = 0; b < 3; b++) G[a][b] += apic ? w * v1[a] * dx[b] : v1[a] * gw[b];
            }
          }
    /* velocities; grad v = sum v_i grad w^T (Stomakhin step 7) or C_p (APIC, Hu 2018) */
    float alpha = mat->flip, v[3];
    for (int a = 0; a < 3; a++) {
      if (apic)
        v[a] = vpic[a];
      else if (reached > 0.0f) /* PIC at the nodes a closed surface reaches (g2p.glsl) */
        v[a] = vpic[a] + alpha * ((1.0f - reached) * vp[a] - kept[a]);
      else
        v[a] = (1.0f - alpha) * vpic[a] + alpha * (vp[a] + dflip[a]);
      if (apic)
        for (int b = 0; b < 3; b++) G[a][b] *= d_inv;
    }
    if (apic)
      for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) p->affine[3 * pi + r][c] = G[r][c];
        p->affine[3 * pi + r][3] = 0.0f;
      }
    /* F~ = (I + dt grad v) F_E; SVD; clamp to [1 - theta_c, 1 + theta_s]; J_P */
    float F[3][3], Ft[3][3], A[3][3];
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) {
        F[r][c] = p->fe[3 * pi + r][c];
        A[r][c] = (r == c ? 1.0f : 0.0f) + dt * G[r][c];
      }
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) Ft[r][c] = A[r][0] * F[0][c] + A[r][1] * F[1][c] + A[r][2] * F[2][c];
    float U[3][3], S[3], V[3][3], Sh[3];
    fl_svd3_cpu((const float(*)[3])Ft, U, S, V);
    bool clamped = false;
    for (int a = 0; a < 3; a++) {
      Sh[a] = fminf(fmaxf(S[a], mat->stretch_min), mat->stretch_max);
      clamped = clamped || Sh[a] != S[a];
    }
    float jp = p->fe[3 * pi][3] * (fabsf(S[0] * S[1] * S[2]) / (Sh[0] * Sh[1] * Sh[2]));
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) /* F_E = U S^ V^T */
        F[r][c] = U[r][0] * Sh[0] * V[c][0] + U[r][1] * Sh[1] * V[c][1] + U[r][2] * Sh[2] * V[c][2];
    /* hardening (NOTES.md 4): K = V0 (dPsi/dF_E) F_E^T = V0 [2 mu U (S^ - I) S^ U^T + lambda (J_E - 1) J_E I] */
    float hk = expf(fminf(mat->xi * (1.0f - jp), ln_hmax));
    float mu = mat->mu0 * hk, lambda = mat->lambda0 * hk, je = Sh[0] * Sh[1] * Sh[2];
    float dk[3], iso = lambda * (je - 1.0f) * je, v0 = p->vel[pi][3], K[3][3];
    for (int a = 0; a < 3; a++) dk[a] = 2.0f * mu * (Sh[a] - 1.0f) * Sh[a];
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++)
        K[r][c] = v0 * (U[r][0] * dk[0] * U[c][0] + U[r][1] * dk[1] * U[c][1] + U[r][2] * dk[2] * U[c][2] +
                        (r == c ? iso : 0.0f));
    /* particle collisions at x_p, advection, domain clamp */
    fl_snow_cpu_collide(push, colliders, mat->friction, x, v);
    for (int a = 0; a < 3; a++) {
      x[a] += dt * v[a];
      x[a] = fminf(fmaxf(x[a], push->domain_min[a]), push->domain_max[a]);
    }
    /* write back */
    for (int a = 0; a < 3; a++) {
      p->pos[pi][a] = x[a];
      p->vel[pi][a] = v[a];
    }
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) p->fe[3 * pi + r][c] = F[r][c];
    p->fe[3 * pi][3] = jp;
    p->fe[3 * pi + 2][3] = clamped ? 1.0f : 0.0f;
    float *s0 = p->stress[2 * pi], *s1 = p->stress[2 * pi + 1];
    s0[0] = K[0][0], s0[1] = K[1][1], s0[2] = K[2][2], s0[3] = K[0][1];
    s1[0] = K[0][2], s1[1] = K[1][2], s1[2] = 0.0f, s1[3] = p->fe[3 * pi + 1][3]; /* the material, for P2G */
    /* stats: a particle with a non-finite x, v or J_P counts as non-finite, speed 0 and
     * no J_P; J_P (negative after an inverted F~, see the header of this file) as max(J_P, 0) */
    bool finite = isfinite(jp);
    for (int a = 0; a < 3; a++) finite = finite && isfinite(x[a]) && isfinite(v[a]);
    stat_max(&stats[FL_SNOW_STAT_MAX_SPEED], finite ? sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) : 0.0f);
    if (finite) {
      stat_min(&stats[FL_SNOW_STAT_JP_MIN], fmaxf(jp, 0.0f));
      stat_max(&stats[FL_SNOW_STAT_JP_MAX], fmaxf(jp, 0.0f));
    }
    if (clamped) stats[FL_SNOW_STAT_CLAMPED]++;
    if (!finite) stats[FL_SNOW_STAT_NONFINITE]++;
  }
}

void fl_snow_cpu_volumes(const fl_mpm_push *push, const fl_snow_material *materials, const float (*gridv)[4],
                         fl_snow_cpu_particles *p)
{
  float h = push->h, h3 = h * h * h;
  for (uint32_t pi = 0; pi < particle_count(push, p); pi++) {
    stencil s;
    float sum = 0.0f;
    if (make_stencil(push, p->pos[pi], is_apic(material_of(materials, p, pi)), &s))
      for (int k = 0; k < s.width; k++)
        for (int j = 0; j < s.width; j++)
          for (int i = 0; i < s.width; i++) {
            long n = node_index(push, &s, i, j, k);
            if (n < 0) continue;
            float gw[3], dx[3];
            sum += node_weight(push, &s, p->pos[pi], i, j, k, gw, dx) * gridv[2 * n][3];
          }
    float rho = sum / h3; /* rho_p = sum_i m_i w_ip / h^3 */
    p->vel[pi][3] = rho > 0.0f ? p->pos[pi][3] / rho : 0.0f;
  }
}

bool fl_snow_cpu_substep(const fl_mpm_push *push, const fl_snow_material *materials,
                         const fl_gpu_collider *colliders, fl_snow_cpu_particles *p,
                         uint32_t stats[FL_SNOW_STAT_WORDS])
{
  size_t nodes = fl_snow_cpu_nodes(push);
  uint32_t *acc = malloc((nodes * 8u + 1u) * sizeof *acc);
  float(*gridv)[4] = malloc((nodes * 2u + 1u) * sizeof *gridv);
  bool ok = acc && gridv;
  if (!ok) fl_error_set("snow CPU reference: out of memory for %zu grid nodes", nodes);
  stats[FL_SNOW_STAT_CLAMPED] = 0; /* step 0 */
  ok = ok && fl_snow_cpu_p2g(push, materials, p, acc);
  if (ok) {
    fl_snow_cpu_grid_update(push, &materials[0], colliders, acc, gridv);
    fl_snow_cpu_g2p(push, materials, colliders, (const float(*)[4])gridv, p, stats);
  }
  free(acc);
  free(gridv);
  return ok;
}
