// xpbd/tri_contact.glsl: the narrow phase of triangle contacts (docs/CLOTH.md),
// mirrored line for line by src/sim/xpbd/tri_contact_cpu.c:
//   fl_closest_on_triangle   barycentric weights of the point of a triangle nearest p
//                            (Ericson 2005, Real-Time Collision Detection, 5.1.5)
//   fl_closest_on_segments   parameters (s, t) of the nearest points of two segments (Ericson 5.1.9)
//   fl_contact_solve         one XPBD inequality contact on four points with friction
//   fl_tri_pair              which pairs of objects meet through triangles
#ifndef FL_XPBD_TRI_CONTACT_GLSL
#define FL_XPBD_TRI_CONTACT_GLSL
#include "flurry_shared.h"

vec3 fl_closest_on_triangle(vec3 p, vec3 a, vec3 b, vec3 c)
{
  vec3 ab = b - a, ac = c - a, ap = p - a;
  float d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0.0 && d2 <= 0.0) return vec3(1.0, 0.0, 0.0);
  vec3 bp = p - b;
  float d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0.0 && d4 <= d3) return vec3(0.0, 1.0, 0.0);
  float vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    float v = d1 / (d1 - d3);
    return vec3(1.0 - v, v, 0.0);
  }
  vec3 cp = p - c;
  float d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0.0 && d5 <= d6) return vec3(0.0, 0.0, 1.0);
  float vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    float w = d2 / (d2 - d6);
    return vec3(1.0 - w, 0.0, w);
  }
  float va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
    float w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return vec3(0.0, 1.0 - w, w);
  }
  float sum = va + vb + vc;
  if (!(sum > 0.0)) return vec3(1.0, 0.0, 0.0);  // a degenerate triangle
  float v = vb / sum, w = vc / sum;
  return vec3(1.0 - v - w, v, w);
}

vec2 fl_closest_on_segments(vec3 p1, vec3 q1, vec3 p2, vec3 q2)
{
  vec3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  float a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
  if (a <= 1e-20 && e <= 1e-20) return vec2(0.0);
  if (a <= 1e-20) return vec2(0.0, clamp(f / e, 0.0, 1.0));
  float c = dot(d1, r);
  if (e <= 1e-20) return vec2(clamp(-c / a, 0.0, 1.0), 0.0);
  float b = dot(d1, d2), denom = a * e - b * b;
  float s = denom > 1e-6 * a * e ? clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
  float t = (b * s + f) / e;
  if (t < 0.0) {
    t = 0.0;
    s = clamp(-c / a, 0.0, 1.0);
  } else if (t > 1.0) {
    t = 1.0;
    s = clamp((b - c) / a, 0.0, 1.0);
  }
  return vec2(s, t);
}

// One contact between the combinations sum_k c[k] x[k] (the separation d: vertex
// minus its nearest triangle point, or edge point minus edge point) at distance
// `reach`. n is the separation's direction at the start of the substep (prev),
// which keeps each side on its side; else the current one; `outward` (a body
// triangle's unit face normal, zero for none) replaces an n that points against
// it: a vertex that ended a substep inside a closed body is pushed out, not
// kept in (docs/CLOTH.md "Cloth on bodies: the side of a closed surface"). C = n.d - reach >= 0
// is an XPBD inequality constraint with zero compliance: when C < 0,
// dlambda = -C / sum w_k c_k^2, dx_k = w_k c_k n dlambda (Macklin 2016, Eq. 17-18
// with alpha = 0); friction (Macklin 2014, Eq. 24) removes the tangential
// relative displacement D_t of the substep when |D_t| < mu_s depth, else scales it
// by min(mu_k depth / |D_t|, 1), spread by w_k c_k / sum w c^2. False: no contact.
bool fl_contact_solve(vec3 x[4], vec3 xp[4], float w[4], float c[4], float reach, float mu_s, float mu_k,
                      vec3 outward, out vec3 dx[4])
{
  dx[0] = vec3(0.0); dx[1] = vec3(0.0); dx[2] = vec3(0.0); dx[3] = vec3(0.0);
  vec3 d = c[0] * x[0] + c[1] * x[1] + c[2] * x[2] + c[3] * x[3];
  if (!(dot(d, d) < reach * reach)) return false;
  vec3 dp = c[0] * xp[0] + c[1] * xp[1] + c[2] * xp[2] + c[3] * xp[3];
  float lp = length(dp), l = length(d);
  vec3 n = lp > 1e-9 ? dp / lp : (l > 1e-12 ? d / l : vec3(0.0, 1.0, 0.0));
  if (dot(n, outward) < 0.0) n = outward;  // a closed surface's side wins over a start inside it
  float C = dot(n, d) - reach;
  float S = w[0] * c[0] * c[0] + w[1] * c[1] * c[1] + w[2] * c[2] * c[2] + w[3] * c[3] * c[3];
  if (!(C < 0.0) || S < 1e-12) return false;
  float dl = -C / S;
  vec3 D = c[0] * (x[0] - xp[0]) + c[1] * (x[1] - xp[1]) + c[2] * (x[2] - xp[2]) + c[3] * (x[3] - xp[3]);
  vec3 Dt = D - dot(D, n) * n;
  float lt = length(Dt), depth = -C;
  vec3 fr = lt > 0.0 ? -Dt * (lt < mu_s * depth ? 1.0 : min(mu_k * depth / lt, 1.0)) : vec3(0.0);
  vec3 move = n * dl + fr / S;
  for (int k = 0; k < 4; k++) dx[k] = (w[k] * c[k]) * move;
  return true;
}

// Objects meet through triangles when both have self_collision "triangles"
// (the same object too), or one has it and the other is a body; two bodies, or
// a body and a particle-mode cloth, meet through particles only.
bool fl_tri_pair(uint oi, uint oj, fl_gpu_xpbd_object a, fl_gpu_xpbd_object b)
{
  bool ta = a.self_collision == FL_SELF_TRIANGLES && a.body == 0u;
  bool tb = b.self_collision == FL_SELF_TRIANGLES && b.body == 0u;
  return (ta && tb) || (ta && b.body != 0u) || (a.body != 0u && tb);
}

// The fixed-point units of a correction (FL_TRI_FIXED per metre, rounded half up, clamped).
ivec3 fl_tri_fixed(vec3 dx)
{
  return ivec3(floor(clamp(dx * FL_TRI_FIXED, vec3(-2.0e9), vec3(2.0e9)) + 0.5));
}
#endif
