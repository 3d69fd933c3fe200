// massspring/buffers.glsl: the binding numbers of a mass-spring object's
// buffers (src/sim/massspring/ms_gpu.c). Every kernel declares only the ones
// it uses, at these numbers, so one table of buffers serves them all.
#ifndef FL_MS_BUFFERS_GLSL
#define FL_MS_BUFFERS_GLSL
#define FL_MS_B_POS 0        // vec4: xyz, w = inverse mass (0: pinned)
#define FL_MS_B_VEL 1        // vec4: xyz velocity
#define FL_MS_B_FIRST 2      // uint per particle + 1: offsets into the links
#define FL_MS_B_LINKS 3      // uvec2 per (particle, spring): x = other end, y = rest length bits
#define FL_MS_B_DV 4         // vec4: the step's velocity change (Jacobi: iterate k; CG: x)
#define FL_MS_B_DV_NEXT 5    // vec4: Jacobi iterate k + 1
#define FL_MS_B_RHS 6        // vec4: b of A dv = b
#define FL_MS_B_DIAG 7       // vec4 x 2 per particle: A_ii (xx, yy, zz, -), (xy, xz, yz, -)
#define FL_MS_B_CG_R 8       // vec4: CG residual
#define FL_MS_B_CG_P 9       // vec4: CG direction
#define FL_MS_B_CG_Q 10      // vec4: A p
#define FL_MS_B_RESULTS 11   // float: reduction result slots (FL_MS_SLOT_*)
#define FL_MS_B_INITIAL 12   // vec4: initial positions (divergence reset)
#define FL_MS_B_STATUS 13    // uint: FL_MS_STATUS_*
#define FL_MS_B_POS_OUT 14   // vec4: E's next positions (the ping-pong twin of POS)
#define FL_MS_B_VEL_OUT 15   // vec4: E's next velocities (the ping-pong twin of VEL)
#define FL_MS_B_COUNT 16
#endif
