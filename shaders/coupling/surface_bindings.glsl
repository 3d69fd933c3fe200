// coupling/surface_bindings.glsl: the buffers of coupling/surface_weights, surface_contact and
// surface_release (the surface samples of closed bodies, docs/COUPLING.md "Surface samples"), in the
// order src/sim/coupling/coupling.c binds them (fl_coupling_record_contact, _release): the XPBD
// particles' positions (w = 1/m) and velocities, the samples (coupling_shared.h), the snow's block
// hash, the node accumulator (impulse words, W_i), the snow's grid velocities (w = node mass), the
// impulses (the samples' after the particles'), the samples' attachments, the XPBD triangles' face
// normals of this substep (coupling/normals), the triangles, and the surface accumulator (added mass
// and momentum per particle), the coupled word per particle, and the deferred momentum per particle
// (coupling_shared.h). Also the sample's point and velocity from its triangle.
// A kernel declares the push `pc` before including it.
#ifndef FL_COUPLING_SURFACE_BINDINGS_GLSL
#define FL_COUPLING_SURFACE_BINDINGS_GLSL
layout(std430, binding = 0) buffer Pos { vec4 pos[]; };
layout(std430, binding = 1) buffer Vel { vec4 vel[]; };
layout(std430, binding = 2) readonly buffer Samples { uvec4 samples[]; };
layout(std430, binding = 3) readonly buffer BlockHash { uint block_hash[]; };
layout(std430, binding = 4) buffer Accum { int accum[]; };
#ifdef FL_COUPLING_MARK  // coupling/surface_weights: the grid's words, to mark the nodes its samples reach
layout(std430, binding = 5) buffer GridBits { uint grid_bits[]; };
#define FL_COUPLING_WEIGHTS
#else
layout(std430, binding = 5) readonly buffer GridVelocity { vec4 gridv[]; };
#define FL_COUPLING_NODES
#endif
layout(std430, binding = 6) buffer Impulse { vec4 impulse[]; };
layout(std430, binding = 7) buffer SampleAttach { vec4 sample_attach[]; };
layout(std430, binding = 8) readonly buffer FaceNormal { vec4 face_normal[]; };
layout(std430, binding = 9) readonly buffer Triangles { uint triangles[]; };
layout(std430, binding = 10) buffer SurfaceAccum { int surface_accum[]; };
layout(std430, binding = 11) readonly buffer Coupled { uint coupled[]; };
layout(std430, binding = 12) buffer Deferred { int deferred[]; };
#define FL_COUPLING_DEFERRED
#include "coupling.glsl"

// A sample: its triangle's vertices, their barycentric weights, and its weights' scale (its area / h^2).
struct fl_coupling_sample {
  uvec3 v;
  vec3 b;
  float scale;
  uint tri;
  uint kind;  // its share rule: its body's coupled word (fl_coupling_share)
};

fl_coupling_sample fl_coupling_sample_of(uint s)
{
  uvec4 r = samples[s];
  fl_coupling_sample q;
  q.tri = r.x;
  q.v = uvec3(triangles[3u * r.x], triangles[3u * r.x + 1u], triangles[3u * r.x + 2u]);
  float b0 = uintBitsToFloat(r.y), b1 = uintBitsToFloat(r.z);
  q.b = vec3(b0, b1, 1.0 - b0 - b1);
  q.scale = uintBitsToFloat(r.w);
  q.kind = coupled[q.v.x];
  return q;
}

// The sample's velocity: its vertices' by the barycentric weights.
vec3 fl_coupling_sample_velocity(fl_coupling_sample q)
{
  return q.b.x * vel[q.v.x].xyz + q.b.y * vel[q.v.y].xyz + q.b.z * vel[q.v.z].xyz;
}

// The sample's boundary point (fl_coupling_point of its interpolated position and velocity).
vec3 fl_coupling_sample_point(fl_coupling_sample q, vec3 v)
{
  vec3 x = q.b.x * pos[q.v.x].xyz + q.b.y * pos[q.v.y].xyz + q.b.z * pos[q.v.z].xyz;
  return fl_coupling_point(vec4(x, 0.0), v);
}
#endif
