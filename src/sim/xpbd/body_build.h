/* sim/xpbd/body_build: everything about one soft body or balloon that is
 * decided once, on the CPU, at load (softbody_spec.h, BUILD): particles and
 * masses, edges, tets, the closed surface, the body's volume record, and for
 * soft bodies the drawn surface with its skinning weights. Indices are local
 * to the body; the XPBD system appends bodies after the cloth objects
 * (sim/xpbd/xpbd_build.c). */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "flurry_shared.h"
#include "scene/scene.h"
#include "sim/common/mesh_cpu.h"

typedef struct {
  uint32_t particle_count;
  float (*positions)[4];        /* xyz, w = inverse mass */
  uint32_t edge_count;
  uint32_t (*edges)[2];         /* distance constraints (FL_DISTANCE_EDGE or _STRETCH) */
  uint32_t edge_kind;
  float edge_compliance;
  uint32_t tet_count;           /* tet constraint records (two per tet for Neo-Hookean) */
  fl_gpu_tet *tets;
  uint32_t triangle_count;      /* the closed surface, counter-clockwise from outside */
  uint32_t (*triangles)[3];
  uint32_t bend_count;          /* balloons: one per edge (xpbd_spec.h stencils) */
  fl_gpu_bend *bends;
  fl_gpu_xpbd_object object;   /* contact, damping (grid filled when appended) */
  fl_gpu_body body;             /* volume record (ranges filled when appended) */
  float velocity[3];
  float measure_after;          /* s: volume loss is tracked from then on */
  fl_cpu_mesh render;           /* soft bodies: the drawn surface (vertex_count 0: draw `triangles`) */
  fl_gpu_skin *skin;            /* render.vertex_count records, local particle indices */
  uint32_t tet_volume_count;    /* tets (not records): for the report */
  float spacing;                /* voxel cell edge (m), 0 for TetGen input and balloons */
  float tear_strain;            /* balloons: tear_strain (0: never tears) */
} fl_body_build;

/* Builds a soft body; one-line errors name the object. */
bool fl_softbody_build(const fl_softbody_desc *d, const char *name, fl_body_build *out);
/* Builds a balloon. */
bool fl_balloon_build(const fl_balloon_desc *d, const char *name, fl_body_build *out);
/* The body's mass (sum of 1/w). */
double fl_body_build_mass(const fl_body_build *b);
void fl_body_build_free(fl_body_build *b);
