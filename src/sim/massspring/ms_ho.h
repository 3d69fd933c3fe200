/* sim/massspring/ms_ho: the damped harmonic oscillator of one spring's strain
 * (ms_spec.h, "HARMONIC OSCILLATOR IMPULSE"): the strain at time t and the
 * spring-force impulse phi = kappa * integral_0^h delta(t) dt of Kang 2018,
 * for undamped, underdamped, critically damped and overdamped springs. */
#pragma once

/* The strain delta(t) and its rate at time t >= 0 of the oscillator with reduced
 * mass M > 0, stiffness kappa > 0 and damping c_d >= 0, from delta0, rate0. */
void fl_ms_ho_evolve(double delta0, double rate0, double reduced_mass, double kappa, double damping,
                     double t, double *delta_t, double *rate_t);
/* The impulse phi = kappa * integral_0^h delta(t) dt (0 when kappa or h is 0). */
double fl_ms_ho_impulse(double delta0, double rate0, double reduced_mass, double kappa, double damping,
                        double h);
