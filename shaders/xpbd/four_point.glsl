// xpbd/four_point.glsl: the three kernels of a family of four-particle
// constraints (bend, tet), or three-particle ones (area), written once. The
// including kernel defines
//   FL_FOUR_RECORD   the record type (idx: the four particles, params.y: compliance)
//   FL_FOUR_ARITY    3 when idx.w is unused (area; g[3] = 0 from eval), else 4 (default)
//   FL_FOUR_EVAL     bool eval(record, vec3 x[4], out float C, out vec3 g[4])
//   FL_FOUR_KERNEL   FL_FOUR_GS, FL_FOUR_LAMBDA or FL_FOUR_GATHER
//   FL_FOUR_TET      (tets only) every record c has two multipliers, lambda[2c] and
//                    lambda[2c + 1] (dlambda the same); a Neo-Hookean record solves its
//                    two constraints together (constraints.glsl, fl_tet_nh_*)
// and includes this file after buffers.glsl and its eval function:
//   GS:     Gauss-Seidel: one colour a dispatch, or every colour in one
//           workgroup with FL_GS_SWEEP (xpbd/gs_sweep.glsl);
//   LAMBDA: Jacobi constraint pass: dlambda from the same positions with mass
//           splitting (each w times the particle's CSR degree), times omega;
//           lambda += dlambda (xpbd_spec.h, SOLVERS);
//   GATHER: Jacobi particle pass: delta_k = sum w_k grad_k C dlambda, w = 1 when
//           any was nonzero (add_delta.comp with omega 1 adds it).
#define FL_FOUR_GS 0
#define FL_FOUR_LAMBDA 1
#define FL_FOUR_GATHER 2
#ifndef FL_FOUR_ARITY
#define FL_FOUR_ARITY 4
#endif
#ifdef FL_FOUR_TET
#define FL_FOUR_SLOT(c) (2u * (c)) // where record c's (first) multiplier is
#else
#define FL_FOUR_SLOT(c) (c)
#endif
#if FL_FOUR_ARITY == 4
#define FL_FOUR_W(r, e) (e) // the fourth particle's index
#else
#define FL_FOUR_W(r, e) (r).idx.x // three particles: idx.w is never read; x[3] is a copy eval ignores
#endif

layout(std430, binding = FL_XPBD_B_CONSTRAINTS) readonly buffer Constraints { FL_FOUR_RECORD cons[]; };
#if FL_FOUR_KERNEL == FL_FOUR_GS
#include "gs_sweep.glsl"
layout(std430, binding = FL_XPBD_B_POS) FL_GS_COHERENT buffer Pos { vec4 pos[]; };
#else
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
#endif
#if FL_FOUR_KERNEL != FL_FOUR_GATHER
layout(std430, binding = FL_XPBD_B_LAMBDA) buffer Lambda { float lambda[]; };
#endif
#if FL_FOUR_KERNEL == FL_FOUR_LAMBDA
layout(std430, binding = FL_XPBD_B_DLAMBDA) writeonly buffer DLambda { float dlambda[]; };
layout(std430, binding = FL_XPBD_B_FIRST) readonly buffer First { uint first[]; };
float fl_degree(uint k) { return float(max(first[k + 1u] - first[k], 1u)); }
#endif
#if FL_FOUR_KERNEL == FL_FOUR_GATHER
layout(std430, binding = FL_XPBD_B_DLAMBDA) readonly buffer DLambda { float dlambda[]; };
layout(std430, binding = FL_XPBD_B_FIRST) readonly buffer First { uint first[]; };
layout(std430, binding = FL_XPBD_B_ITEMS) readonly buffer Items { uint items[]; };
layout(std430, binding = FL_XPBD_B_DELTA) writeonly buffer Delta { vec4 delta[]; };
#endif

// dlambda of constraint c from the current positions (0 when it is skipped);
// p: the four particles, g: the gradients; split: what multiplies each w in the
// denominator (1 for Gauss-Seidel, the CSR degree for Jacobi).
float fl_four_dlambda(uint c, FL_FOUR_RECORD r, vec4 split, out vec4 p[4], out vec3 g[4], float lambda_c)
{
  p = vec4[](pos[r.idx.x], pos[r.idx.y], pos[r.idx.z], pos[FL_FOUR_W(r, r.idx.w)]);
  vec3 x[4] = vec3[](p[0].xyz, p[1].xyz, p[2].xyz, p[3].xyz);
  float C;
  if (!FL_FOUR_EVAL(r, x, C, g)) return 0.0;
  float sum = (p[0].w * split.x) * dot(g[0], g[0]) + (p[1].w * split.y) * dot(g[1], g[1]) +
              (p[2].w * split.z) * dot(g[2], g[2]);
#if FL_FOUR_ARITY == 4
  sum += (p[3].w * split.w) * dot(g[3], g[3]);
#endif
  return fl_xpbd_dlambda(C, sum, r.compliance, pc.solve_h, lambda_c);
}

#ifdef FL_FOUR_TET
#if FL_FOUR_KERNEL != FL_FOUR_GATHER
// A Neo-Hookean tet's coupled dlambda (deviatoric, hydrostatic) from the current positions;
// p, gd, gh: the particles and both constraints' gradients; split as in fl_four_dlambda.
vec2 fl_four_nh_dlambda(uint c, fl_gpu_tet r, vec4 split, out vec4 p[4], out vec3 gd[4], out vec3 gh[4])
{
  p = vec4[](pos[r.idx.x], pos[r.idx.y], pos[r.idx.z], pos[r.idx.w]);
  vec3 x[4] = vec3[](p[0].xyz, p[1].xyz, p[2].xyz, p[3].xyz);
  vec2 C;
  bool dev = fl_tet_nh_eval(r, x, C, gd, gh);
  vec4 w = vec4(p[0].w * split.x, p[1].w * split.y, p[2].w * split.z, p[3].w * split.w);
  return fl_tet_nh_dlambda(C, dev, gd, gh, w, vec2(r.compliance, r.dm_inv[0].w), pc.solve_h,
                           vec2(lambda[2u * c], lambda[2u * c + 1u]));
}
#endif
#endif

#if FL_FOUR_KERNEL == FL_FOUR_GS
void fl_gs_solve(uint c)
{
  FL_FOUR_RECORD r = cons[c];
  vec4 p[4];
  vec3 g[4];
#ifdef FL_FOUR_TET
  if (r.model == FL_TET_NEOHOOKEAN) {
    vec3 gh[4];
    vec2 dl = fl_four_nh_dlambda(c, r, vec4(1.0), p, g, gh);
    if (dl == vec2(0.0)) return;
    lambda[2u * c] += dl.x;
    lambda[2u * c + 1u] += dl.y;
    pos[r.idx.x].xyz = p[0].xyz + (g[0] * dl.x + gh[0] * dl.y) * p[0].w;
    pos[r.idx.y].xyz = p[1].xyz + (g[1] * dl.x + gh[1] * dl.y) * p[1].w;
    pos[r.idx.z].xyz = p[2].xyz + (g[2] * dl.x + gh[2] * dl.y) * p[2].w;
    pos[r.idx.w].xyz = p[3].xyz + (g[3] * dl.x + gh[3] * dl.y) * p[3].w;
    return;
  }
#endif
  float dl = fl_four_dlambda(c, r, vec4(1.0), p, g, lambda[FL_FOUR_SLOT(c)]);
  if (dl == 0.0) return;
  lambda[FL_FOUR_SLOT(c)] += dl;
  pos[r.idx.x].xyz = p[0].xyz + g[0] * (p[0].w * dl);
  pos[r.idx.y].xyz = p[1].xyz + g[1] * (p[1].w * dl);
  pos[r.idx.z].xyz = p[2].xyz + g[2] * (p[2].w * dl);
#if FL_FOUR_ARITY == 4
  pos[r.idx.w].xyz = p[3].xyz + g[3] * (p[3].w * dl);
#endif
}
#else
void main()
{
#if FL_FOUR_KERNEL == FL_FOUR_LAMBDA
  uint c = fl_thread_index();
  if (c >= pc.count) return;
  vec4 p[4];
  vec3 g[4];
  FL_FOUR_RECORD r = cons[c];
  vec4 split = vec4(fl_degree(r.idx.x), fl_degree(r.idx.y), fl_degree(r.idx.z), 1.0);
#if FL_FOUR_ARITY == 4
  split.w = fl_degree(r.idx.w);
#endif
#ifdef FL_FOUR_TET
  if (r.model == FL_TET_NEOHOOKEAN) {
    vec3 gh[4];
    vec2 dl = pc.omega * fl_four_nh_dlambda(c, r, split, p, g, gh);
    lambda[2u * c] += dl.x;
    lambda[2u * c + 1u] += dl.y;
    dlambda[2u * c] = dl.x;
    dlambda[2u * c + 1u] = dl.y;
    return;
  }
#endif
  float dl = pc.omega * fl_four_dlambda(c, r, split, p, g, lambda[FL_FOUR_SLOT(c)]);
  lambda[FL_FOUR_SLOT(c)] += dl;
  dlambda[FL_FOUR_SLOT(c)] = dl;
#else
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  float wk = pos[k].w;
  vec3 sum = vec3(0.0);
  float any = 0.0;
  for (uint e = first[k]; e < first[k + 1u]; e++) {
    uint c = items[e];
#ifdef FL_FOUR_TET
    if (cons[c].model == FL_TET_NEOHOOKEAN) {
      vec2 dl = vec2(dlambda[2u * c], dlambda[2u * c + 1u]);
      if (dl == vec2(0.0)) continue;
      fl_gpu_tet t = cons[c];
      vec3 x[4] = vec3[](pos[t.idx.x].xyz, pos[t.idx.y].xyz, pos[t.idx.z].xyz, pos[t.idx.w].xyz);
      vec2 C;
      vec3 gd[4], gh[4];
      fl_tet_nh_eval(t, x, C, gd, gh);
      uint s = t.idx.x == k ? 0u : t.idx.y == k ? 1u : t.idx.z == k ? 2u : 3u;
      sum += wk * (gd[s] * dl.x + gh[s] * dl.y);
      any = 1.0;
      continue;
    }
#endif
    float dl = dlambda[FL_FOUR_SLOT(c)];
    if (dl == 0.0) continue;
    FL_FOUR_RECORD r = cons[c];
    vec3 x[4] = vec3[](pos[r.idx.x].xyz, pos[r.idx.y].xyz, pos[r.idx.z].xyz, pos[FL_FOUR_W(r, r.idx.w)].xyz);
    float C;
    vec3 g[4];
    FL_FOUR_EVAL(r, x, C, g);
    vec3 gk = r.idx.x == k ? g[0] : r.idx.y == k ? g[1] : r.idx.z == k ? g[2] : g[3];
    sum += wk * gk * dl;
    any = 1.0;
  }
  delta[k] = vec4(sum, any);
#endif
}
#endif
