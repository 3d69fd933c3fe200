/* sim/xpbd/xpbd_spec: the XPBD cloth algorithm, stated once. The CPU
 * reference (xpbd_cpu.c) and the GPU kernels (shaders/xpbd/) both implement
 * exactly this; tests compare them. Equations: NOTES.md section 1 (PBD survey,
 * Bender/Müller/Macklin 2017; XPBD, Macklin/Müller/Chentanez 2016; friction,
 * Macklin 2014; isometric bending, Bergou 2006 / Bender 2014).
 *
 * PARTICLES. All cloth objects of a scene share one particle array; object o
 * owns particles [first, first + nx*ny). Local index k = j*nx + i, grid
 * coordinates i in [0,nx), j in [0,ny). Rest positions (plane "xz", the default):
 *   x = center + ((i/(nx-1) - 1/2) w, 0, (j/(ny-1) - 1/2) h)
 * plane "xy": x = center + ((i/(nx-1) - 1/2) w, (j/(ny-1) - 1/2) h, 0).
 * Mass: mass/(nx*ny) each; w = inverse mass, 0 for pinned particles.
 * Pins (scene key "pin"): "corner:i,j", "row:j", "column:i", "index:k", and the
 * edge names "top" (j = ny-1), "bottom" (j = 0), "left" (i = 0), "right" (i = nx-1),
 * and the corner names "top-left", "top-right", "bottom-left", "bottom-right".
 *
 * TRIANGLES. Cell (i,j), corners a=(i,j) b=(i+1,j) c=(i,j+1) d=(i+1,j+1):
 * (i+j) even: (a,b,d), (a,d,c); odd: (a,b,c), (b,d,c).
 *
 * CONSTRAINTS (fl_gpu_distance, fl_gpu_bend in flurry_shared.h):
 *  - stretch: (i,j)-(i+1,j) and (i,j)-(i,j+1); shear: (i,j)-(i+1,j+1) and
 *    (i+1,j)-(i,j+1). C = |x_i - x_j| - rest, grad_i C = n = (x_i - x_j)/|x_i - x_j|,
 *    grad_j C = -n. Compliance from stretch_compliance / shear_compliance.
 *  - bending, one per interior triangle edge (x0, x1) with opposite vertices
 *    x2 (in the triangle listed first) and x3:
 *      dihedral: p_k = x_k - x0; n1 = norm(p1 x p2), n2 = norm(p1 x p3), d = n1.n2
 *        clamped to [-1,1], s = |n1 x n2| (the sine, computed directly: near flat
 *        1 - d^2 is rounding noise in float); C = atan2(s, d) - phi0 (phi0 from
 *        the rest shape).
 *        With the q terms of Müller 2007 (appendix):
 *          q2 = (p1 x n2 + (n1 x p1) d) / |p1 x p2|
 *          q3 = (p1 x n1 + (n2 x p1) d) / |p1 x p3|
 *          q1 = -(p2 x n2 + (n1 x p2) d) / |p1 x p2| - (p3 x n1 + (n2 x p3) d) / |p1 x p3|
 *          q0 = -q1 - q2 - q3
 *        These q are minus the gradients of d (checked by finite differences in
 *        tests/unit/test_cloth_build.c), so grad_k C = +q_k / s.
 *        Skipped when s < 1e-4 or either cross product is shorter than 1e-12.
 *        With these normals a flat stencil has d = -1 (phi0 = pi), where
 *        the constraint is skipped: dihedral bending acts once the cloth folds.
 *      isometric: with e0 = x1-x0, e1 = x2-x0, e2 = x3-x0, e3 = x2-x1, e4 = x3-x1 and
 *        cot(u,v) = (u.v)/|u x v|: c01 = cot(e0,e1), c02 = cot(e0,e2),
 *        c03 = cot(-e0,e3), c04 = cot(-e0,e4);
 *        K = (c03 + c04, c01 + c02, -c01 - c03, -c02 - c04), coefficient
 *        c = 3/(A0 + A1) with A0 = |e0 x e1|/2, A1 = |e0 x e2|/2 (rest shape).
 *        s = sum_k K_k x_k, the stencil's curvature vector: |s| = |e0| 2 sin(theta/2) for the
 *        angle theta between the two triangles' normals while the triangles keep their rest
 *        shape (K from the rest angles; checked in tests/unit/test_cloth_build.c).
 *        s0 = |s| of the rest shape (fl_gpu_bend.rest_s; 0 when it bends less than 1e-4 rad).
 *        Flat rest (s0 = 0, Bergou 2006): C = c/2 |s|^2; grad_k C = c K_k s.
 *        Curved rest (s0 > 0): C = c/2 (|s| - s0)^2; grad_k C = c (|s| - s0)/|s| K_k s;
 *        skipped when |s| < 1e-4 s0 (pressed flat: s has no direction). C = 0 with no
 *        gradient at the rest shape, which the flat-rest C (c/2 s0^2 > 0) is not
 *        (docs/CLOTH.md, "Bending on a curved rest shape"; the deviation from the rest
 *        curvature, as in Garg et al. 2007, "Cubic Shells").
 *    Compliance from bend_compliance. bending "none" makes no bend constraints.
 *
 * XPBD UPDATE of one constraint (Macklin 2016): alpha~ = compliance / h^2;
 *   denom = sum_k w_k |grad_k C|^2 + alpha~; skipped when denom < 1e-12;
 *   dlambda = (-C - alpha~ lambda) / denom; lambda += dlambda;
 *   x_k += w_k grad_k C dlambda.
 * Lambdas are zeroed at the start of every substep.
 *
 * SOLVERS (scene key sim.solver):
 *  - "coloring": the constraints of a family are ordered by colour (greedy
 *    colouring at load: no two constraints of one colour share a particle);
 *    colours run in order, each colour in parallel, applying the update directly
 *    (Gauss-Seidel between colours). Within a colour constraints are ordered by
 *    index, which does not change the result.
 *  - "symmetric": "coloring", but the odd iterations of a substep (1, 3, ...)
 *    run each family's colours last to first (symmetric Gauss-Seidel); the
 *    families keep their order (sim/xpbd/sweep_order.h; docs/CLOTH.md,
 *    "Symmetric colour sweeps").
 *  - "jacobi": per family, a constraint pass computes dlambda for every
 *    constraint from the same positions with mass splitting: in the
 *    denominator each w_k is multiplied by n_k, the number of the family's
 *    constraints on particle k (its CSR degree, a CSR list built at load), and
 *    dlambda is multiplied by omega (sim.relaxation, 1..2); lambda += dlambda.
 *    Then a particle pass gathers, over the constraints touching particle k,
 *    delta_k = sum w_k grad_k C dlambda and sets x_k += delta_k. lambda and the
 *    positions move by the same dlambda (x - x~ = M^-1 grad C^T lambda holds),
 *    so a converged Jacobi solve reaches the colouring solve's fixed point
 *    C + alpha~ lambda = 0 whatever omega (survey, Jacobi; Macklin et al. 2014
 *    average the positions but must then scale lambda alike: before this rule
 *    lambda grew by the full dlambda while x moved by omega / n_k of it, and the
 *    rest shape depended on omega).
 *
 * ONE SUBSTEP (h = sim.dt / sim.substeps, t = time at its end):
 *  1. wind (objects with nonzero drag or lift): per triangle (x0,x1,x2),
 *     u = (v0+v1+v2)/3 - wind, n = norm((x1-x0) x (x2-x0)), A = |(x1-x0) x (x2-x0)|/2;
 *     flip n so that u.n >= 0; f = -drag A (u.n) u - lift A (u.n) (n - (n.u^) u^),
 *     u^ = u/|u| (f = 0 when |u| < 1e-9). Each vertex gets f/3; a_k = w_k sum f/3.
 *  2. predict, w > 0: v += h (g + a); prev = x; x += h v.  w = 0: prev = x, v = 0.
 *  3. lambdas = 0. Cloths with hierarchy_levels > 1: their coarse levels, coarse to
 *     fine, with prolongation (sim/xpbd/hierarchy.h, docs/HIERARCHY.md).
 *  4. sim.iterations times: all distance constraints, then all bend constraints
 *     ("symmetric": their colours last to first in the odd iterations, SOLVERS).
 *  4b. tethers (cloth "tethers"; Kim, Chentanez and Mueller 2012, long range attachments):
 *     a particle with a tether to pinned particle p at rest distance L (across the flat
 *     sheet, its nearest pin) and d = x - x_p, |d| > L: x = x_p + d L / |d|; then the
 *     same for its second tether, to the nearest pin on its other side (> 90 degrees
 *     away), the two in turn FL_TETHER_ROUNDS (4) times. The pin has w = 0, so the
 *     particle takes the whole correction: inextensible along the tether however heavy
 *     its load, and never pushed towards the pin (unilateral).
 *  5. contacts, per particle with w > 0, r = thickness/2: for each collider c
 *     (shaders/common/sdf.glsl at time t) with d = sdf(x) - r < 0: n = normal(x),
 *     analytic or tetrahedral per sim.collider_normals;
 *     x -= d n; then friction (Macklin 2014) with mu_s = sqrt(cloth static x
 *     collider friction), mu_k = sqrt(cloth kinetic x collider friction):
 *     D = (x - prev) - h v_c, D_t = D - (D.n) n, depth = -d;
 *     |D_t| < mu_s depth: x -= D_t; else x -= D_t min(mu_k depth / |D_t|, 1).
 *     Then the domain box walls, the same with v_c = 0 and the collider friction 1.
 *  6. self-collision (objects with self_collision, and between all objects that
 *     have it): spatial hash with cell size = the largest thickness; for particle
 *     i and every j != i within that distance that is not a mesh neighbour (same
 *     object and |di| <= 2 and |dj| <= 2), with d = |x_i - x_j| < thickness_i:
 *     n = (x_i - x_j)/d, push = w_i/(w_i + w_j) (thickness_i - d) n, and friction
 *     as in 5 with depth = thickness_i - d, scaled by w_i/(w_i + w_j), on the
 *     relative displacement after every particle's push: two passes over the
 *     same contacts, from the positions before this step; the first
 *     (self_collide) sums the pushes, P_i = their sum / count; the second
 *     (self_friction) takes D = (x_i + P_i - prev_i) - (x_j + P_j - prev_j), so
 *     that one contact's static friction does not cancel another's push-out.
 *     x_i += (sum of pushes and frictions) / count.
 *  7. velocity: v = (x - prev) / h. Damping, "point": v *= max(0, 1 - damping h).
 *     "edge" (conserves linear and angular momentum): for every stretch and shear
 *     constraint (i,j), with n = norm(x_i - x_j) and s = ((v_i - v_j).n),
 *     v_i -= k w_i/(w_i+w_j) s n and v_j += k w_j/(w_i+w_j) s n, k = min(damping h, 1)/8,
 *     gathered per particle from the velocities before this step.
 */
#pragma once
