/* shaders/common/coupling_shared.h: layouts and constants of the snow <->
 * cloth/soft-body coupling kernels (shaders/coupling/), shared by C
 * (src/sim/coupling/) and GLSL. The scheme: docs/COUPLING.md. */
#ifndef FL_COUPLING_SHARED_H
#define FL_COUPLING_SHARED_H
#include "flurry_shared.h"

/* The per-node accumulator: 4 int32 words per node of the snow's sparse grid:
 * the impulse on the node (x, y, z, fixed point, FL_COUPLING_MOMENTUM_BITS) and
 * the summed B-spline weight of the XPBD particles reaching it (W_i, FL_COUPLING_WEIGHT_BITS).
 * Integer atomics are Vulkan 1.0 core, so every device (SwiftShader too) takes one path,
 * and the sums do not depend on the order of the atomics. */
#define FL_COUPLING_NODE_WORDS 4u
#define FL_COUPLING_WEIGHT_BITS 22      /* W_i units per unit weight: 2^22 (W_i < 512 fits) */
#define FL_COUPLING_MOMENTUM_BITS 18    /* impulse units per (kg m/s / snow particle mass) */
#define FL_COUPLING_MIN_SHARE 1e-6      /* a parcel lighter than this x the snow particle mass: no contact */
/* The per-particle word of the coupled buffer: 0 does not couple; a SURFACE particle (cloth: a
 * sheet with no thickness) takes s_ip = w_ip / W_i of each node it reaches; a VOLUME particle (soft
 * body: it stands for one cell of material) at most w_ip, s_ip = w_ip / max(W_i, 1); a CLOSED particle
 * (balloon: a closed sheet) is a sheet's (its own normal, w_ip / W_i) whose triangles are also
 * sampled, as a soft body's are (docs/COUPLING.md, shares and surface samples). */
#define FL_COUPLING_SURFACE 1u
#define FL_COUPLING_VOLUME 2u
#define FL_COUPLING_CLOSED 3u

/* Push constants of every coupling kernel. */
FL_STRUCT_BEGIN(fl_coupling_push)
  vec3 grid_origin;   /* the snow grid's node (0,0,0) */
  float h;            /* node spacing (m) */
  uvec3 grid_dims;    /* nodes per axis of the snow's (virtual, dense) lattice */
  uint particle_count; /* XPBD particles */
  float inv_h;
  float lag;          /* (s): how far the XPBD state is ahead of the snow substep's start (<= 0: behind
                       * it, in a run of the "xpbd" order); the boundary there is x_p - lag v_p
                       * (docs/COUPLING.md, substep order) */
  float friction;     /* Coulomb coefficient of the contact (the snow's; FL_SNOW_STICKY: sticky) */
  float weight_scale; /* W_i units per unit weight */
  float momentum_scale; /* impulse units per kg m/s */
  float min_mass;     /* parcels lighter than this (kg) make no contact */
  uint node_count;    /* snow grid nodes allocated (block_capacity x 64) */
  uint hash_mask;     /* the snow block hash's entries - 1 */
  uint block_grid_x;  /* blocks per axis of the snow block lattice */
  uint block_grid_y;
  uint sample_count;  /* surface samples (coupling/surface_*) */
  uint hold;          /* 1: a hold substep (sim.coupling_substeps "xpbd", a run's uncoupled snow substep):
                       * every particle and sample is an immovable boundary and the free ones' reactions
                       * go to the deferred buffer; 0: a coupled substep, which takes them in */
  vec3 gravity_h;     /* g h of the snow substep: the grid's gravity, taken back from an attached parcel
                       * because the XPBD substeps give it to the particle that carries it */
  float pad2;
FL_STRUCT_END(fl_coupling_push)

/* The attachment of XPBD particle p for one snow substep (3 vec4s, contact.comp -> release.comp):
 *   [0] xyz: the stencil's point, w: its own parcel's mass M (0: none)
 *   [1] xyz: the particle's own velocity offset from the carried velocity (0: it moves with the
 *       pair), w: its own 1/m (0: it carries nothing, neither its own parcel nor its samples')
 *   [2] xyz: the parcel's offset from the pair (its slip u'), less its velocity before the contact */
#define FL_COUPLING_ATTACH_VEC4S 3u

/* The deferred momentum of XPBD particle p (4 int32: x, y, z in FL_COUPLING_MOMENTUM_BITS units, and
 * one unused): what the hold substeps of a run gave p (the reactions of the snow stopped against it,
 * its samples' shares by their barycentric weights; integer atomics), added to p's pair by the next
 * coupled substep's contact, which zeroes it (docs/COUPLING.md, "xpbd" order). */
#define FL_COUPLING_DEFERRED_WORDS 4u

/* Surface samples (docs/COUPLING.md, "Surface samples"): a closed body's (soft body's) surface
 * triangles are sampled at the centroids of the n x n sub-triangles of each (a quadrature of the
 * triangle, after Jiang et al. 2017's cloth-in-MPM quadrature points), n = ceil(longest rest edge /
 * (FL_COUPLING_SAMPLE_SPACING h)), at most FL_COUPLING_SAMPLE_MAX_N (sub-triangle edges at most a cell:
 * the centroids about half a cell apart). A sample is a uvec4: the triangle,
 * the bits of its barycentric weights b0 and b1 (b2 = 1 - b0 - b1) and of its scale. It meets its
 * parcel like a particle; its 3 vertices carry the parcel by b_k through the XPBD substeps (the
 * surface accumulator: 4 int32 per XPBD particle, the added mass and momentum, FL_COUPLING_MOMENTUM_BITS
 * units), and its attachment (FL_COUPLING_SAMPLE_VEC4S vec4s: [0] the stencil's point and the parcel's
 * mass, [1] its slip less its velocity before the contact) gives it its velocity back at the release.
 * A sample stands for its share A_s of its triangle's area as a particle stands for a cell: its
 * B-spline weights count A_s / h^2 of a particle's (its scale), with the soft body's volume share, so
 * the samples of a cell's area of surface add up to one particle's weight however finely they split it. */
#define FL_COUPLING_SAMPLE_SPACING 1.0f
#define FL_COUPLING_SAMPLE_MAX_N 8u
#define FL_COUPLING_SAMPLE_VEC4S 2u

#define FL_COUPLING_SUM_GROUP 64u       /* coupling/sum: one workgroup of this many threads */

#endif
