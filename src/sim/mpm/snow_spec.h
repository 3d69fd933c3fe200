/* sim/mpm/snow_spec: the MPM snow algorithm (Stomakhin et al. 2013; NOTES.md
 * section 4), stated once. The GPU kernels (shaders/mpm/) and the CPU
 * reference (sim/mpm/snow_cpu.c) implement exactly this; tests compare them.
 * Optional transfer per object: MLS-MPM / APIC with quadratic weights (Hu et
 * al. 2018), beside the paper's cubic PIC/FLIP.
 *
 * SYSTEM. Every snow object of a scene lives in one MPM system: one particle
 * array, one grid, so snow objects collide with each other through the grid.
 * They must share grid_spacing h and beta (a clear error otherwise). Each
 * object is a material record (fl_snow_material, mpm_shared.h), indexed by
 * its order among the scene's snow objects.
 *
 * GRID. Node (i, j, k) sits at origin + (i, j, k) h, origin_a = 4h floor((domain_min_a
 * - 2h) / 4h) (at most domain_min - 2h, and a multiple of the block size, so the
 * same snow takes the same blocks in any domain box); nodes per axis n_a =
 * ceil((domain_max_a - origin_a) / h) + 3, so the stencil of a particle anywhere
 * in [domain_min, domain_max] is inside this lattice. The lattice is virtual: the GPU grid is SPARSE (issue 14). Blocks of
 * 4x4x4 nodes, block (bx, by, bz) holding nodes 4b .. 4b + 3, key
 * (bz B_y + by) B_x + bx with B_a = ceil(n_a / 4). Each substep, every block a
 * particle's stencil touches (cells floor(fx) - 1 .. floor(fx) + 2 per axis,
 * which holds the cubic and the quadratic stencil: 1 to 8 blocks) is inserted
 * into an open-addressing hash (lowbias32 of the key, linear probing) and takes
 * the next slot; node l = (z 16 + y 4 + x) of the block in slot s is node
 * 64 s + l of the accumulator and grid velocity buffers. Slots: block_capacity
 * = sim.snow_grid_slack (default 4) x the blocks the seeded snow touches, at least
 * FL_SNOW_BLOCK_SPARE (64) more, at most what maxStorageBufferRange holds (a
 * clear error at load when the seeded snow alone needs more). When a frame's
 * busiest substep used over half the slots, the grid grows before the next
 * frame (fl_snow_grow: at least twice the slots). A block beyond the capacity
 * gets no slot: its particles' contributions are dropped and the health watch
 * names the snow (FL_HEALTH_GRID_FULL). The CPU reference keeps
 * the dense lattice, linear node index (k n_y + j) n_x + i; the tests map the
 * GPU's blocks onto it (fl_snow_read_grid_dense).
 *
 * SEEDING (at load, CPU). A lattice of spacing s = h / cbrt(particles_per_cell)
 * over the shape's bounding box, each point jittered by +-s/4 per axis with a
 * seeded xorshift (the same every run), kept when inside the shape (sphere,
 * box, or the OBJ's winding number; sim/common/solid.h) and inside the domain.
 * m_p = density s^3. v_p = velocity. F_E = I, J_P = 1, C_p = 0.
 *
 * PARTICLE STATE (structure of arrays, vec4 each):
 *   pos[p]        = (x_p, m_p)
 *   vel[p]        = (v_p, V0_p)
 *   fe[3p + r]    = row r of F_E; fe[3p].w = J_P (det F_P: all the energy
 *                   needs of F_P), fe[3p+1].w = material index (float),
 *                   fe[3p+2].w = 1 if the last step clamped a singular value
 *   stress[2p+0]  = (K_xx, K_yy, K_zz, K_xy), stress[2p+1] = (K_xz, K_yz, 0, material):
 *                   K = V0_p (dPsi/dF_E) F_E^T (symmetric), computed at the end
 *                   of G2P for the next P2G (zero while F_E = I); the material
 *                   index is kept here too, so P2G reads no F_E
 *   affine[3p + r]= row r of C_p (APIC; zero for pic_flip particles)
 *
 * WEIGHTS. fx = (x_p - origin) / h per axis.
 *   cubic (pic_flip): base = floor(fx) - 1, nodes base + 0..3, d = fx - node;
 *     N(d) = 1/2|d|^3 - d^2 + 2/3 (|d| < 1), -1/6|d|^3 + d^2 - 2|d| + 4/3 (|d| < 2);
 *     N'(d) = 3/2 d|d| - 2d (|d| < 1), -1/2 d|d| + 2d - 2 sign(d) (|d| < 2).
 *     w_ip = N(dx) N(dy) N(dz); grad w_ip = (N'(dx)N(dy)N(dz), N(dx)N'(dy)N(dz),
 *     N(dx)N(dy)N'(dz)) / h.
 *   quadratic (apic): base = floor(fx - 0.5), nodes base + 0..2, d = fx - node;
 *     N(d) = 3/4 - d^2 (|d| < 1/2), 1/2 (3/2 - |d|)^2 (|d| < 3/2).
 *
 * GRID ACCUMULATOR: 8 words per node, acc[8i + 0..7] = (P.xyz, m, Q.xyz, 0):
 * momentum P, mass m, impulse Q = dt f. Float atomics add floats; the
 * fixed-point path adds int32 round(value * scale): mass_scale = 2^20 / m_max
 * for m, momentum_scale = 2^20 / m_max (kg m/s) for P and Q, m_max the largest
 * particle mass (FL_SNOW_FIXED_*_BITS). Headroom: the weights of a particle sum
 * to 1, so a node of snow at density rho gathers about rho h^3 = ppc m_p; at
 * FL_SNOW_FIXED_COMPRESSION (4) times that, the mass uses 4 ppc 2^20 <= 2^28
 * units (ppc <= 64) and int32 holds node speeds up to 2^31 / (4 ppc 2^20) =
 * 512 / ppc m/s (64 m/s at the default 8 particles per cell). The build checks
 * that this is at least twice the fastest initial speed (a clear error
 * otherwise), and the CPU reference sums in int64 and fails on a node beyond
 * int32, where the GPU's sum would wrap. Resolution: a light node (m = 1e-3
 * m_max) resolves 1e-3 m/s. (2^16 was too coarse: a contribution w m v rounds
 * to 0 below w |v| < 2^-17 m_max / m_p, so the fringe nodes of a body lost
 * momentum, ~1e-3 of it in 12 frames.) When no material is pic_flip the
 * impulse is folded into P (flag FL_MPM_FOLD_IMPULSE) and Q stays 0.
 *
 * ONE SUBSTEP of length dt, ending at time t:
 *  0. clear acc (fill 0), the block hash (FL_SNOW_NO_BLOCK), the per-substep
 *     stats words (clamped count, block counter); allocate the blocks (GRID).
 *  1. P2G (Eq. 1, 6), each particle p, each node i of its stencil:
 *     pic_flip: m_i += w m_p; P_i += w m_p v_p; Q_i += -dt K_p grad w_ip.
 *     apic:     m_i += w m_p; P_i += w m_p (v_p + C_p (x_i - x_p));
 *               Q_i += -dt (4/h^2) w K_p (x_i - x_p).
 *  2. GRID UPDATE, each node with m_i > 0 (others: velocities 0):
 *     v_n = P_i / m_i;  v* = (P_i + Q_i) / m_i + dt g, but v* = v_n + dt g for a
 *     LIGHT node, m_i < FL_SNOW_LIGHT_NODE m_max (params.z): at the edge of a
 *     cubic stencil w ~ d^3 while grad w ~ d^2, so Q_i / m_i ~ 1/d grows without
 *     bound as a particle nears a node plane and such nodes explode (observed:
 *     4e7 m/s at m = 1e-20 kg). The force dropped there is below the threshold's
 *     share of a particle's stress; every node keeps its gravity, so uniform
 *     motion stays exact;
 *     collisions at the node position x_i at time t (below) -> v_{n+1};
 *     gridv[2i] = (v_{n+1}, m_i), gridv[2i+1] = (v_n, 0).
 *     (beta > 0: the semi-implicit solve of step 6 replaces v* before the
 *     collisions are applied again; sim/mpm/snow_implicit.h.)
 *  3. G2P, each particle:
 *     pic_flip: v_pic = sum w v_{n+1,i}; v_flip = v_p + sum w (v_{n+1,i} - v_{n,i});
 *               v_p = (1 - alpha) v_pic + alpha v_flip; grad v = sum v_{n+1,i} (grad w_ip)^T.
 *     apic:     v_p = sum w v_{n+1,i}; C_p = (4/h^2) sum w v_{n+1,i} (x_i - x_p)^T; grad v = C_p.
 *     F~ = (I + dt grad v) F_E; SVD F~ = U S V^T (U, V rotations, S may have a
 *     negative last entry); S^ = clamp(S, 1 - theta_c, 1 + theta_s) (clamped
 *     flag: any entry changed); J_P *= |S0 S1 S2| / (S^0 S^1 S^2) (an inverted
 *     F~, S2 < 0, is clamped upright: J_P stays positive);
 *     F_E = U S^ V^T. (F_P = V S^-1 U^T F~ is implied: det F_P = J_P.)
 *     Hardening (Eq. NOTES 4): k = exp(min(xi (1 - J_P), ln FL_SNOW_HARDENING_MAX)),
 *     mu = mu0 k, lambda = lambda0 k; J_E = S^0 S^1 S^2;
 *     K = V0 [2 mu U (S^ - I) S^ U^T + lambda (J_E - 1) J_E I]
 *     (= V0 (2 mu (F_E - R_E) F_E^T + lambda (J_E - 1) J_E I), R_E = U V^T).
 *     Particle collisions (same rule, at x_p, time t) on v_p, then
 *     x_p += dt v_p, then x_p clamped into [domain_min, domain_max].
 *     Stats: max |v_p|, min and max J_P, clamped count, non-finite count.
 *
 * COLLISIONS (NOTES.md section 4). At position x and time t, for each
 * collider c with phi_c(x, t) <= 0 (sdf.glsl), then for each domain wall the
 * position is on or beyond (a plane, v_co = 0): n = the collider's normal
 * (sim.collider_normals), v_co = its velocity at t, v_rel = v - v_co,
 * v_n = v_rel . n; if v_n < 0: v_t = v_rel - n v_n; v_rel = 0 when
 * |v_t| <= -mu v_n, else v_t + mu v_n v_t / |v_t|; v = v_rel + v_co.
 * mu = the material's friction (FL_SNOW_STICKY, i.e. mu = infinity, for
 * "sticky"). Grid nodes use the material of the first snow object (the grid
 * has no material; all snow objects' friction must then agree, else the first
 * one's rules the grid and each particle uses its own).
 *
 * FIRST STEP VOLUMES (Eq. step 2, at load): clear, P2G, grid update with dt = 0,
 * then each particle: rho_p = sum_i m_i w_ip / h^3, V0_p = m_p / rho_p.
 *
 * SUBSTEPS (CFL, adaptive). dt = frame_dt / n with n the least count such that
 * dt <= FL_SNOW_CFL h / v_max and dt <= FL_SNOW_ELASTIC_CFL h / c, with
 * c = sqrt((lambda0 + 2 mu0) k_max / rho0) over materials, k_max the hardening
 * of the smallest J_P; v_max and J_P come from the stats of the latest frame
 * the CPU has collected (no stall), plus |g| frame_dt for the frames in between;
 * n >= min(sim.substeps, FL_SNOW_MAX_SUBSTEPS), n <= FL_SNOW_MAX_SUBSTEPS (a frame whose CFL limits need more warns once,
 * and the report counts capped_frames). With
 * beta > 0 the elastic limit is FL_SNOW_IMPLICIT_ELASTIC_GAIN times longer: the
 * semi-implicit solve (step 6, snow_implicit.h) is stable there, where the
 * explicit step blows up (tests/gpu/test_snow_implicit, compressed_block).
 *
 * SORT. Once a frame, before the substeps: key = the block key of the cell
 * floor(fx) of each particle, times 64, plus the cell's place z 16 + y 4 + x in
 * the block (just the block key when the lattice's blocks times 64 exceed 32
 * bits), a stable radix sort (common/radix_sort.h), then every particle array
 * is permuted into key order: particles stay sorted by block.
 *
 * P2G TILE (issue 14 item 2; the sums are the same up to float rounding, and
 * exactly the same in fixed point). A workgroup takes consecutive particles; if
 * their stencils fit a box of 8x8x8 nodes, each particle adds into that box in
 * shared memory (int32 fixed-point atomics, or compare-and-swap on float bits)
 * and the box is then added into the grid once per nonzero node word; else the
 * workgroup adds straight into the grid. */
#pragma once
#include "mpm_shared.h"
