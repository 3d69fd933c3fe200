// coupling/surface_contact.comp: pass 2a of a coupling substep (docs/COUPLING.md, "Surface
// samples"), before coupling/contact. One thread per surface sample s (a quadrature point of a
// closed body's surface triangle, barycentric weights b_k of its vertices k):
//   parcel:  as a particle's of its body (contact.comp: a soft body's volume share, a balloon's the
//            sheet's, fl_coupling_share with the vertices' coupled word), its weights scaled by the
//            sample's area / h^2, at the point x_s = sum b_k x_k moving at v_s' = sum b_k v_k;
//            u = v_parcel - v_s'.
//   normal:  the triangle's own unit face normal (coupling/normals' face normals) turned to the
//            parcel's side (-d / |d| for a degenerate triangle).
//   rule:    the snow's (Stomakhin et al. 2013 section 8): the slip u'.
//   carry:   if the parcel presses on the surface (u . n < 0, or the sample at its centre), every
//            free vertex k carries b_k of it through the XPBD substeps: it gains added mass b_k M
//            and momentum b_k M (v_parcel - g h - u') in the surface accumulator (int32 fixed point,
//            integer atomics), which coupling/contact adds to the vertex's pair. A pinned vertex's
//            part rides on the pin (its velocity after the substeps; the pin takes the reaction).
//            The sample keeps its stencil point, M and u' - v_parcel (sample_attach) for
//            coupling/surface_release.
//   hold substep (pc.hold, contact.comp): the sample is an immovable boundary moving at v_s';
//            node i gains its share of J = (u' - u) M, impulse[sample] records -J, and each free
//            vertex k defers -b_k J (a pinned one's part goes to the pin); nothing is carried.
// Jiang et al. 2017 (cloth in MPM) sample a cloth's triangles at quadrature points for the same
// reason: a mesh coarser than the grid lets material through between its vertices.
// CPU reference: src/sim/coupling/coupling_cpu.c.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "coupling_shared.h"
layout(push_constant) uniform Push { fl_coupling_push pc; };
#include "surface_bindings.glsl"

void main()
{
  uint t = fl_thread_index();
  if (t >= pc.sample_count) return;
  uint o = FL_COUPLING_SAMPLE_VEC4S * t;
  sample_attach[o] = vec4(0.0);
  sample_attach[o + 1u] = vec4(0.0);
  fl_coupling_sample q = fl_coupling_sample_of(t);
  vec3 vp = fl_coupling_sample_velocity(q), x = fl_coupling_sample_point(q, vp);
  if (!fl_coupling_inside(x)) return;
  fl_mpm_push m = fl_coupling_mpm_push();
  fl_mpm_stencil s = fl_mpm_stencil_of(x, m, true);
  fl_coupling_parcel pq = fl_coupling_parcel_of(s, m, x, q.scale, q.kind);
  float M = pq.M;
  if (!(M > pc.min_mass)) return;
  vec3 vs = pq.P / M, u = vs - vp, d = -pq.C / M;
  float dl = length(d);
  vec3 f = face_normal[q.tri].xyz;  // cross(b - a, c - a): its length is twice the triangle's area
  float fl = length(f);
  vec3 n = dl > 1e-3 * pc.h ? fl_coupling_turned(fl > 0.0 ? f / fl : vec3(0.0), -d / dl) : vec3(0.0);
  bool touching = n != vec3(0.0);
  if (touching && dot(u, n) >= 0.0) return;
  vec3 slip = touching ? fl_mpm_collide_rule(u, vec3(0.0), n, pc.friction) : vec3(0.0);
  if (pc.hold != 0u) {
    vec3 J = fl_coupling_stop(s, m, u, slip, M, q.scale, q.kind);
    if (J == vec3(0.0)) return;
    impulse[pc.particle_count + t] += vec4(-J, length(J));
    for (int k = 0; k < 3; k++)
      if (pos[q.v[k]].w > 0.0) fl_coupling_defer(q.v[k], -q.b[k] * J);
    return;
  }
  vec3 carried = vs - pc.gravity_h - slip;
  for (int k = 0; k < 3; k++) {
    uint v = q.v[k];
    if (!(pos[v].w > 0.0)) continue;
    float mk = q.b[k] * M;
    uint w = 4u * v;
    atomicAdd(surface_accum[w], fl_mpm_fixed(mk, pc.momentum_scale));
    atomicAdd(surface_accum[w + 1u], fl_mpm_fixed(mk * carried.x, pc.momentum_scale));
    atomicAdd(surface_accum[w + 2u], fl_mpm_fixed(mk * carried.y, pc.momentum_scale));
    atomicAdd(surface_accum[w + 3u], fl_mpm_fixed(mk * carried.z, pc.momentum_scale));
  }
  sample_attach[o] = vec4(x, M);
  sample_attach[o + 1u] = vec4(slip - vs, 0.0);
}
