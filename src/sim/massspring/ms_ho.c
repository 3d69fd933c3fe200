/* sim/massspring/ms_ho: closed forms and series of the damped oscillator
 * delta'' + 2 alpha delta' + omega^2 delta = 0 (ms_spec.h). All regimes share
 * delta(t) = e^(-alpha t)(delta0 C(t) + a S(t)) with C, S functions of
 * w2 = omega^2 - alpha^2 and t, evaluated by series near w2 t^2 = 0. */
#include "sim/massspring/ms_ho.h"

#include <math.h>

/* Below this |w2 t^2|, C and S come from their Taylor series in q = w2 t^2. */
#define SERIES_Q 1e-4
/* At or below this h (alpha + sqrt|w2|), the impulse integrates the Taylor series of delta. */
#define SERIES_RHO 1.0
#define SERIES_TERMS 60

/* e^(-alpha t) C(t) and e^(-alpha t) S(t) for w2 = omega_d^2 (negative: overdamped). */
static void decay_cs(double alpha, double w2, double t, double *ec, double *es)
{
  double q = w2 * t * t;
  if (fabs(q) < SERIES_Q) {
    double e = exp(-alpha * t);
    double c = 1.0 - q / 2.0 + q * q / 24.0 - q * q * q / 720.0;
    double s = t * (1.0 - q / 6.0 + q * q / 120.0 - q * q * q / 5040.0);
    *ec = e * c;
    *es = e * s;
  } else if (w2 > 0) {
    double wd = sqrt(w2), e = exp(-alpha * t);
    *ec = e * cos(wd * t);
    *es = e * sin(wd * t) / wd;
  } else {
    double g = sqrt(-w2);
    if (g * t < 1.0) {
      double e = exp(-alpha * t);
      *ec = e * cosh(g * t);
      *es = e * sinh(g * t) / g;
    } else { /* exponents combined: no overflow of cosh for large g t */
      double ep = exp((g - alpha) * t), em = exp(-(g + alpha) * t);
      *ec = 0.5 * (ep + em);
      *es = 0.5 * (ep - em) / g;
    }
  }
}

void fl_ms_ho_evolve(double delta0, double rate0, double reduced_mass, double kappa, double damping,
                     double t, double *delta_t, double *rate_t)
{
  double omega2 = kappa / reduced_mass, alpha = damping / (2.0 * reduced_mass);
  double w2 = omega2 - alpha * alpha, a = rate0 + alpha * delta0, ec, es;
  decay_cs(alpha, w2, t, &ec, &es);
  *delta_t = delta0 * ec + a * es;
  *rate_t = rate0 * ec - (alpha * a + w2 * delta0) * es;
}

double fl_ms_ho_impulse(double delta0, double rate0, double reduced_mass, double kappa, double damping,
                        double h)
{
  if (kappa == 0.0 || h == 0.0 || (delta0 == 0.0 && rate0 == 0.0)) return 0.0;
  double omega2 = kappa / reduced_mass, alpha = damping / (2.0 * reduced_mass);
  double w2 = omega2 - alpha * alpha;
  double rho = h * (alpha + sqrt(fabs(w2)));
  if (rho <= SERIES_RHO) {
    /* integral = h sum e_n/(n+1)!, e_n = d_n h^n, d_{n+2} = -2 alpha d_{n+1} - omega^2 d_n, so
     * e_{n+2} = -2 (alpha h) e_{n+1} - (omega h)^2 e_n: bounded by rho^n (d_n alone overflows
     * for stiff springs and short steps) */
    double a2 = 2.0 * alpha * h, o2 = omega2 * h * h;
    double e0 = delta0, e1 = rate0 * h, f = 1.0; /* f = 1/(n+1)! */
    double sum = e0;
    for (int n = 1; n < SERIES_TERMS; n++) {
      f /= (double)(n + 1);
      double term = e1 * f;
      sum += term;
      double e2 = -a2 * e1 - o2 * e0;
      e0 = e1;
      e1 = e2;
      if (n > 4 && fabs(term) <= 1e-18 * fabs(sum) && fabs(e1 * f) <= 1e-18 * fabs(sum)) break;
    }
    return kappa * h * sum;
  }
  double ec, es;
  decay_cs(alpha, w2, h, &ec, &es);
  double ic = (alpha - (alpha * ec - w2 * es)) / omega2;
  double is = (1.0 - (ec + alpha * es)) / omega2;
  return kappa * (delta0 * ic + (rate0 + alpha * delta0) * is);
}
