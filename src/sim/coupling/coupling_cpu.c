/* sim/coupling/coupling_cpu: the CPU reference of a coupling substep (see coupling_cpu.h); it
 * follows shaders/coupling/{weights,surface_weights,surface_contact,contact,release,surface_release,apply}.comp.glsl
 * step by step, in the same float
 * arithmetic, with the same int32 fixed-point sums. */
#include "sim/coupling/coupling_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int base[3];
  float w[3][3];
} stencil;

/* The quadratic B-spline weights (Hu et al. 2018 eq. 3; shaders/mpm/mpm.glsl fl_mpm_quadratic). */
static void quadratic(float fx, int *base, float w[3])
{
  *base = (int)floorf(fx - 0.5f);
  for (int k = 0; k < 3; k++) {
    float ad = fabsf(fx - (float)(*base + k));
    w[k] = ad < 0.5f ? 0.75f - ad * ad : 0.5f * (1.5f - ad) * (1.5f - ad);
  }
}

/* shaders/mpm/mpm.glsl fl_mpm_fixed: round half to even, saturated. */
static int32_t fixed(float v, float scale)
{
  float x = rintf(v * scale);
  if (x < -2147483520.0f) x = -2147483520.0f;
  if (x > 2147483520.0f) x = 2147483520.0f;
  return (int32_t)x;
}

/* The boundary point (coupling.glsl fl_coupling_point) and whether its stencil lies in the lattice. */
static bool point(const fl_coupling_push *pc, const float x[4], const float v[4], float out[3])
{
  bool inside = true;
  for (int a = 0; a < 3; a++) {
    out[a] = x[a] - pc->lag * v[a];
    float f = (out[a] - pc->grid_origin[a]) * pc->inv_h;
    inside &= f >= 1.0f && f < (float)pc->grid_dims[a] - 2.0f;
  }
  return inside;
}

static void stencil_of(const fl_coupling_push *pc, const float x[3], stencil *s)
{
  for (int a = 0; a < 3; a++) quadratic((x[a] - pc->grid_origin[a]) * pc->inv_h, &s->base[a], s->w[a]);
}

static uint64_t node_of(const fl_coupling_push *pc, const stencil *s, int a, int b, int c)
{
  uint64_t x = (uint64_t)(s->base[0] + a), y = (uint64_t)(s->base[1] + b), z = (uint64_t)(s->base[2] + c);
  return (z * pc->grid_dims[1] + y) * pc->grid_dims[0] + x;
}

/* The snow's collision rule (shaders/mpm/mpm.glsl fl_mpm_collide_rule) with v_co = 0. */
static void collide_rule(float v[3], const float n[3], float mu)
{
  float vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
  if (vn >= 0.0f) return;
  float t[3], tl2 = 0;
  for (int a = 0; a < 3; a++) {
    t[a] = v[a] - n[a] * vn;
    tl2 += t[a] * t[a];
  }
  float tl = sqrtf(tl2);
  for (int a = 0; a < 3; a++) v[a] = tl <= -mu * vn ? 0.0f : t[a] + mu * vn * t[a] / tl;
}

/* The parcel of particle p at stencil point x (contact.comp): its node shares, mass M, momentum P and
 * the mass-weighted offset C of its nodes from x. */
typedef struct {
  uint64_t node[27];
  float share[27], M, P[3], C[3];
} parcel;

static void parcel_of(const fl_coupling_push *pc, const float x[3], float scale, int32_t (*acc)[4],
                      const float (*grid)[8], uint32_t kind, parcel *q)
{
  stencil s;
  stencil_of(pc, x, &s);
  memset(q, 0, sizeof *q);
  for (int c = 0; c < 3; c++)
    for (int b = 0; b < 3; b++)
      for (int a = 0; a < 3; a++) {
        int k = (c * 3 + b) * 3 + a;
        q->node[k] = node_of(pc, &s, a, b, c);
        int32_t wq = fixed(scale * (s.w[0][a] * s.w[1][b] * s.w[2][c]), pc->weight_scale);
        const float *g = grid[q->node[k]];
        if (wq > 0 && g[3] > 0.0f) {
          int32_t W = acc[q->node[k]][3], one = (int32_t)pc->weight_scale; /* fl_coupling_share */
          q->share[k] = (float)wq / (float)(kind == FL_COUPLING_VOLUME && W < one ? one : W) * g[3];
          q->M += q->share[k];
          int off[3] = {a, b, c};
          for (int d = 0; d < 3; d++) {
            q->P[d] += q->share[k] * g[d];
            q->C[d] += q->share[k] * (pc->grid_origin[d] + (float)(s.base[d] + off[d]) * pc->h - x[d]);
          }
        }
      }
}

/* Adds share_k dv to the accumulator words of the parcel's nodes. */
static void spread(const fl_coupling_push *pc, const parcel *q, const float dv[3], int32_t (*acc)[4])
{
  for (int k = 0; k < 27; k++)
    if (q->share[k] > 0.0f)
      for (int a = 0; a < 3; a++) acc[q->node[k]][a] += fixed(q->share[k] * dv[a], pc->momentum_scale);
}

/* Adds the stencil weights of point x to W_i (coupling/weights, surface_weights); a surface sample
 * also marks the nodes it reaches (`reached`, NULL for a particle; coupling.glsl FL_COUPLING_MARK). */
static void add_weights(const fl_coupling_push *pc, const float x[3], float scale, int32_t (*acc)[4], uint8_t *reached)
{
  stencil s;
  stencil_of(pc, x, &s);
  for (int c = 0; c < 3; c++)
    for (int b = 0; b < 3; b++)
      for (int a = 0; a < 3; a++) {
        uint64_t i = node_of(pc, &s, a, b, c);
        int32_t wq = fixed(scale * (s.w[0][a] * s.w[1][b] * s.w[2][c]), pc->weight_scale);
        acc[i][3] += wq;
        if (reached && wq > 0) reached[i] = 1;
      }
}

/* Sample k: its vertices, barycentric weights, kind and the velocity and boundary point
 * (surface_bindings.glsl fl_coupling_sample_of, _velocity, _point); false when outside the lattice. */
typedef struct {
  uint32_t v[3], tri;
  float b[3], vel[3], x[3], scale;
} sample;

static bool sample_of(const fl_coupling_push *pc, const fl_coupling_cpu_surface *sf, uint32_t k,
                      const float (*pos)[4], const float (*vel)[4], sample *q)
{
  const uint32_t *r = sf->samples[k];
  float b0, b1, xs[4] = {0, 0, 0, 0}, vs[4] = {0, 0, 0, 0};
  memcpy(&b0, &r[1], 4);
  memcpy(&b1, &r[2], 4);
  q->tri = r[0];
  memcpy(&q->scale, &r[3], 4);
  q->b[0] = b0;
  q->b[1] = b1;
  q->b[2] = 1.0f - b0 - b1;
  for (int j = 0; j < 3; j++) q->v[j] = sf->triangles[3 * r[0] + j];
  for (int a = 0; a < 3; a++) {
    for (int j = 0; j < 3; j++) {
      vs[a] += q->b[j] * vel[q->v[j]][a];
      xs[a] += q->b[j] * pos[q->v[j]][a];
    }
    q->vel[a] = vs[a];
  }
  return point(pc, xs, vs, q->x);
}

static float len3f(const float v[3]) { return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* The contact's normal at particle p, from it towards its parcel (coupling.glsl fl_coupling_normal):
 * zero when the parcel's centre is at the particle; a sheet's own normal turned to the parcel's side;
 * a soft body's -d / |d|. */
static void contact_normal(const fl_coupling_push *pc, uint32_t kind, const float *surface, const float d[3],
                           float n[3])
{
  float dl = len3f(d);
  n[0] = n[1] = n[2] = 0.0f;
  if (!(dl > 1e-3f * pc->h)) return;
  for (int a = 0; a < 3; a++) n[a] = -d[a] / dl;
  if (kind == FL_COUPLING_VOLUME || !surface) return;
  float side = surface[0] * n[0] + surface[1] * n[1] + surface[2] * n[2];
  if (side != 0.0f)
    for (int a = 0; a < 3; a++) n[a] = side > 0.0f ? surface[a] : -surface[a];
}

/* An immovable boundary's stop (fl_coupling_stop): the parcel's nodes gain J = (slip - u) M, nothing
 * when it is zero. Returns whether J is not zero. */
static bool stop(const fl_coupling_push *pc, const parcel *q, const float u[3], const float slip[3], float M,
                 int32_t (*acc)[4], float J[3])
{
  float dv[3];
  for (int a = 0; a < 3; a++) {
    J[a] = (slip[a] - u[a]) * M;
    dv[a] = J[a] / M;
  }
  if (J[0] == 0.0f && J[1] == 0.0f && J[2] == 0.0f) return false;
  spread(pc, q, dv, acc);
  return true;
}

/* Adds momentum dP to a particle's deferred words (fl_coupling_defer). */
static void defer(int32_t deferred[4], const float dP[3], float scale)
{
  for (int a = 0; a < 3; a++) deferred[a] += fixed(dP[a], scale);
}

bool fl_coupling_cpu_contact(const fl_coupling_push *pc, uint32_t particle_count, float (*pos)[4], float (*vel)[4],
                             const uint32_t *coupled, const float (*normals)[4], float (*impulse)[4],
                             int32_t (*deferred)[4], const float (*grid)[8], const fl_coupling_cpu_surface *surface,
                             fl_coupling_cpu *out)
{
  uint64_t nodes = (uint64_t)pc->grid_dims[0] * pc->grid_dims[1] * pc->grid_dims[2];
  out->acc = calloc(nodes, sizeof *out->acc);
  out->attach = calloc((size_t)particle_count * FL_COUPLING_ATTACH_VEC4S + 1, sizeof *out->attach);
  out->surface_acc = calloc((size_t)particle_count + 1, sizeof *out->surface_acc);
  out->sample_attach = calloc((size_t)(surface ? surface->count : 0) * FL_COUPLING_SAMPLE_VEC4S + 1,
                              sizeof *out->sample_attach);
  out->reached = calloc(nodes, 1);
  if (!out->acc || !out->attach || !out->surface_acc || !out->sample_attach || !out->reached) {
    fl_coupling_cpu_free(out);
    return false;
  }
  int32_t(*acc)[4] = out->acc;
  /* coupling/weights */
  for (uint32_t p = 0; p < particle_count; p++) {
    float x[3];
    if (coupled[p] && point(pc, pos[p], vel[p], x)) add_weights(pc, x, 1.0f, acc, NULL);
  }
  /* coupling/surface_weights */
  uint32_t samples = surface ? surface->count : 0;
  for (uint32_t k = 0; k < samples; k++) {
    sample q;
    if (sample_of(pc, surface, k, (const float(*)[4])pos, (const float(*)[4])vel, &q))
      add_weights(pc, q.x, q.scale, acc, out->reached);
  }
  /* coupling/surface_contact */
  for (uint32_t k = 0; k < samples; k++) {
    sample q;
    parcel pq;
    if (!sample_of(pc, surface, k, (const float(*)[4])pos, (const float(*)[4])vel, &q)) continue;
    parcel_of(pc, q.x, q.scale, acc, grid, coupled[q.v[0]], &pq);
    float M = pq.M;
    if (!(M > pc->min_mass)) continue;
    float u[3], d[3], n[3] = {0, 0, 0}, slip[3], carried[3];
    for (int a = 0; a < 3; a++) {
      u[a] = pq.P[a] / M - q.vel[a];
      d[a] = -pq.C[a] / M;
    }
    float dl = len3f(d);
    if (dl > 1e-3f * pc->h) { /* the face normal turned to the parcel's side (fl_coupling_turned) */
      const float *g = surface->face_normals[q.tri];
      float fl = len3f(g), f[3], side = 0;
      for (int a = 0; a < 3; a++) f[a] = fl > 0.0f ? g[a] / fl : 0.0f;
      for (int a = 0; a < 3; a++) side += f[a] * (-d[a] / dl);
      for (int a = 0; a < 3; a++) n[a] = side > 0.0f ? f[a] : side < 0.0f ? -f[a] : -d[a] / dl;
    }
    bool touching = n[0] != 0.0f || n[1] != 0.0f || n[2] != 0.0f;
    if (touching && u[0] * n[0] + u[1] * n[1] + u[2] * n[2] >= 0.0f) continue;
    for (int a = 0; a < 3; a++) slip[a] = touching ? u[a] : 0.0f;
    if (touching) collide_rule(slip, n, pc->friction);
    if (pc->hold) { /* an immovable boundary; the free vertices' shares of the reaction deferred */
      float J[3];
      if (!stop(pc, &pq, u, slip, M, acc, J)) continue;
      for (int a = 0; a < 3; a++) impulse[particle_count + k][a] -= J[a];
      impulse[particle_count + k][3] += len3f(J);
      for (int j = 0; j < 3; j++) {
        float dP[3];
        for (int a = 0; a < 3; a++) dP[a] = -q.b[j] * J[a];
        if (pos[q.v[j]][3] > 0.0f) defer(deferred[q.v[j]], dP, pc->momentum_scale);
      }
      continue;
    }
    for (int a = 0; a < 3; a++) carried[a] = pq.P[a] / M - pc->gravity_h[a] - slip[a];
    for (int j = 0; j < 3; j++) {
      uint32_t v = q.v[j];
      if (!(pos[v][3] > 0.0f)) continue;
      float mk = q.b[j] * M;
      out->surface_acc[v][0] += fixed(mk, pc->momentum_scale);
      for (int a = 0; a < 3; a++) out->surface_acc[v][1 + a] += fixed(mk * carried[a], pc->momentum_scale);
    }
    float *sa = out->sample_attach[FL_COUPLING_SAMPLE_VEC4S * k];
    for (int a = 0; a < 3; a++) {
      sa[a] = q.x[a];
      sa[4 + a] = slip[a] - pq.P[a] / M;
    }
    sa[3] = M;
  }
  /* coupling/contact */
  for (uint32_t p = 0; p < particle_count; p++) {
    float x[3];
    if (!coupled[p]) continue;
    bool inside = point(pc, pos[p], vel[p], x);
    const int32_t *sacc = out->surface_acc[p];
    float w = pos[p][3], Ms = (float)sacc[0] / pc->momentum_scale, Mo = 0.0f, Ps[3], Po[3] = {0, 0, 0},
          offset[3] = {0, 0, 0}, D[3] = {0, 0, 0};
    for (int a = 0; a < 3; a++) Ps[a] = (float)sacc[1 + a] / pc->momentum_scale;
    for (int a = 0; a < 3 && !pc->hold; a++) { /* a coupled contact takes the deferred momentum in */
      D[a] = (float)deferred[p][a] / pc->momentum_scale;
      deferred[p][a] = 0;
    }
    parcel q;
    if (inside) parcel_of(pc, x, 1.0f, acc, grid, coupled[p], &q);
    if (inside && q.M > pc->min_mass) {
      float M = q.M, u[3], d[3], n[3], slip[3], vs[3];
      for (int a = 0; a < 3; a++) {
        vs[a] = q.P[a] / M;
        u[a] = vs[a] - vel[p][a];
        d[a] = -q.C[a] / M;
      }
      contact_normal(pc, coupled[p], normals ? normals[p] : NULL, d, n);
      bool touching = n[0] != 0.0f || n[1] != 0.0f || n[2] != 0.0f;
      for (int a = 0; a < 3; a++) slip[a] = touching ? u[a] : 0.0f;
      if (touching) collide_rule(slip, n, pc->friction);
      if (w > 0.0f && !pc->hold) { /* carried through the XPBD substeps, the parcel keeping its slip */
        bool presses = !(touching && u[0] * n[0] + u[1] * n[1] + u[2] * n[2] >= 0.0f);
        if (presses || D[0] != 0.0f || D[1] != 0.0f || D[2] != 0.0f) { /* moving away: shares D, keeps u */
          if (!presses) memcpy(slip, u, sizeof slip);
          Mo = M;
          for (int a = 0; a < 3; a++) {
            Po[a] = M * (vs[a] - pc->gravity_h[a] - slip[a]);
            offset[a] = slip[a] - vs[a];
          }
        }
      } else {
        float J[3], dP[3]; /* a pinned particle, or any in a hold: an immovable boundary */
        if (stop(pc, &q, u, slip, M, acc, J)) {
          for (int a = 0; a < 3; a++) {
            impulse[p][a] -= J[a];
            dP[a] = -J[a];
          }
          impulse[p][3] += len3f(J);
          if (w > 0.0f) defer(deferred[p], dP, pc->momentum_scale);
        }
      }
    }
    /* a free particle carries its own parcel and its samples' shares as one pair */
    if (!(w > 0.0f)) continue;
    if (!(Mo > 0.0f || Ms > 0.0f)) {
      if (D[0] != 0.0f || D[1] != 0.0f || D[2] != 0.0f)
        for (int a = 0; a < 3; a++) vel[p][a] += w * D[a];
      continue;
    }
    float *a1 = out->attach[FL_COUPLING_ATTACH_VEC4S * p];
    for (int a = 0; a < 3; a++) {
      a1[a] = x[a];
      a1[4 + a] = 0.0f;
      a1[8 + a] = offset[a];
      vel[p][a] = (vel[p][a] + w * (Po[a] + Ps[a] + D[a])) / (1.0f + w * (Mo + Ms));
    }
    a1[3] = Mo;
    a1[7] = w;
    pos[p][3] = w / (1.0f + w * (Mo + Ms));
  }
  return true;
}

void fl_coupling_cpu_release(const fl_coupling_push *pc, uint32_t particle_count, float (*pos)[4], float (*vel)[4],
                             const uint32_t *coupled, float (*impulse)[4], float (*grid)[8],
                             const fl_coupling_cpu_surface *surface, fl_coupling_cpu *state)
{
  int32_t(*acc)[4] = state->acc;
  uint64_t nodes = (uint64_t)pc->grid_dims[0] * pc->grid_dims[1] * pc->grid_dims[2];
  /* coupling/release */
  for (uint32_t p = 0; p < particle_count; p++) {
    const float *a1 = state->attach[FL_COUPLING_ATTACH_VEC4S * p];
    if (!coupled[p] || !(a1[7] > 0.0f)) continue;
    float delta[3], J[3];
    for (int a = 0; a < 3; a++) {
      delta[a] = vel[p][a] + a1[8 + a];
      vel[p][a] += a1[4 + a];
      J[a] = a1[3] * delta[a];
    }
    pos[p][3] = a1[7];
    if (!(a1[3] > 0.0f)) continue; /* only its samples' shares: the surface release gives those back */
    parcel q;
    parcel_of(pc, a1, 1.0f, acc, (const float(*)[8])grid, coupled[p], &q);
    for (int a = 0; a < 3; a++) impulse[p][a] -= J[a];
    impulse[p][3] += len3f(J);
    spread(pc, &q, delta, acc);
  }
  /* coupling/surface_release */
  for (uint32_t k = 0; surface && k < surface->count; k++) {
    const float *sa = state->sample_attach[FL_COUPLING_SAMPLE_VEC4S * k];
    if (!(sa[3] > 0.0f)) continue;
    sample q;
    parcel pq;
    sample_of(pc, surface, k, (const float(*)[4])pos, (const float(*)[4])vel, &q);
    parcel_of(pc, sa, q.scale, acc, (const float(*)[8])grid, coupled[q.v[0]], &pq);
    float delta[3], J[3];
    for (int a = 0; a < 3; a++) {
      delta[a] = q.vel[a] + sa[4 + a];
      J[a] = sa[3] * delta[a];
      impulse[particle_count + k][a] -= J[a];
    }
    impulse[particle_count + k][3] += len3f(J);
    spread(pc, &pq, delta, acc);
  }
  /* coupling/apply */
  for (uint64_t i = 0; i < nodes; i++) {
    if (state->reached[i]) grid[i][7] = 1.0f; /* reached by a surface sample: PIC there in G2P */
    if (!acc[i][0] && !acc[i][1] && !acc[i][2]) continue;
    if (grid[i][3] > 0.0f)
      for (int a = 0; a < 3; a++) grid[i][a] += (float)acc[i][a] / pc->momentum_scale / grid[i][3];
  }
}

void fl_coupling_cpu_free(fl_coupling_cpu *state)
{
  free(state->acc);
  free(state->attach);
  free(state->surface_acc);
  free(state->sample_attach);
  free(state->reached);
  *state = (fl_coupling_cpu){0};
}
