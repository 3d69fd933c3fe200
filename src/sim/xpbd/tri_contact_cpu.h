/* sim/xpbd/tri_contact_cpu: the CPU reference of triangle contacts
 * (shaders/xpbd/tri_contact.glsl, tri_vertex/tri_edge/tri_apply.comp; docs/CLOTH.md)
 * and the exact segment-triangle test the tests check meshes with. The
 * candidates are every pair (brute force), which the GPU's hash must equal:
 * its cells hold every pair within reach (tri_contact_build.h). */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "sim/xpbd/collide_cpu.h"
#include "sim/xpbd/tri_contact_build.h"

/* Barycentric weights of the point of triangle (a, b, c) nearest p (Ericson 2005, 5.1.5). */
void fl_tri_closest_on_triangle(const float p[3], const float a[3], const float b[3], const float c[3],
                                float bary[3]);
/* Parameters (s, t) of the nearest points of segments p1-q1 and p2-q2 (Ericson 2005, 5.1.9). */
void fl_tri_closest_on_segments(const float p1[3], const float q1[3], const float p2[3], const float q2[3],
                                float st[2]);
/* One contact (fl_contact_solve in tri_contact.glsl): false when none; else the four corrections in dx.
 * outward: a body triangle's unit face normal (zeros for none): it replaces a start-of-substep
 * direction that points against it (a vertex that began the substep inside the body). */
bool fl_tri_contact_solve(float x[4][3], float xp[4][3], const float w[4], const float c[4], float reach,
                          float mu_s, float mu_k, const float outward[3], float dx[4][3]);
/* The colliders of a substep as the contact passes see them (time t, normals
 * tetrahedral or not, h the substep for their friction). */
typedef struct {
  const fl_gpu_collider *colliders;
  uint32_t count;
  float t;
  bool tetrahedral;
  float h;
} fl_tri_colliders;

/* One contact pass over the particles x (4 floats each, w = inverse mass) with
 * the substep's start prev: vertex-triangle (every pair, or when x_list is not
 * NULL only those the GPU's pair list holds: the vertex within reach of the
 * triangle at x_list, xpbd/tri_pairs.comp), then edge-edge contacts (with
 * x_list, those within reach there; with the contact guard x_list is the substep's start and
 * "within reach" within FL_TRI_GUARD_LIST reach, the list's rule), then colliders against the triangles of every cloth
 * (fl_tri_colliders_cpu, tri_collider.comp), summed in accum (4 int32 per particle, zero on entry
 * and on return), then applied by fl_tri_apply_cpu with the colliders' priority `priority`. */
void fl_tri_contacts_cpu_pass(const fl_xpbd_build *b, const fl_tri_contacts *tc,
                              const fl_tri_colliders *cols, float (*x)[4], const float (*prev)[4],
                              const float (*x_list)[4], int32_t (*accum)[4], uint32_t *contact,
                              const fl_collide_env *priority);
/* The contact guard (tri_guard_bound.comp, tri_guard_clamp.comp; nothing when
 * tc->guard is 0): every pair within the listing radius at prev (the GPU's
 * list), g apart there along n, limits each of its particles' approach along
 * n to FL_TRI_GUARD_SHARE g (less rounding) by scaling its move x - prev, and
 * each colliding particle in a triangle with w > 0 moves at most tc->guard
 * (less rounding) from prev. bound: particle_count floats of scratch. */
void fl_tri_guard_cpu(const fl_xpbd_build *b, const fl_tri_contacts *tc, float (*x)[4], const float (*prev)[4],
                      float *bound);
/* Adds a contact's corrections dx (of particles idx, inverse masses w; w = 0 or
 * dx = 0: none) to the fixed-point sums accum (tri_accumulate.glsl). */
void fl_tri_accumulate_cpu(int32_t (*accum)[4], const uint32_t idx[4], const float w[4], float dx[4][3]);
/* Applies the sums (tri_apply.comp): x += (sum / FL_TRI_FIXED) / count, contact = 1, sums cleared.
 * priority (NULL: none; tri_apply_colliders.comp, the last pass): every particle with w > 0 is then
 * projected out of the colliders and walls (fl_collide_particle_cpu), contact = 1 where it touched. */
void fl_tri_apply_cpu(uint32_t particle_count, int32_t (*accum)[4], float (*x)[4], uint32_t *contact,
                      const fl_collide_env *priority);
/* True when the closed segment p-q meets the closed triangle (a, b, c) (in double;
 * a segment lying in the triangle's plane never counts). */
bool fl_segment_hits_triangle(const double p[3], const double q[3], const double a[3], const double b[3],
                              const double c[3]);
