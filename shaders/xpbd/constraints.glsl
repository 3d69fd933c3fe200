// xpbd/constraints.glsl: C and its gradients for the XPBD cloth constraints
// (src/sim/xpbd/xpbd_spec.h), shared by the Gauss-Seidel and Jacobi kernels.
#ifndef FL_XPBD_CONSTRAINTS_GLSL
#define FL_XPBD_CONSTRAINTS_GLSL
#include "flurry_shared.h"

// Distance constraint: C = |xi - xj| - rest; grad_i = n, grad_j = -n.
// Returns false when the two particles coincide (no direction).
bool fl_distance_eval(vec3 xi, vec3 xj, float rest, out float C, out vec3 n)
{
  vec3 d = xi - xj;
  float len = length(d);
  C = len - rest;
  n = len > 1e-12 ? d / len : vec3(0.0);
  return len > 1e-12;
}

// Bending constraint on a stencil x[0..3] (edge x0-x1, opposite x2, x3).
// Returns false when it is skipped (degenerate triangles, a dihedral at 0 or pi, or a curved-rest
// isometric stencil pressed flat).
bool fl_bend_eval(fl_gpu_bend b, vec3 x[4], out float C, out vec3 g[4])
{
  g[0] = vec3(0.0); g[1] = vec3(0.0); g[2] = vec3(0.0); g[3] = vec3(0.0);
  C = 0.0;
  if (b.model == FL_BEND_ISOMETRIC) {
    vec3 s = b.k.x * x[0] + b.k.y * x[1] + b.k.z * x[2] + b.k.w * x[3];
    float c = b.rest;
    if (b.rest_s == 0.0) {  // flat rest: C = c/2 |s|^2 (Bergou 2006)
      C = 0.5 * c * dot(s, s);
      g[0] = c * b.k.x * s; g[1] = c * b.k.y * s; g[2] = c * b.k.z * s; g[3] = c * b.k.w * s;
      return true;
    }
    // curved rest: C = c/2 (|s| - |s0|)^2, grad_k C = c (|s| - |s0|) / |s| K_k s
    float l = length(s);
    if (l < 1e-4 * b.rest_s) return false;  // pressed flat: s has no direction
    float dl = l - b.rest_s;
    C = 0.5 * c * dl * dl;
    float f = c * dl / l;
    g[0] = f * b.k.x * s; g[1] = f * b.k.y * s; g[2] = f * b.k.z * s; g[3] = f * b.k.w * s;
    return true;
  }
  // Dihedral (Müller 2007): p_k = x_k - x0.
  vec3 p1 = x[1] - x[0], p2 = x[2] - x[0], p3 = x[3] - x[0];
  vec3 c12 = cross(p1, p2), c13 = cross(p1, p3);
  float l12 = length(c12), l13 = length(c13);
  if (l12 < 1e-12 || l13 < 1e-12) return false;
  vec3 n1 = c12 / l12, n2 = c13 / l13;
  float d = clamp(dot(n1, n2), -1.0, 1.0);
  float sn = length(cross(n1, n2));  // sin of the angle: exact near flat, where 1 - d^2 is not
  C = atan(sn, d) - b.rest;  // GLSL atan(y, x) = atan2
  if (sn < 1e-4) return false;
  vec3 q2 = (cross(p1, n2) + cross(n1, p1) * d) / l12;
  vec3 q3 = (cross(p1, n1) + cross(n2, p1) * d) / l13;
  vec3 q1 = -(cross(p2, n2) + cross(n1, p2) * d) / l12 - (cross(p3, n1) + cross(n2, p3) * d) / l13;
  vec3 q0 = -q1 - q2 - q3;
  float k = 1.0 / sn;  // the q above are minus the gradient of d (see xpbd_spec.h)
  g[0] = k * q0; g[1] = k * q1; g[2] = k * q2; g[3] = k * q3;
  return true;
}

// Tetrahedron volume constraint (sim/xpbd/softbody_spec.h, FL_TET_VOLUME) on x[0..3]:
// C = V - V0. Always evaluated (returns true).
bool fl_tet_eval(fl_gpu_tet t, vec3 x[4], out float C, out vec3 g[4])
{
  vec3 d1 = x[1] - x[0], d2 = x[2] - x[0], d3 = x[3] - x[0];
  C = dot(cross(d1, d2), d3) / 6.0 - t.rest;
  g[1] = cross(d2, d3) / 6.0;
  g[2] = cross(d3, d1) / 6.0;
  g[3] = cross(d1, d2) / 6.0;
  g[0] = -(g[1] + g[2] + g[3]);
  return true;
}

// The particle gradients of a function of F = Ds Dm^-1 with dC/dF = dC:
// g_{1,2,3} = the columns of dC Dm^-T, g_0 = -(sum).
void fl_tet_f_gradients(mat3 dC, mat3 dm_inv, out vec3 g[4])
{
  mat3 G = dC * transpose(dm_inv);
  g[1] = G[0];
  g[2] = G[1];
  g[3] = G[2];
  g[0] = -(g[1] + g[2] + g[3]);
}

// Both Neo-Hookean constraints of tet t (FL_TET_NEOHOOKEAN, Macklin & Müller 2021) from one F:
// C.x = C_D = sqrt(tr F^T F) with gradients gd, C.y = C_H = det F - gamma with gradients gh.
// Returns false, with gd = 0, where the deviatoric one is skipped (C_D < 1e-9).
bool fl_tet_nh_eval(fl_gpu_tet t, vec3 x[4], out vec2 C, out vec3 gd[4], out vec3 gh[4])
{
  // F = Ds Dm^-1; Dm^-1 is stored by rows, and mat3() takes columns.
  mat3 dm_inv = transpose(mat3(t.dm_inv[0].xyz, t.dm_inv[1].xyz, t.dm_inv[2].xyz));
  mat3 F = mat3(x[1] - x[0], x[2] - x[0], x[3] - x[0]) * dm_inv;
  mat3 dH = mat3(cross(F[1], F[2]), cross(F[2], F[0]), cross(F[0], F[1]));
  C.y = dot(F[0], dH[0]) - t.gamma;
  fl_tet_f_gradients(dH, dm_inv, gh);
  C.x = sqrt(dot(F[0], F[0]) + dot(F[1], F[1]) + dot(F[2], F[2]));
  bool dev = C.x >= 1e-9;
  fl_tet_f_gradients(dev ? F * (1.0 / C.x) : mat3(0.0), dm_inv, gd);
  return dev;
}

// The coupled XPBD step of a Neo-Hookean tet's two constraints (softbody_spec.h, Macklin &
// Müller 2021 solve them as one 2x2 system): dl = (dlambda_D, dlambda_H) from
//   [s_dd + a_D, s_dh; s_dh, s_hh + a_H] dl = -(C + a lambda),  s_xy = sum_k w_k gx_k . gy_k,
// a = compliance / h^2 (x: deviatoric, y: hydrostatic), w the (split) inverse masses. At the
// rest shape the right-hand side makes w_k (gd_k dl.x + gh_k dl.y) = 0: the two corrections
// cancel, as the two forces do (mu F + lambda (J - gamma) cof F = 0 at F = I).
vec2 fl_tet_nh_dlambda(vec2 C, bool dev, vec3 gd[4], vec3 gh[4], vec4 w, vec2 compliance, float h, vec2 lambda)
{
  vec2 alpha = compliance / (h * h);
  float sdd = 0.0, sdh = 0.0, shh = 0.0;
  for (int k = 0; k < 4; k++) {
    sdd += w[k] * dot(gd[k], gd[k]);
    sdh += w[k] * dot(gd[k], gh[k]);
    shh += w[k] * dot(gh[k], gh[k]);
  }
  vec2 b = -C - alpha * lambda;
  float a11 = sdd + alpha.x, a22 = shh + alpha.y;
  // det = (s_dd s_hh - s_dh^2) + a_D s_hh + a_H s_dd + a_D a_H: every term >= 0 (Cauchy-Schwarz
  // for the first, clamped against rounding), so the large products do not cancel.
  float det = max(sdd * shh - sdh * sdh, 0.0) + alpha.x * shh + alpha.y * sdd + alpha.x * alpha.y;
  if (dev && det > 1e-6 * (a11 * a22)) return vec2((b.x * a22 - sdh * b.y) / det, (a11 * b.y - sdh * b.x) / det);
  // Deviatoric skipped, or A near singular (both compliances ~0 and parallel gradients): the
  // hydrostatic constraint alone, a one-constraint XPBD step, which cannot overshoot.
  return vec2(0.0, a22 < 1e-12 ? 0.0 : b.y / a22);
}

// Triangle area (survey "Triangle area conservation"): c = (x1 - x0) x (x2 - x0),
// n = c / |c|, C = |c| / 2 - A0; grad_1 = (x2 - x0) x n / 2, grad_2 = n x (x1 - x0) / 2,
// grad_0 = -(grad_1 + grad_2), grad_3 = 0 (x[3] is not read). False for a degenerate triangle.
bool fl_area_eval(fl_gpu_area a, vec3 x[4], out float C, out vec3 g[4])
{
  vec3 e1 = x[1] - x[0], e2 = x[2] - x[0], c = cross(e1, e2);
  float len = length(c);
  g[3] = vec3(0.0);
  if (len < 1e-12) {
    C = -a.rest;
    g[0] = vec3(0.0); g[1] = vec3(0.0); g[2] = vec3(0.0);
    return false;
  }
  vec3 n = c / len;
  C = 0.5 * len - a.rest;
  g[1] = 0.5 * cross(e2, n);
  g[2] = 0.5 * cross(n, e1);
  g[0] = -(g[1] + g[2]);
  return true;
}

// The XPBD multiplier increment (Macklin 2016): 0 when the update is skipped.
float fl_xpbd_dlambda(float C, float sum_w_grad2, float compliance, float h, float lambda)
{
  float alpha = compliance / (h * h);
  float denom = sum_w_grad2 + alpha;
  return denom < 1e-12 ? 0.0 : (-C - alpha * lambda) / denom;
}
#endif
