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

// Tetrahedron constraint (sim/xpbd/softbody_spec.h) on x[0..3]: the
// volume model, or one of the two Neo-Hookean constraints of Macklin & Müller
// 2021. Returns false when it is skipped (deviatoric C near 0).
bool fl_tet_eval(fl_gpu_tet t, vec3 x[4], out float C, out vec3 g[4])
{
  vec3 d1 = x[1] - x[0], d2 = x[2] - x[0], d3 = x[3] - x[0];
  uint model = t.model;
  if (model == FL_TET_VOLUME) {
    C = dot(cross(d1, d2), d3) / 6.0 - t.rest;
    g[1] = cross(d2, d3) / 6.0;
    g[2] = cross(d3, d1) / 6.0;
    g[3] = cross(d1, d2) / 6.0;
  } else {
    // F = Ds Dm^-1; Dm^-1 is stored by rows, and mat3() takes columns.
    mat3 dm_inv = transpose(mat3(t.dm_inv[0].xyz, t.dm_inv[1].xyz, t.dm_inv[2].xyz));
    mat3 F = mat3(d1, d2, d3) * dm_inv;
    mat3 dC;
    if (model == FL_TET_NH_HYDROSTATIC) {
      C = determinant(F) - t.gamma;
      dC = mat3(cross(F[1], F[2]), cross(F[2], F[0]), cross(F[0], F[1]));
    } else {
      float r2 = dot(F[0], F[0]) + dot(F[1], F[1]) + dot(F[2], F[2]);
      C = sqrt(r2);
      if (C < 1e-9) {
        g[0] = vec3(0.0); g[1] = vec3(0.0); g[2] = vec3(0.0); g[3] = vec3(0.0);
        return false;
      }
      dC = F * (1.0 / C);
    }
    mat3 G = dC * transpose(dm_inv);
    g[1] = G[0];
    g[2] = G[1];
    g[3] = G[2];
  }
  g[0] = -(g[1] + g[2] + g[3]);
  return true;
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
