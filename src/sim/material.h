/* sim/material: the material table. A material module (particles, XPBD,
 * mass-spring, snow) is one row of operations; the world keeps one instance of
 * each material its scene uses, holding all of that material's objects, and
 * loops over the rows in table order for every step of a frame:
 *
 *   create          from the scene objects it owns (scene order)
 *   record_substep  each of the world's fixed substeps (sim.substeps)
 *   record_frame    once a frame, for materials that plan their own substeps (snow) or
 *                   record each object's fixed substeps together (mass-spring)
 *   record_publish  the render snapshot of the frame slot, once a frame
 *   record_health   the health check of each object, once a frame (sim/common/health.h)
 *   collect         after the slot's fence: its asynchronous readbacks
 *   views           what render draws, straight from its buffers
 *   pick_targets    what the mouse can grab
 *   read_state      an object's positions and velocities (reports, dumps; waits)
 *   stats           an object's own figures (its section of the report; waits)
 *   summary         the scene-level figures and printed lines after a run
 *   particle_count, largest_buffer, destroy
 *
 * Adding a material: a folder under sim/, a row (const fl_material_ops) in it,
 * and one line in the world's table (sim/world.c). */
#pragma once
#include "gpu/profiler.h"
#include "gpu/rec.h"
#include "scene/scene.h"
#include "sim/common/health.h"
#include "sim/common/pick.h"
#include "sim/common/sdf_cpu.h"
#include "sim/stats.h"
#include "sim/step.h"

/* What a material's create gets from the world. */
typedef struct {
  fl_gpu *gpu;
  fl_descriptor_cache *sets;      /* the world's: load-time passes record with it */
  const fl_scene *scene;          /* outlives the material */
  const fl_buffer *colliders;     /* the collider uniform buffer (FL_MAX_COLLIDERS records) */
  const fl_collider_block *colliders_cpu; /* its CPU copy (sim/common/sdf_cpu.h), for load-time checks */
  uint32_t collider_count;
  fl_health *health;              /* the world's health watch ... */
  uint32_t health_word;           /* ... where the row's object k has flag word health_word + k */
} fl_material_env;

typedef enum {
  FL_VIEW_PARTICLES,
  FL_VIEW_MESH,
  FL_VIEW_SNOW,        /* snow impostors: positions xyz, w = grid density at the particle (kg/m^3) */
  FL_VIEW_SNOW_VOLUME, /* the snow grid's density (float per node, kg/m^3) as a volume */
} fl_view_kind;

/* One thing render draws, straight from GPU buffers. */
typedef struct {
  fl_view_kind kind;
  const fl_buffer *positions; /* vec4 per particle (xyz, speed) or per vertex */
  const fl_buffer *normals;   /* meshes: vec4 per vertex */
  const fl_buffer *indices;   /* meshes: uint32 */
  uint32_t first;             /* meshes: first index */
  uint32_t count;             /* particles, or indices */
  float radius;               /* particles */
  float color[4];
  float offset[3];            /* translation (moving colliders) */
  float rotation[4];          /* meshes: quaternion xyzw applied before the offset; zero: none */
  uint32_t look;              /* meshes: FL_LOOK_* (flurry_shared.h): plain, fabric or glossy */
  bool cutaway;               /* meshes: a container (its winding turned inward): only the faces
                               * whose inside the camera sees are drawn, the far walls, so what it
                               * holds shows; it casts no shadow (it would darken all it holds) */
  /* snow (FL_VIEW_SNOW, FL_VIEW_SNOW_VOLUME): */
  const fl_buffer *density;   /* volume: float per node, node (i,j,k) at (k ny + j) nx + i */
  uint32_t grid_dims[3];      /* volume: nodes per axis */
  float grid_origin[3];       /* volume: position of node (0,0,0) */
  float grid_spacing;         /* volume: h */
  float rest_density;         /* both: rho0 of the first snow object (kg/m^3), to scale the shading */
} fl_render_view;

/* What the report says of one simulated object (read back at the end of a run). */
typedef struct {
  char name[FL_SCENE_NAME_MAX];
  const char *type;
  uint32_t particles;
  double mass, com[3], momentum[3], kinetic_energy;
  float bbox_min[3], bbox_max[3];
  uint32_t nan_count;
  uint32_t unstable;          /* FL_HEALTH_* bits the health watch saw during the run; 0: none */
  uint64_t unstable_frame;    /* the frame by which it first saw them */
  uint32_t outside_domain;    /* particles whose centre left the domain box */
  double max_speed;
  fl_stats material;          /* the material's own figures (strain, volumes, J_P, ...) */
  double particle_mass;       /* set by the material when w = 0 particles (pins) still have mass: each
                               * particle's mass; 0: 1 / w */
} fl_object_stats;

/* A material's scene-level figures after a run. */
typedef struct {
  fl_stats report;            /* entries of the report (group: a nested object) */
  char run_line[256];         /* printed after every run ("" for none) */
  char bench_line[256];       /* printed with the --bench table ("" for none) */
} fl_material_summary;

typedef struct fl_material_ops {
  const char *name;                                                     /* "particles", "xpbd", ... */
  bool (*owns)(fl_object_type type);
  bool (*create)(const fl_material_env *env, const uint32_t *objects, uint32_t count, void **out);
  void (*destroy)(void *m);
  void (*record_substep)(void *m, fl_rec *r, const fl_step *step);     /* NULL: none */
  void (*record_frame)(void *m, fl_rec *r, const fl_step *frame);      /* NULL: none */
  void (*record_publish)(void *m, fl_rec *r);
  void (*record_health)(void *m, fl_rec *r, fl_health *h);
  void (*collect)(void *m, uint32_t slot);                             /* NULL: nothing to read */
  uint32_t (*views)(const void *m, uint32_t slot, fl_render_view *out, uint32_t max);
  bool (*pick_targets)(void *m, fl_picker *picker);                    /* NULL: nothing to grab */
  bool (*read_state)(void *m, uint32_t object, float (**pos)[4], float (**vel)[4], uint32_t *count);
  bool (*stats)(void *m, uint32_t object, const float (*pos)[4], uint32_t count, fl_object_stats *out); /* NULL: none */
  bool (*summary)(void *m, const fl_profiler *prof, bool bench, fl_material_summary *out); /* NULL: none */
  uint64_t (*particle_count)(const void *m);
  uint64_t (*largest_buffer)(const void *m);
} fl_material_ops;

/* Reads `count` positions and velocities (vec4 each) from element `first` of
 * two buffers into malloc'd arrays; waits (reports, dumps). */
bool fl_read_particle_state(fl_gpu *gpu, const fl_buffer *pos, const fl_buffer *vel, uint32_t first, uint32_t count,
                            float (**pos_out)[4], float (**vel_out)[4], uint32_t *count_out);

/* The rows (each in its material's folder). */
extern const fl_material_ops fl_material_particles, fl_material_xpbd, fl_material_mass_spring, fl_material_snow;
