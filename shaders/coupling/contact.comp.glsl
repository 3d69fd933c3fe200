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
//   surface samples: the parcels coupling/surface_contact gave p to carry (by the samples'
//            barycentric weights; surface_accum: added mass Ms, momentum Ps) join the pair: it
//            moves at (m_p v_p + M (v_s - g h - u') + Ps) / (m_p + M + Ms), with inverse mass
//            1 / (m_p + M + Ms), also when p has no parcel of its own.
//   pinned particle (w_p = 0): an immovable boundary; the rule turns u into u',
//            node i gains s_ip m_i J / M with J = (u' - u) M (int32 fixed point,
//            atomics; apply.comp adds them), impulse[p] records -J and |J|.
//   hold substep (pc.hold, sim.coupling_substeps "xpbd": a snow substep of a run before its
//            coupled last one; the XPBD state is the run's start, met at x_p - lag v_p, lag <= 0):
//            every particle is such an immovable boundary moving at v_p, and a free one's
//            reaction -J goes to its deferred words (coupling_shared.h); nothing is carried.
//   deferred momentum D (a coupled substep): what the run's hold substeps gave p joins the pair
//            (v_c's numerator gains D; a parcel moving away is carried too then, keeping its
//            relative velocity, u' = u), or p alone (v_p += w_p D) when it has no parcel.
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
  uint o = FL_COUPLING_ATTACH_VEC4S * p;
  attach[o] = vec4(0.0);
  attach[o + 1u] = vec4(0.0);
  vec4 xp = pos[p];
  vec3 vp = vel[p].xyz, D = pc.hold == 0u ? fl_coupling_take_deferred(p) : vec3(0.0);
  vec3 x = fl_coupling_point(xp, vp);
  // what the surface samples on p's triangles gave it to carry (coupling/surface_contact)
  float Ms = float(surface_accum[4u * p]) / pc.momentum_scale;
  vec3 Ps = vec3(surface_accum[4u * p + 1u], surface_accum[4u * p + 2u], surface_accum[4u * p + 3u]) /
            pc.momentum_scale;
  float Mo = 0.0;              // its own parcel's mass, when it carries it
  vec3 Po = vec3(0.0), offset = vec3(0.0);
  if (fl_coupling_inside(x)) {
    fl_mpm_push m = fl_coupling_mpm_push();
    fl_mpm_stencil s = fl_mpm_stencil_of(x, m, true);
    fl_coupling_parcel q = fl_coupling_parcel_of(s, m, x, 1.0, coupled[p]);
    float M = q.M;
    if (M > pc.min_mass) {
      vec3 vs = q.P / M, u = vs - vp, d = -q.C / M;  // d = x_p - c
      vec3 n = fl_coupling_normal(p, d, length(d));
      bool touching = n != vec3(0.0);
      vec3 slip = touching ? fl_mpm_collide_rule(u, vec3(0.0), n, pc.friction) : vec3(0.0);
      if (xp.w > 0.0 && pc.hold == 0u) {
        // a parcel that presses on p is carried; one moving away is too when p has deferred
        // reactions, which the pair then shares (the parcel keeps its whole relative velocity)
        bool presses = !(touching && dot(u, n) >= 0.0);
        if (presses || D != vec3(0.0)) {
          if (!presses) slip = u;
          Mo = M;
          Po = M * (vs - pc.gravity_h - slip);
          offset = slip - vs;
        }
      } else {
        vec3 J = fl_coupling_stop(s, m, u, slip, M, 1.0, coupled[p]);
        if (J != vec3(0.0)) {
          impulse[p] += vec4(-J, length(J));
          if (xp.w > 0.0) fl_coupling_defer(p, -J);
        }
      }
    }
  }
  // a free particle carries its own parcel and its samples' shares as one pair
  if (!(xp.w > 0.0)) return;
  if (!(Mo > 0.0 || Ms > 0.0)) {
    if (D != vec3(0.0)) vel[p] = vec4(vp + xp.w * D, vel[p].w);
    return;
  }
  attach[o] = vec4(x, Mo);
  attach[o + 1u] = vec4(0.0, 0.0, 0.0, xp.w);
  attach[o + 2u] = vec4(offset, 0.0);
  vel[p] = vec4((vp + xp.w * (Po + Ps + D)) / (1.0 + xp.w * (Mo + Ms)), vel[p].w);
  pos[p].w = xp.w / (1.0 + xp.w * (Mo + Ms));
}
