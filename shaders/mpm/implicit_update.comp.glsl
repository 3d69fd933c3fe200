// mpm/implicit_update.comp: one thread per grid node: the vector steps of the
// conjugate residual solve (src/sim/mpm/snow_implicit.h) on the mass-scaled
// unknowns z = sqrt(m) v, with the operator
//   (A z)_i = z_i + beta dt^2 info_i hacc_i,  hacc = H (info * z)  (implicit_apply),
// info_i = 1 / sqrt(m_i) on free nodes, 0 on held ones (whose entries stay 0).
// push arg = mode | iteration << 8 (FL_SNOW_CR_*), push beta:
//   RESIDUAL       r = b - A x0 = -beta dt^2 info hacc (x0 = b), p = r
//   PRODUCT_FIRST  A r = r + beta dt^2 info hacc, A p = A r
//   PRODUCT        A r
//   STEP           alpha = (r.Ar) / (Ap.Ap); x += alpha p; r -= alpha A p
//   DIRECTION      beta_k = (r.Ar)_new / (r.Ar)_old; p = r + beta_k p; A p = A r + beta_k A p
// The products zero the accumulator they read. The scalars are fl_reduce
// results (slots FL_SNOW_CR_SLOT_*), on the device: every mode but RESIDUAL
// does nothing once r.r <= tol^2 b.b or the STOP flag is set. DIRECTION's
// invocation 0 sets STOP on a breakdown (Ap.Ap <= 0, r.Ar = 0, a non-finite
// beta_k); STEP's records the iteration count (no mode both reads STOP and
// writes it in one dispatch).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "mpm_shared.h"

layout(std430, binding = 0) readonly buffer NodeInfo { float info[]; };
layout(std430, binding = 1) buffer HessianAcc { uint hacc[]; };
layout(std430, binding = 2) buffer X { vec4 xs[]; };
layout(std430, binding = 3) buffer R { vec4 rs[]; };
layout(std430, binding = 4) buffer P { vec4 ps[]; };
layout(std430, binding = 5) buffer AR { vec4 ars[]; };
layout(std430, binding = 6) buffer AP { vec4 aps[]; };
layout(std430, binding = 7) buffer Results { float results[]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

vec3 take_hacc(uint i)
{
  vec3 h = vec3(uintBitsToFloat(hacc[4u * i]), uintBitsToFloat(hacc[4u * i + 1u]), uintBitsToFloat(hacc[4u * i + 2u]));
  hacc[4u * i] = 0u;
  hacc[4u * i + 1u] = 0u;
  hacc[4u * i + 2u] = 0u;
  return h;
}

bool finite(float f) { return !isnan(f) && !isinf(f); }

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.node_count) return;
  uint mode = pc.arg & 255u, it = pc.arg >> 8u;
  float dt = pc.dt, c = pc.beta * dt * dt * info[i];
  uint rar_old = FL_SNOW_CR_SLOT_RAR0 + (it & 1u), rar_new = FL_SNOW_CR_SLOT_RAR0 + ((it + 1u) & 1u);
  bool converged = !(results[FL_SNOW_CR_SLOT_RR] >
                     float(FL_SNOW_CR_TOLERANCE * FL_SNOW_CR_TOLERANCE) * results[FL_SNOW_CR_SLOT_BB]);
  if (mode == FL_SNOW_CR_RESIDUAL) {
    vec4 r = vec4(-c * take_hacc(i), 0.0);
    rs[i] = r;
    ps[i] = r;
  } else if (mode == FL_SNOW_CR_PRODUCT_FIRST || mode == FL_SNOW_CR_PRODUCT) {
    if (converged || results[FL_SNOW_CR_SLOT_STOP] != 0.0) return;
    vec4 ar = vec4(rs[i].xyz + c * take_hacc(i), 0.0);
    ars[i] = ar;
    if (mode == FL_SNOW_CR_PRODUCT_FIRST) aps[i] = ar;
  } else if (mode == FL_SNOW_CR_STEP) {
    if (converged || results[FL_SNOW_CR_SLOT_STOP] != 0.0) return;
    float apap = results[FL_SNOW_CR_SLOT_APAP], alpha = results[rar_old] / apap;
    if (!(apap > 0.0) || !finite(alpha)) return;
    xs[i].xyz += alpha * ps[i].xyz;
    rs[i].xyz -= alpha * aps[i].xyz;
    if (i == 0u) results[FL_SNOW_CR_SLOT_ITERATIONS] = float(it + 1u);
  } else if (mode == FL_SNOW_CR_DIRECTION) {
    if (converged) return;
    float old = results[rar_old], b = results[rar_new] / old;
    bool broken = !(results[FL_SNOW_CR_SLOT_APAP] > 0.0) || old == 0.0 || !finite(b);
    if (i == 0u && broken) results[FL_SNOW_CR_SLOT_STOP] = 1.0;
    if (broken) return;
    ps[i].xyz = rs[i].xyz + b * ps[i].xyz;
    aps[i].xyz = ars[i].xyz + b * aps[i].xyz;
  }
}
