// massspring/setup.comp: the implicit system A dv = b of JI, IM and HY
// (Baraff-Witkin backward Euler, Kang 2018 Eq. 6-9; ms_spec.h), per particle:
//   A_ii = m_i I + sum_s B_s,  B_s = h^2 K_s + h c_d P_s,
//   b_i = h f_i + h^2 sum_s K_s (v_j - v_i),
// HY (Eq. 32): b_i = (b_i + phi_i) / 2 with phi_i the HO impulse (with m_i g h).
// Then the first Jacobi iterate from dv = 0, dv = A_ii^-1 b_i; or, with the explicit start, the
// start itself, dv = b_i / m_i (every sweep is then a jacobi pass); or (CG) dv = 0, r = p = b.
// Pinned particles: b = 0, A_ii = I, dv = 0.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(std430, binding = FL_MS_B_VEL) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_MS_B_DV) writeonly buffer Dv { vec4 dv[]; };
layout(std430, binding = FL_MS_B_RHS) writeonly buffer Rhs { vec4 rhs[]; };
layout(std430, binding = FL_MS_B_DIAG) writeonly buffer Diag { vec4 diag[]; };
layout(std430, binding = FL_MS_B_CG_R) writeonly buffer CgR { vec4 cg_r[]; };
layout(std430, binding = FL_MS_B_CG_P) writeonly buffer CgP { vec4 cg_p[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.count) return;
  vec4 p = pos[k];
  bool cg = fl_ms_flag(FL_MS_FLAG_CG);
  if (p.w == 0.0) {
    rhs[k] = vec4(0.0);
    diag[2 * k] = vec4(1.0, 1.0, 1.0, 0.0);
    diag[2 * k + 1] = vec4(0.0);
    dv[k] = vec4(0.0);
    if (cg) cg_r[k] = cg_p[k] = vec4(0.0);
    return;
  }
  float h = pc.h, kappa = pc.kappa, damping = pc.damping;
  bool definite = fl_ms_flag(FL_MS_FLAG_DEFINITE), hybrid = fl_ms_flag(FL_MS_FLAG_HYBRID);
  bool momentum = fl_ms_flag(FL_MS_FLAG_MOMENTUM);
  float m = 1.0 / p.w;
  vec3 vi = vel[k].xyz, f = m * pc.gravity, kv = vec3(0.0), impulse = m * pc.gravity * h;
  // A_ii = a_iso I + sum a_s xhat xhat^T
  float a_iso = m;
  vec3 a_diag = vec3(0.0), a_off = vec3(0.0);  // (xx, yy, zz), (xy, xz, yz) of sum a_s P_s
  for (uint e = first[k]; e < first[k + 1]; e++) {
    fl_ms_spring_view s;
    if (!fl_ms_spring_at(e, p.xyz, s)) continue;
    vec3 xhat = s.xhat, vji = vel[s.other].xyz - vi;
    float wj = pos[s.other].w, delta = s.len - s.rest, rate = dot(xhat, vji);
    f += (kappa * delta + damping * rate) * xhat;
    float t = fl_ms_transverse(s.len, s.rest, definite);
    kv += fl_ms_apply_k(xhat, t, kappa, vji);
    // B_s = h^2 kappa [ (1 - t) P + t I ] + h c_d P
    float along = h * h * kappa * (1.0 - t) + h * damping;
    a_iso += h * h * kappa * t;
    a_diag += along * xhat * xhat;
    a_off += along * vec3(xhat.x * xhat.y, xhat.x * xhat.z, xhat.y * xhat.z);
    if (hybrid) {
      float phi = fl_ms_ho_impulse(delta, rate, 1.0 / (p.w + wj), kappa, damping, h);
      impulse += fl_ms_split(p.w, wj, momentum) * phi * xhat;
    }
  }
  vec3 b = h * f + h * h * kv;
  if (hybrid) b = 0.5 * (b + impulse);
  rhs[k] = vec4(b, 0.0);
  vec3 dd = a_diag + a_iso;
  diag[2 * k] = vec4(dd, 0.0);
  diag[2 * k + 1] = vec4(a_off, 0.0);
  if (cg) {
    dv[k] = vec4(0.0);
    cg_r[k] = cg_p[k] = vec4(b, 0.0);
  } else if (fl_ms_flag(FL_MS_FLAG_EXPLICIT_START)) {
    dv[k] = vec4(b * p.w, 0.0);
  } else {
    mat3 a = mat3(dd.x, a_off.x, a_off.y, a_off.x, dd.y, a_off.z, a_off.y, a_off.z, dd.z);
    dv[k] = vec4(inverse(a) * b, 0.0);
  }
}
