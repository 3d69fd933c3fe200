// coupling/coupling.glsl: what the snow <-> XPBD coupling kernels share
// (docs/COUPLING.md): the XPBD particle as a moving boundary at the snow
// substep's time, and its quadratic B-spline stencil on the snow's sparse
// grid (shaders/mpm/mpm.glsl, the MLS-MPM weights of Hu et al. 2018 eq. 3).
// A kernel declares `block_hash` (binding 3) and the push `pc` before including it.
#ifndef FL_COUPLING_GLSL
#define FL_COUPLING_GLSL
#include "coupling_shared.h"
#define FL_MPM_BLOCK_HASH
#include "../mpm/mpm.glsl"

// The fields of the snow's push that the stencil and the block hash read.
fl_mpm_push fl_coupling_mpm_push()
{
  fl_mpm_push m;
  m.grid_origin = pc.grid_origin;
  m.h = pc.h;
  m.inv_h = pc.inv_h;
  m.hash_mask = pc.hash_mask;
  m.block_grid_x = pc.block_grid_x;
  m.block_grid_y = pc.block_grid_y;
  return m;
}

// The boundary point of XPBD particle x (xyz, w = 1/m) moving at v, at the snow substep's start:
// the XPBD state is lag seconds ahead of it (lag <= 0: behind it, carried forward; docs/COUPLING.md).
vec3 fl_coupling_point(vec4 x, vec3 v) { return x.xyz - pc.lag * v; }

// Whether the quadratic stencil of point x lies inside the snow's lattice (else the particle
// is away from every snow node and makes no contact).
bool fl_coupling_inside(vec3 x)
{
  vec3 f = (x - pc.grid_origin) * pc.inv_h;
  return all(greaterThanEqual(f, vec3(1.0))) && all(lessThan(f, vec3(pc.grid_dims) - 2.0));
}

#if defined(FL_COUPLING_NODES) || defined(FL_COUPLING_WEIGHTS)  // kernels that declare accum (binding 4, int)
// Adds the quadratic B-spline weights w_ip of point x, times its scale (1 for a particle; a surface
// sample's area / h^2, coupling_shared.h), to W_i of the nodes it reaches (int32 fixed point,
// integer atomics; coupling/weights, coupling/surface_weights). Nodes whose block is not allocated
// hold no snow and are skipped; a point outside the lattice reaches none. A surface sample
// (FL_COUPLING_MARK: a soft body's or balloon's) also marks the nodes it reaches in the unused w of
// their second grid word, gridv[2i + 1].w = 1 (the grid update wrote 0): there the snow's G2P takes
// the grid's velocity, not FLIP's (mpm/g2p.glsl; docs/COUPLING.md, "PIC at closed surfaces").
#ifdef FL_COUPLING_MARK
void fl_coupling_mark(uint i) { atomicOr(grid_bits[8u * i + 7u], 0x3f800000u); }  // gridv[2i + 1].w = 1.0
#else
void fl_coupling_mark(uint i) {}
#endif

void fl_coupling_add_weights(vec3 x, float scale)
{
  if (!fl_coupling_inside(x)) return;
  fl_mpm_push m = fl_coupling_mpm_push();
  fl_mpm_stencil s = fl_mpm_stencil_of(x, m, true);
  FL_MPM_FOR_STENCIL(3, {
    uint i = fl_mpm_node(s, a, b, c, m);
    int wq = fl_mpm_fixed(scale * fl_mpm_weight(s, a, b, c), pc.weight_scale);
    if (i != FL_SNOW_NO_NODE) atomicAdd(accum[FL_COUPLING_NODE_WORDS * i + 3u], wq);
    if (i != FL_SNOW_NO_NODE && wq > 0) fl_coupling_mark(i);
  })
}
#endif

#ifdef FL_COUPLING_NODES  // kernels that also declare accum (binding 4, int) and gridv (binding 5)
// A particle's share s_ip of node i (wq: w_ip fixed point; W_i in accum; kind: its coupled word):
// the particles reaching a node share its mass by weight, w_ip / W_i; a VOLUME particle takes at
// most its own weight, w_ip / max(W_i, 1), so a soft body's particle whose stencil grazes a node
// 1.5 cells away does not carry all of it (docs/COUPLING.md, shares).
float fl_coupling_share(int wq, uint i, uint kind)
{
  int W = accum[FL_COUPLING_NODE_WORDS * i + 3u];
  return float(wq) / float(kind == FL_COUPLING_VOLUME ? max(W, int(pc.weight_scale)) : W);
}

// The parcel of a contact point x (stencil s, weights times `scale` as fl_coupling_add_weights) of
// share kind `kind`: M = sum_i s_ip m_i, its
// momentum P = sum_i s_ip m_i v_i and the mass-weighted offset C = sum_i s_ip m_i (x_i - x).
struct fl_coupling_parcel {
  float M;
  vec3 P;
  vec3 C;
};

fl_coupling_parcel fl_coupling_parcel_of(fl_mpm_stencil s, fl_mpm_push m, vec3 x, float scale, uint kind)
{
  fl_coupling_parcel q;
  q.M = 0.0;
  q.P = vec3(0.0);
  q.C = vec3(0.0);
  FL_MPM_FOR_STENCIL(3, {
    uint i = fl_mpm_node(s, a, b, c, m);
    int wq = fl_mpm_fixed(scale * fl_mpm_weight(s, a, b, c), pc.weight_scale);
    vec4 g = i != FL_SNOW_NO_NODE ? gridv[2u * i] : vec4(0.0);
    if (wq > 0 && g.w > 0.0) {
      float sm = fl_coupling_share(wq, i, kind) * g.w;
      q.M += sm;
      q.P += sm * g.xyz;
      q.C += sm * (fl_mpm_node_position(s, a, b, c, m) - x);
    }
  })
  return q;
}

// A sheet's normal ns turned to the parcel's side (nd = -d / |d|, from the point towards the parcel).
vec3 fl_coupling_turned(vec3 ns, vec3 nd)
{
  float side = dot(ns, nd);
  return side > 0.0 ? ns : side < 0.0 ? -ns : nd;
}

// The contact's normal at particle p, from p towards its parcel (d = x_p - c, dl = |d|; zero when
// the parcel's centre is at the particle: no direction, the pair sticks). A sheet's particle (cloth,
// balloon) takes its surface's own normal (the vertex normal of this substep), turned to the
// parcel's side: in a sag or at a slab's edge the parcel's centre is off the normal, and a slip
// tangential to d would cross the sheet (docs/COUPLING.md). A soft body's particle takes -d / dl.
#ifdef FL_COUPLING_PARTICLES  // contact.comp and release.comp (coupling_bindings.glsl: coupled, normal)
vec3 fl_coupling_normal(uint p, vec3 d, float dl)
{
  if (!(dl > 1e-3 * pc.h)) return vec3(0.0);
  vec3 nd = -d / dl;
  if (coupled[p] == FL_COUPLING_VOLUME) return nd;
  return fl_coupling_turned(normal[p].xyz, nd);
}
#endif

// Adds s_ip m_i dv to the impulse words of the parcel's nodes (stencil s; the shares of
// contact.comp, fl_coupling_share; scale as fl_coupling_add_weights), int32 fixed point with integer atomics.
void fl_coupling_spread(fl_mpm_stencil s, fl_mpm_push m, vec3 dv, float scale, uint kind)
{
  FL_MPM_FOR_STENCIL(3, {
    uint i = fl_mpm_node(s, a, b, c, m);
    int wq = fl_mpm_fixed(scale * fl_mpm_weight(s, a, b, c), pc.weight_scale);
    vec4 g = i != FL_SNOW_NO_NODE ? gridv[2u * i] : vec4(0.0);
    if (wq > 0 && g.w > 0.0) {
      vec3 dP = fl_coupling_share(wq, i, kind) * g.w * dv;
      uint o = FL_COUPLING_NODE_WORDS * i;
      atomicAdd(accum[o], fl_mpm_fixed(dP.x, pc.momentum_scale));
      atomicAdd(accum[o + 1u], fl_mpm_fixed(dP.y, pc.momentum_scale));
      atomicAdd(accum[o + 2u], fl_mpm_fixed(dP.z, pc.momentum_scale));
    }
  })
}

// An immovable boundary's stop (a pinned particle, or any particle or sample in a hold): the snow's
// rule turned the parcel's relative velocity u into `slip`; the parcel's nodes (stencil s, scale and
// kind as fl_coupling_spread) gain J = (slip - u) M, nothing when it is zero. Returns J.
vec3 fl_coupling_stop(fl_mpm_stencil s, fl_mpm_push m, vec3 u, vec3 slip, float M, float scale, uint kind)
{
  vec3 J = (slip - u) * M;
  if (J != vec3(0.0)) fl_coupling_spread(s, m, J / M, scale, kind);
  return J;
}
#endif

#ifdef FL_COUPLING_DEFERRED  // coupling_bindings.glsl and surface_bindings.glsl: the deferred words (int)
// Adds momentum dP to particle p's deferred words (a hold substep's reaction; int32 fixed point,
// integer atomics: the samples of several triangles add to one vertex).
void fl_coupling_defer(uint p, vec3 dP)
{
  uint o = FL_COUPLING_DEFERRED_WORDS * p;
  atomicAdd(deferred[o], fl_mpm_fixed(dP.x, pc.momentum_scale));
  atomicAdd(deferred[o + 1u], fl_mpm_fixed(dP.y, pc.momentum_scale));
  atomicAdd(deferred[o + 2u], fl_mpm_fixed(dP.z, pc.momentum_scale));
}

// Particle p's deferred momentum, its words zeroed: the coupled contact takes it in (p's own thread).
vec3 fl_coupling_take_deferred(uint p)
{
  uint o = FL_COUPLING_DEFERRED_WORDS * p;
  vec3 D = vec3(deferred[o], deferred[o + 1u], deferred[o + 2u]) / pc.momentum_scale;
  deferred[o] = 0;
  deferred[o + 1u] = 0;
  deferred[o + 2u] = 0;
  return D;
}
#endif
#endif
