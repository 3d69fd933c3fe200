// coupling/coupling_bindings.glsl: the buffers of coupling/contact and coupling/release, in the
// order src/sim/coupling/coupling.c binds them beside each dispatch (fl_coupling_record_contact,
// fl_coupling_record_release): the XPBD particles' positions (w = 1/m) and velocities, the coupled
// word per particle, the snow's block hash, the node accumulator (impulse words, W_i), the snow's
// grid velocities (w = node mass), the impulses the snow gave each particle, the attachments, and
// the XPBD surface's vertex normals of this substep (common/vertex_normals on the live positions),
// and the surface accumulator (the added mass and momentum the surface samples gave each particle to
// carry, coupling/surface_contact; coupling_shared.h), and the deferred momentum per particle (what
// the hold substeps gave it, coupling_shared.h).
// A kernel declares the push `pc` before including it.
#ifndef FL_COUPLING_BINDINGS_GLSL
#define FL_COUPLING_BINDINGS_GLSL
layout(std430, binding = 0) buffer Pos { vec4 pos[]; };
layout(std430, binding = 1) buffer Vel { vec4 vel[]; };
layout(std430, binding = 2) readonly buffer Coupled { uint coupled[]; };
layout(std430, binding = 3) readonly buffer BlockHash { uint block_hash[]; };
layout(std430, binding = 4) buffer Accum { int accum[]; };
layout(std430, binding = 5) readonly buffer GridVelocity { vec4 gridv[]; };
layout(std430, binding = 6) buffer Impulse { vec4 impulse[]; };
layout(std430, binding = 7) buffer Attach { vec4 attach[]; };
layout(std430, binding = 8) readonly buffer Normal { vec4 normal[]; };
layout(std430, binding = 9) readonly buffer SurfaceAccum { int surface_accum[]; };
layout(std430, binding = 10) buffer Deferred { int deferred[]; };
#define FL_COUPLING_DEFERRED
#define FL_COUPLING_NODES
#define FL_COUPLING_PARTICLES
#include "coupling.glsl"
#endif
