/* sim/massspring/ms_spec: the mass-spring integrators of Kang 2018 (E, HO, JI,
 * IM, HY), stated once. The CPU reference (ms_ho.c, ms_cpu.c) implements
 * exactly this in double precision; a GPU implementation is tested against it.
 * Equations: NOTES.md section 3 (the paper's mistakes corrected as listed there).
 *
 * PARTICLES. A grid of nx x ny particles on the plane "xz", local index
 * k = j*nx + i, i in [0,nx), j in [0,ny):
 *   x = center + ((i/(nx-1) - 1/2) w, 0, (j/(ny-1) - 1/2) d)
 * Mass: mass/(nx*ny) each, stored as an inverse mass; 0 for pinned particles.
 * Pinned particles never move: their velocity is 0 and no integrator changes x.
 *
 * SPRINGS ("structural+shear+bend"), in this order, each group row by row
 * (j outer, i inner), the lower particle index first:
 *   1. structural (i,j)-(i+1,j)     2. structural (i,j)-(i,j+1)
 *   3. shear (i,j)-(i+1,j+1)        4. shear (i+1,j)-(i,j+1)
 *   5. bend (i,j)-(i+2,j)           6. bend (i,j)-(i,j+2)
 * Rest length l0 = the distance in the initial grid. Every spring has the same
 * stiffness kappa and damping c_d. Per particle, a CSR list of the springs
 * touching it (spring indices ascending) serves the per-particle updates.
 *
 * ONE SPRING (i,j): x_ij = x_j - x_i, l = |x_ij|, xhat = x_ij / l,
 * delta = l - l0, delta' = xhat . (v_j - v_i), inverse masses w_i, w_j,
 * reduced mass M = 1/(w_i + w_j) (= m_i m_j/(m_i+m_j); m_j when j is pinned;
 * a spring between two pinned particles does nothing). A spring with
 * l < 1e-12 has no direction and is skipped by every integrator.
 *   Force on i: f_i = kappa delta xhat + c_d delta' xhat;  f_j = -f_i.
 *   Jacobian (Baraff-Witkin), P = xhat xhat^T:
 *     K = df_i/dx_j = kappa [ P + (1 - l0/l)(I - P) ] = kappa [ I - (l0/l)(I - P) ],
 *     df_i/dx_i = -K = kappa [ -I + (l0/l)(I - P) ], df_j/dx_j = -K, df_j/dx_i = K;
 *     damping: df_i/dv_j = c_d P, df_i/dv_i = -c_d P.
 *   K is indefinite for a compressed spring (l < l0); the "definite" option
 *   clamps (1 - l0/l) to >= 0 (K positive semi-definite, A positive definite).
 *
 * HARMONIC OSCILLATOR IMPULSE (ms_ho.h). The strain obeys
 *   delta'' + 2 alpha delta' + omega^2 delta = 0, omega^2 = kappa/M, alpha = c_d/(2M),
 * from delta(0) = delta, delta'(0) = delta'. With w2 = omega^2 - alpha^2
 * (omega_d^2; negative when overdamped), a = delta'(0) + alpha delta(0):
 *   delta(t) = e^(-alpha t) (delta(0) C(t) + a S(t)), where
 *   underdamped (w2 > 0, omega_d = sqrt(w2)): C = cos(omega_d t), S = sin(omega_d t)/omega_d
 *     (undamped: alpha = 0, omega_d = omega);
 *   critical (w2 = 0): C = 1, S = t;
 *   overdamped (w2 = -g^2 < 0): C = cosh(g t), S = sinh(g t)/g.
 * This is the NOTES form a sin + b cos with b = delta(0), a = (delta'(0) + alpha b)/omega_d
 * (phase fitted to both delta and delta'). C and S depend on w2 only through
 * q = w2 t^2 and are continuous across the regimes; for |q| < 1e-4 their Taylor
 * series in q (to q^3) is used, so the critical case and its neighbourhood
 * need no division by a tiny omega_d.
 *   phi = kappa * integral_0^h delta(t) dt
 *       = kappa [ delta(0) I_C + a I_S ],
 *   I_C = (alpha - e^(-alpha h)(alpha C(h) - w2 S(h))) / omega^2,
 *   I_S = (1 - e^(-alpha h)(C(h) + alpha S(h))) / omega^2.
 * These cancel badly when the step is short against the oscillator, so when
 * rho = h (alpha + sqrt|w2|) <= 1 the Taylor series of delta(t) is integrated
 * instead: d_0 = delta(0), d_1 = delta'(0), d_{n+2} = -2 alpha d_{n+1} - omega^2 d_n,
 * integral = sum d_n h^(n+1)/(n+1)!, terms shrinking like rho^n/n!. It runs on the
 * scaled e_n = d_n h^n (e_{n+2} = -2 alpha h e_{n+1} - (omega h)^2 e_n, |e_n| <= rho^n):
 * the d_n themselves grow like omega^n and overflow a float for stiff springs.
 * (Heavily overdamped springs with a slow mode much slower than 1/h lose about
 * log10(1/(lambda_slow h)) digits in the closed form; doubles leave plenty.)
 * phi is the integral of the spring force kappa delta only: as in the paper, the
 * damper acts through the decay of delta, not as an impulse of its own.
 *
 * STEP h, gravity g, for every free particle (w > 0); pinned: v = 0, x fixed.
 *  E  (symplectic Euler): f_i = m_i g + sum of spring forces; v += h w f; x += h v.
 *  HO: phi_i = sum over springs (i,j) of s_i phi_ij xhat_ij + m_i g h;
 *      dv_i = w_i phi_i; v += dv; x += h v. xhat_ij points from i to j (for j's
 *      end, xhat_ji = -xhat_ij). Splits:
 *        paper (Eq. 22): s_i = m_j/(m_i+m_j) = w_i/(w_i+w_j). Equal and opposite
 *          only for equal masses: with unequal masses the spring's net impulse
 *          (s_i - s_j) phi_ij xhat is not 0, so linear momentum drifts. It also
 *          gives each end half of the two-body impulse when the masses are equal
 *          (a free pair then oscillates more slowly than omega).
 *        momentum: s_i = s_j = 1, the impulse phi_ij on i and -phi_ij on j:
 *          conserves linear momentum exactly (up to rounding), and matches the
 *          two-body oscillator: velocity changes phi/m_i and -phi/m_j.
 *  Implicit system (Baraff-Witkin backward Euler, NOTES), unknown dv over the free
 *  particles (pinned dv = 0, their rows and columns removed):
 *      A dv = b,  A = M - h^2 J - h V,  b = h f + h^2 J v,
 *  with J = df/dx, V = df/dv as above (J_ii = -sum_j J_ij). Per spring s = (i,j)
 *  with B_s = h^2 K + h c_d P:  A_ii = m_i I + sum_s B_s,  A_ij = -B_s,
 *  b_i = h f_i + h^2 sum_s K (v_j - v_i).
 *  JI: Jacobi from dv^(0) = 0 (or, with the explicit start, dv^(0) = M^-1 b, the explicit
 *      step's velocity change: the start that reproduces the paper's Table 1 JI), `iterations` times:
 *      dv_i^(k+1) = A_ii^-1 (b_i + sum over springs (i,j) of B_s dv_j^(k)),
 *      every particle reading only the previous iterate (one thread per particle).
 *  IM: the same system by conjugate gradients from dv = 0 until
 *      |r| <= tol |b| (tol 1e-10 by default) or the iteration limit: the reference.
 *  HY (Eq. 32): JI with b_i replaced by (b_i + phi_i)/2, phi_i the HO impulse
 *      (with its m_i g h) of the chosen split.
 *  JI, IM, HY then: v += dv; x += h v.
 *
 * STABILITY MEASURE (NOTES): per spring h_c = pi/omega, mu = h/h_c.
 * Measured by tests/unit/test_massspring.c (energy bounded over thousands of steps):
 *  - one free spring, equal masses, undamped: E diverges at mu = 2.0625 and 8.0625.
 *    HO with x += h v after the exact impulse is a linear map of (delta, delta')
 *    with theta = omega h: the momentum split is stable while
 *    0 <= theta sin(theta) <= 2 (1 + cos(theta)) (mu = 2.0625: yes; 8.0625: no),
 *    the paper's split while 0 <= theta sin(theta) <= 2 (3 + cos(theta)) (both yes):
 *    the paper's stable mu values lie in these windows just above even multiples.
 *  - a 6 x 6 grid of this layout (12 springs at interior particles) is stiffer than
 *    one spring: E diverges from mu ~ 0.25, HO (paper split) holds to mu ~ 0.3,
 *    HO (momentum split) to ~ 0.2; JI and HY (3 iterations) hold at mu = 2 only
 *    with the "definite" Jacobian (Jacobi diverges on the indefinite one there).
 */
#pragma once
