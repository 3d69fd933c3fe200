// coupling/contact.comp: pass 2 of a coupling substep (docs/COUPLING.md).
// One thread per coupled XPBD particle p, after the snow's grid update, at the
// start of the snow substep (the XPBD substeps covering it come next):
//   parcel:  s_ip = w_ip / W_i (each node's mass shared among the particles
//            reaching it by weight; a soft body's at most w_ip: fl_coupling_share), M = sum s_ip m_i,
//            v_s = sum s_ip m_i v_i / M, its centre c = sum s_ip m_i x_i / M,
//            d = x_p - c; u = v_s - v_p (with this substep's gravity, which the grid gave v_s).
//   normal:  n from p towards the parcel: a sheet's own normal at p (coupling/normals, this
//            substep's vertex normals) turned to the parcel's side; a soft body's -d/|d|
//            (fl_coupling_normal).
//   rule:    the snow's (Stomakhin et al. 2013 section 8, NOTES.md section 4) against n turns u
//            into the slip u': the approaching normal part removed, the tangential part stopped
//            when |u_t| <= mu |u_n|, else reduced by mu |u_n| (Coulomb).
//   free particle (w_p = 1/m_p > 0): if the parcel presses on it (u . n < 0, or x_p at c: no
//            slip), the particle carries the parcel through the XPBD substeps as one body of mass
//            m_p + M (the parcel's mass as added inertia, after Jiang et al. 2017; XPBD reads it
//            in pos.w), moving at v_c = (m_p v_p + M (v_s - g h - u')) / (m_p + M) (the XPBD
//            substeps give the pair its gravity); the parcel keeps the whole slip u' relative
//            to the pair (attach[p], for release.comp), so the cloth feels the friction of the
//            slip (mu times the normal load) and the snow slides when gravity beats it. No node
//            changes here.
//   pinned particle (w_p = 0): an immovable boundary; the rule turns u into u',
//            node i gains s_ip m_i J / M with J = (u' - u) M (int32 fixed point,
//            atomics; apply.comp adds them), impulse[p] records -J and |J|.
// The particle's own thread is the only writer of its velocity, w, impulse and attachment.
// CPU reference: src/sim/coupling/coupling_cpu.c.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "coupling_shared.h"
layout(push_constant) uniform Push { fl_coupling_push pc; };
#include "coupling_bindings.glsl"

void main()
{
  uint p = fl_thread_index();
  if (p >= pc.particle_count || coupled[p] == 0u) return;
  attach[FL_COUPLING_ATTACH_VEC4S * p] = vec4(0.0);
  vec4 xp = pos[p];
  vec3 vp = vel[p].xyz;
  vec3 x = fl_coupling_point(xp, vp);
  if (!fl_coupling_inside(x)) return;
  fl_mpm_push m = fl_coupling_mpm_push();
  fl_mpm_stencil s = fl_mpm_stencil_of(x, m, true);
  float M = 0.0;
  vec3 P = vec3(0.0), C = vec3(0.0);
  FL_MPM_FOR_STENCIL(3, {
    uint i = fl_mpm_node(s, a, b, c, m);
    int wq = fl_mpm_fixed(fl_mpm_weight(s, a, b, c), pc.weight_scale);
    vec4 g = i != FL_SNOW_NO_NODE ? gridv[2u * i] : vec4(0.0);
    if (wq > 0 && g.w > 0.0) {
      float sm = fl_coupling_share(wq, i, coupled[p]) * g.w;
      M += sm;
      P += sm * g.xyz;
      C += sm * (fl_mpm_node_position(s, a, b, c, m) - x);
    }
  })
  if (!(M > pc.min_mass)) return;
  vec3 u = P / M - vp, d = -C / M;  // d = x_p - c
  vec3 n = fl_coupling_normal(p, d, length(d));
  bool touching = n != vec3(0.0);
  vec3 slip = touching ? fl_mpm_collide_rule(u, vec3(0.0), n, pc.friction) : vec3(0.0);
  if (xp.w > 0.0) {
    if (touching && dot(u, n) >= 0.0) return;
    vec3 vs = P / M;
    vec3 vc = (vp + M * xp.w * (vs - pc.gravity_h - slip)) / (1.0 + M * xp.w);
    uint o = FL_COUPLING_ATTACH_VEC4S * p;
    attach[o] = vec4(x, M);
    attach[o + 1u] = vec4(0.0, 0.0, 0.0, xp.w);
    attach[o + 2u] = vec4(slip - vs, 0.0);
    vel[p] = vec4(vc, vel[p].w);
    pos[p].w = xp.w / (1.0 + M * xp.w);
    return;
  }
  vec3 du = slip - u;
  if (du == vec3(0.0)) return;
  vec3 J = du * M;
  fl_coupling_spread(s, m, J / M, coupled[p]);
  impulse[p] += vec4(-J, length(J));
}
