// massspring/spring.glsl: one spring seen from one of its ends (ms_spec.h):
// its geometry, the Jacobian block K and B = h^2 K + h c_d P applied to a
// vector, and the harmonic-oscillator impulse of Kang 2018 (Eq. 20-27 as
// corrected in NOTES.md section 3; the float port of src/sim/massspring/ms_ho.c).
#ifndef FL_MS_SPRING_GLSL
#define FL_MS_SPRING_GLSL

const float FL_MS_MIN_LENGTH = 1e-12;

struct fl_ms_link {
  uint other;  // the particle at the far end
  float rest;  // rest length l0
};

fl_ms_link fl_ms_unpack_link(uvec2 packed) { return fl_ms_link(packed.x, uintBitsToFloat(packed.y)); }

// 1 - l0/l, the weight of (I - P) in K / kappa; clamped to >= 0 when definite.
float fl_ms_transverse(float len, float rest, bool definite)
{
  float t = 1.0 - rest / len;
  return definite ? max(t, 0.0) : t;
}

// K y = kappa [ P y + t (I - P) y ], P = xhat xhat^T.
vec3 fl_ms_apply_k(vec3 xhat, float t, float kappa, vec3 y)
{
  vec3 py = dot(xhat, y) * xhat;
  return kappa * (py + t * (y - py));
}

// B y = h^2 K y + h c_d P y.
vec3 fl_ms_apply_b(vec3 xhat, float t, float kappa, float damping, float h, vec3 y)
{
  return h * h * fl_ms_apply_k(xhat, t, kappa, y) + h * damping * dot(xhat, y) * xhat;
}

// e^(-alpha t) C(t) and e^(-alpha t) S(t) for w2 = omega_d^2 (negative: overdamped).
vec2 fl_ms_decay_cs(float alpha, float w2, float t)
{
  float q = w2 * t * t;
  if (abs(q) < 1e-4) {
    float e = exp(-alpha * t);
    float c = 1.0 - q / 2.0 + q * q / 24.0;
    float s = t * (1.0 - q / 6.0 + q * q / 120.0);
    return e * vec2(c, s);
  }
  if (w2 > 0.0) {
    float wd = sqrt(w2);
    return exp(-alpha * t) * vec2(cos(wd * t), sin(wd * t) / wd);
  }
  float g = sqrt(-w2);
  float ep = exp((g - alpha) * t), em = exp(-(g + alpha) * t);
  return vec2(0.5 * (ep + em), 0.5 * (ep - em) / g);
}

// phi = kappa * integral_0^h delta(t) dt of the oscillator with reduced mass m_red.
float fl_ms_ho_impulse(float delta0, float rate0, float m_red, float kappa, float damping, float h)
{
  float omega2 = kappa / m_red, alpha = damping / (2.0 * m_red);
  float w2 = omega2 - alpha * alpha;
  float rho = h * (alpha + sqrt(abs(w2)));
  if (rho <= 1.0) {
    // integral = h sum e_n / (n+1)!, e_n = d_n h^n with d_{n+2} = -2 alpha d_{n+1} - omega^2 d_n:
    // e_{n+2} = -2 (alpha h) e_{n+1} - (omega h)^2 e_n stays below rho^n (the unscaled d_n
    // overflow a float for stiff springs); the terms fall below 1e-9 by n = 13
    float a2 = 2.0 * alpha * h, o2 = omega2 * h * h;
    float e0 = delta0, e1 = rate0 * h, f = 1.0, sum = delta0;
    for (int n = 1; n < 14; n++) {
      f /= float(n + 1);
      sum += e1 * f;
      float e2 = -a2 * e1 - o2 * e0;
      e0 = e1;
      e1 = e2;
    }
    return kappa * h * sum;
  }
  vec2 ecs = fl_ms_decay_cs(alpha, w2, h);
  float ic = (alpha - (alpha * ecs.x - w2 * ecs.y)) / omega2;
  float is_ = (1.0 - (ecs.x + alpha * ecs.y)) / omega2;
  return kappa * (delta0 * ic + (rate0 + alpha * delta0) * is_);
}

// The share s_i of a spring's impulse phi_ij that particle i (inverse mass wi)
// receives along xhat_ij: the paper's Eq. 22 split w_i/(w_i + w_j), or 1 (momentum split).
float fl_ms_split(float wi, float wj, bool momentum) { return momentum ? 1.0 : wi / (wi + wj); }
#endif
