/* sim/coupling/coupling_cpu: the CPU reference of one coupling substep
 * (coupling/weights, coupling/contact, then coupling/release and coupling/apply;
 * docs/COUPLING.md) on a
 * dense snow grid, the layout of fl_snow_read_grid_dense: node (x, y, z) at
 * (z dims_y + y) dims_x + x, 8 floats each (v_{n+1}, m, v_n, 0). The tests
 * compare the GPU passes with it. */
#pragma once
#include "coupling_shared.h"

#include <stdbool.h>
#include <stdint.h>

/* The state between the two halves: the node accumulator (FL_COUPLING_NODE_WORDS int32 per node of
 * the dense grid) and the attachments (FL_COUPLING_ATTACH_VEC4S vec4 per particle). */
typedef struct {
  int32_t (*acc)[4];
  float (*attach)[4];
  int32_t (*surface_acc)[4];  /* per particle: the added mass and momentum of its samples (coupling_shared.h) */
  float (*sample_attach)[4];  /* FL_COUPLING_SAMPLE_VEC4S per surface sample */
  uint8_t *reached;           /* per node: a surface sample reaches it (coupling/surface_weights' mark) */
} fl_coupling_cpu;

/* The surface samples of a substep (coupling/surface_*): the samples (uvec4, surface_samples.h), the
 * XPBD triangles (3 indices each) and their face normals at the contact's state (coupling/normals). */
typedef struct {
  const uint32_t (*samples)[4];
  uint32_t count;
  const uint32_t *triangles;
  const float (*face_normals)[4];
} fl_coupling_cpu_surface;

/* The first half (weights, surface weights, surface contact, contact): reads pos (xyz, w = 1/m), coupled (flag per particle), the
 * sheets' vertex normals (vec4 per particle, coupling/normals; NULL: every particle takes -d / |d|) and the
 * grid, and the surface samples (NULL: none); updates vel, pos's w of the attached particles, impulse
 * (particle_count entries, then one per sample: the pinned contacts' -J and |J|), the deferred words
 * (FL_COUPLING_DEFERRED_WORDS int32 per particle: push->hold adds the free particles' reactions, a
 * coupled contact takes them in and zeroes them), and fills *out. Returns false (out of memory) only;
 * free *out with fl_coupling_cpu_free. */
bool fl_coupling_cpu_contact(const fl_coupling_push *push, uint32_t particle_count, float (*pos)[4], float (*vel)[4],
                             const uint32_t *coupled, const float (*normals)[4], float (*impulse)[4],
                             int32_t (*deferred)[4], const float (*grid)[8], const fl_coupling_cpu_surface *surface,
                             fl_coupling_cpu *out);
/* The second half (release, surface release, apply): parts the attached particles and samples from
 * their parcels (vel, pos's w, impulse) and adds the nodes' impulses to the grid's v_{n+1}. */
void fl_coupling_cpu_release(const fl_coupling_push *push, uint32_t particle_count, float (*pos)[4], float (*vel)[4],
                             const uint32_t *coupled, float (*impulse)[4], float (*grid)[8],
                             const fl_coupling_cpu_surface *surface, fl_coupling_cpu *state);
void fl_coupling_cpu_free(fl_coupling_cpu *state);
