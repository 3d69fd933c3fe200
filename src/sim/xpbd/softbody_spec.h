/* sim/xpbd/softbody_spec: the XPBD soft body and balloon algorithm, stated
 * once. Soft bodies and balloons are objects of the XPBD system that also
 * holds cloth (sim/xpbd/xpbd.h): one particle array, the same substep, the
 * same solvers (colouring or Jacobi), contacts, friction and particle
 * collisions (sim/xpbd/xpbd_spec.h). This file states what bodies add. The
 * CPU reference (sim/xpbd/xpbd_cpu.c) and the GPU kernels (shaders/xpbd/
 * tet_*, body_volume) implement exactly this; tests compare them. Equations:
 * NOTES.md section 1 (tet volume, overpressure, Diziol 2011); Macklin &
 * Müller 2021 for the Neo-Hookean constraints.
 *
 * BUILD (sim/xpbd/body_build.c), per object:
 *  - softbody: tets from the voxel tetrahedralizer (shape, resolution: the
 *    cell edge s = longest bounding-box side / resolution) or a TetGen file;
 *    each tet's mass density * V0 goes a quarter to each of its vertices;
 *    particles = the tet vertices. Constraints, model "xpbd": one distance
 *    constraint per tet edge (xpbd_spec.h, kind FL_DISTANCE_EDGE, compliance
 *    edge_compliance) and one FL_TET_VOLUME per tet (volume_compliance).
 *    Model "neohookean": per tet one FL_TET_NEOHOOKEAN record (below), no
 *    edges. Surface: the tets'
 *    boundary faces. Drawn surface: fl_solid_surface (or the OBJ, or the
 *    boundary for TetGen input) skinned to the tets (tet_embed.h).
 *  - balloon: an icosphere of `subdivisions` (or an OBJ, welded as given):
 *    particles = its vertices, mass / n each; a distance constraint per edge
 *    (FL_DISTANCE_STRETCH, stretch_compliance); a bend constraint per edge
 *    (xpbd_spec.h, both triangles of the edge; x0 < x1; x2 opposite in the
 *    triangle where x0 -> x1 runs counter-clockwise, x3 in the other);
 *    surface: its triangles.
 *  - both: one fl_gpu_body: V0 = the surface's enclosed volume at load,
 *    k = pressure (balloon) or 1, pressure constraint on for balloons;
 *    conservation mode and alpha. Objects' contact thickness: `thickness`,
 *    or the mean edge length when 0. Initial velocity: `velocity`.
 *
 * LOAD-TIME OVERLAP (sim/xpbd/body_lift.c, when the world makes the bodies;
 * the CPU reference's tests build bodies directly and place them themselves):
 * with r = thickness / 2 and d = the smallest over the free particles (w > 0)
 * of sdf_c(x, t = 0) - r over the colliders c and x_a - (min_a + r),
 * (max_a - r) - x_a over the domain walls: while -r <= d < 0 (at most 8
 * times), every particle and drawn vertex moves by (-1.0001 d + 1e-6 m) n,
 * n the outward normal there (d < -r: inside a collider or outside the
 * domain, a placement the load checks report, is left as it is). Without it the first contact pass (step 5) moved the
 * particle out by -d in one substep, which the velocity update turned into
 * -d / h (6 cm: 28 m/s for that particle; a subdivision-1 balloon's vertices
 * rose at 3.1 m/s on average after frame 1).
 *
 * TET CONSTRAINTS (family "tet", coloured and Jacobi like distance and bend):
 *  - FL_TET_VOLUME on (x0..x3): C = ((x1-x0) x (x2-x0)) . (x3-x0) / 6 - V0;
 *    grad_1 = (x2-x0) x (x3-x0) / 6, grad_2 = (x3-x0) x (x1-x0) / 6,
 *    grad_3 = (x1-x0) x (x2-x0) / 6, grad_0 = -(grad_1 + grad_2 + grad_3).
 *  - Neo-Hookean (Macklin & Müller 2021): F = Ds Dm^-1 with
 *    Ds = [x1-x0, x2-x0, x3-x0] (columns) and Dm the same at rest;
 *    lambda_L = E nu / ((1+nu)(1-2nu)), mu = E / (2(1+nu)), gamma = 1 + mu/lambda_L.
 *    FL_TET_NEOHOOKEAN: two constraints on one F,
 *      deviatoric C_D = sqrt(tr F^T F), compliance 1/(mu V0) (the record's
 *      compliance), dC_D/dF = F / C_D (skipped when C_D < 1e-9);
 *      hydrostatic C_H = det F - gamma, compliance 1/(lambda_L V0) (dm_inv[0].w),
 *      dC_H/dF = [f1 x f2, f2 x f0, f0 x f1] (f_c the columns of F);
 *    grad_{1,2,3} = the columns of (dC/dF) Dm^-T; grad_0 = -(sum).
 *  - The XPBD update of xpbd_spec.h (denominator sum_k w_k |grad_k|^2 + alpha~)
 *    for FL_TET_VOLUME. A Neo-Hookean tet solves its two constraints together
 *    (Macklin & Müller 2021 solve the element's constraints as one system), with
 *    s_xy = sum_k w_k gx_k . gy_k and a_x = compliance_x / h^2:
 *      [s_DD + a_D, s_DH; s_DH, s_HH + a_H] [dl_D; dl_H] = -[C_D + a_D l_D; C_H + a_H l_H],
 *      det = max(s_DD s_HH - s_DH^2, 0) + a_D s_HH + a_H s_DD + a_D a_H (no cancellation),
 *      dl_D = (b_D A_HH - s_DH b_H) / det, dl_H = (A_DD b_H - s_DH b_D) / det,
 *      x_k += w_k (grad_D_k dl_D + grad_H_k dl_H);
 *    where the deviatoric one is skipped or det <= 1e-6 A_DD A_HH (A near
 *    singular: both compliances ~0 and parallel gradients), the hydrostatic one
 *    alone: dl_D = 0, dl_H = b_H / A_HH (0 when A_HH < 1e-12). At the rest shape
 *    (F = I: C_D = sqrt 3, C_H = -mu/lambda_L, grad_D = grad_H / sqrt 3) the
 *    solution has dl_D / sqrt 3 + dl_H = 0, so x does not move: the two
 *    constraints' forces cancel (mu F + lambda_L (J - gamma) cof F = 0 at F = I),
 *    which projecting them one after the other did not do (a rest sphere moved
 *    mm per second). Jacobi: w_k times the CSR degree in A, both dl times omega;
 *    lambdas: GPU lambda[2c], [2c + 1], CPU tet_lambda[c], [count + c].
 *
 * ONE ITERATION, after distance and bend: the tet family, then BODY VOLUMES:
 * for each body, in one workgroup (shaders/xpbd/body_volume.comp):
 *  1. OVERPRESSURE (balloons; XPBD, NOTES.md "cloth balloon"):
 *     V = sum over the body's triangles (a, b, c) of (x_a x x_b) . x_c / 6;
 *     g_i = sum over the body's triangles containing i of the cross product of
 *     the other two in cyclic order (a: x_b x x_c, b: x_c x x_a, c: x_a x x_b), / 6;
 *     C = V - k V0, S = sum_i w_i |g_i|^2, alpha~ = pressure_compliance / h^2;
 *     when S + alpha~ > 0: dlambda = (-C - alpha~ lambda) / (S + alpha~),
 *     lambda += dlambda, x_i += w_i g_i dlambda (all g_i from the positions
 *     before the update). lambda is zeroed with the other lambdas each substep.
 *  2. SURFACE VOLUME CONSERVATION (Diziol 2011; mode global or local):
 *     V, g_i and C = V - k V0 again from the positions after step 1;
 *     surface vertices: those with at least one triangle of the body;
 *     colliding: contact_i = 1 (a collider, wall or particle contact in the
 *     previous substep's contact passes);
 *     r_i = |x_i - prev_i| (the displacement of this substep so far); for local
 *     weights with pair_beta > 0 and an opposite particle k != i (opposite
 *     pairs, below) r_i = beta s |dd_i| + (1 - beta) |x_i - prev_i| with
 *     dd_i = |x_i - x_k| - |prev_i - prev_k| (survey, Diziol's alternative
 *     local weight; beta = pair_beta, s = pair_stiffness);
 *     freedom f_i = 0 for colliding vertices and vertices of no triangle; else
 *     (global and local) clamp((d_i - r) / r, 0, 1), d_i the smallest distance
 *     from x_i to a collider (its SDF) or a domain wall, r = contact_radius
 *     (half the object's thickness): 0 at contact, 1 from 2 r on;
 *     smoothed s_i = f_i (r_i + sum over the body's triangles containing i of
 *     (r_a + r_b)) / (1 + 2 n_i), a, b the triangle's other two vertices,
 *     n_i the number of those triangles;
 *     m = sum_i f_i (none: skip), Sigma = sum_i s_i; local weight
 *     l_i = s_i / Sigma, or f_i/m when Sigma = 0;
 *     omega_i = 0 if f_i = 0, else global: f_i/m; local: (1-alpha) l_i + alpha f_i/m;
 *     W_i = omega_i w_i; S = sum_i W_i |g_i|^2; direction d_i = W_i g_i;
 *     LOCAL RIGID PART (local only; issue 21): with u_i = f_i/m, U_i = u_i w_i,
 *     S_u = sum_i U_i |g_i|^2, the excess over the uniform correction of the
 *     same volume change m_i e_i = (omega_i - (S / S_u) u_i) g_i (S_u = 0:
 *     omega_i g_i); over the unpinned particles (w_i > 0, mass m_i = 1 / w_i):
 *     M, centre x_cm, r_i = x_i - x_cm, P = sum m_i e_i, L = sum r_i x m_i e_i,
 *     I = sum m_i (|r_i|^2 E - r_i r_i^T); lin = P / M, ang = I^-1 L (0 when
 *     det I <= 1e-9 trace(I)^3); d_i = W_i g_i - (lin + ang x r_i) for unpinned
 *     particles; S_d = sum_i g_i . d_i; when S_d > S / 2: S = S_d, else d_i =
 *     W_i g_i. Then, when S > 0: x_i -= C d_i / S.
 *     (A hard constraint: it puts the volume back on k V0 in one projection.)
 *     W_i is kept (W_i = 0 for all when m = 0) for the velocity correction.
 *     CONTACT LOAD: u_i += -(1 - f_i) (w_i / m) C g_i / S, the
 *     share of the uniform correction the weight spared: the gas pushing on
 *     a contact, which the contact would push back. u_i = 0 at the start of
 *     each substep.
 *
 * OPPOSITE PAIRS (sim/xpbd/opposite_pairs.c, at load, local bodies with
 * pair_beta > 0): a ray from each surface vertex along minus its area-weighted
 * normal; the first triangle it crosses (not one of the vertex's own), and of
 * that triangle the vertex nearest the crossing, is its opposite k. None: k = i.
 *
 * VELOCITY CORRECTION (bodies with velocity_correction, after the velocity
 * update and damping, before the measure; Diziol's dC/dt = 0): g_i = grad_i V
 * at the substep's end positions, W_i the last projection's weights,
 * Cdot = sum_i g_i . v_i, S = sum_i W_i |g_i|^2; when S > 0:
 * v_i -= W_i Cdot g_i / S.
 *
 * AFTER THE SUBSTEP (after velocity): each body's V is measured (as above)
 * into its state, with the ratio V / (k V0); from time measure_after on, the
 * smallest and largest ratios seen are kept. The worst volume loss the report
 * gives is 1 - smallest / largest: the loss from the fullest the body was
 * since measure_after (a balloon whose compliant pressure holds it below
 * k V0 is measured from its own inflated volume, not from k V0).
 *
 * CONTACT FLAGS: the contacts pass sets contact_i = 1 for a particle that
 * touched a collider or a wall in it, else 0; the particle-collision pass
 * sets contact_i = 1 for a particle with at least one particle contact.
 *
 * CONTACT LOAD in the collider and wall contacts (xpbd_spec.h step 5) of a
 * body particle: the friction's depth is the contact's depth plus
 * max(0, -u_i . n), the part of the spared correction that pushes into the
 * surface (its normal n). The push-out itself is the depth alone.
 *
 * PARTICLE COLLISIONS with bodies (xpbd_spec.h step 6, extended): a pair
 * (i, j) of different objects collides when both objects have
 * self_collision, or either is a body (soft body or balloon); particles of
 * one body never collide with each other (its constraints keep them apart).
 * The contact distance is (thickness_i + thickness_j) / 2, and the hash
 * covers every particle when the scene has a body.
 *
 * SKINNING (once a frame, shaders/xpbd/skin.comp): each drawn vertex
 * p = sum_k weights_k x_{idx_k} from the slot's snapshot; normals by the
 * shared mesh-normal kernels.
 */
#pragma once
