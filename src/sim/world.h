/* sim/world: every simulated object of a scene, the shared collider buffer,
 * and the per-frame step. It records one frame of simulation (all substeps of
 * all objects, then the render snapshots of the frame slot) into a compute
 * command buffer, exposes what render draws (fl_render_view), and reads state
 * back for reports and dumps (never on the hot path). */
#pragma once
#include "gpu/gpu.h"
#include "gpu/profiler.h"
#include "scene/scene.h"

typedef struct fl_world fl_world;

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
  uint32_t outside_domain;    /* particles whose centre left the domain box */
  double max_speed;
  /* cloth: */
  bool has_strain, has_min_distance;
  double max_strain, mean_strain, min_distance_nonneighbor;
  /* softbody, balloon (has_volume): volumes from the surface, the worst loss tracked on the GPU */
  bool has_volume;
  double volume, rest_volume, target_volume; /* m^3; target = k_pressure x rest */
  double worst_volume_loss;   /* 1 - the smallest / the largest volume since measure_after;
                               * -1 before measure_after */
  double largest_volume_ratio;
  const char *volume_conservation; /* "none", "global" or "local" */
  /* softbody (has_tets): tet volume / rest volume over its tets */
  bool has_tets;
  uint32_t tets, inverted_tets;
  double tet_ratio_min, tet_ratio_max;
  /* mass_spring (integrator non-NULL): */
  const char *integrator;
  uint32_t resets;            /* divergences detected and reset */
  uint32_t cg_iterations;     /* IM: CG iterations of the last step */
  float cg_relative_residual; /* IM: |r| / |b| after them */
  /* snow (has_snow): the object's own J_P range; the rest is of the whole snow system */
  bool has_snow;
  double jp_min, jp_max;      /* det F_P over the object's particles (plastic compression < 1) */
  double grid_mass;           /* every snow object's: the grid's mass after the last P2G */
  double grid_momentum[3];
  double snow_particle_mass;  /* every snow object's particle mass */
  uint32_t clamped;           /* particles clamped in the last substep of the last collected frame */
  uint32_t substeps_last;     /* snow substeps of the last frame (CFL-adaptive) */
  double substeps_mean;       /* per frame so far */
  uint32_t capped_frames;     /* frames whose substeps hit the cap */
  const char *transfer;       /* "pic_flip" or "apic" */
  const char *atomics;        /* "float" or "fixed": the P2G path */
} fl_object_stats;

/* Builds the scene's objects and colliders on the GPU. */
bool fl_world_create(fl_gpu *gpu, const fl_scene *scene, fl_world **out);
/* Frees everything; the GPU must be done with it (see the app's deferred deletes). */
void fl_world_destroy(fl_world *world);
/* Records one frame of simulation into `cmd` (when `simulate`; a paused world
 * only republishes) and the render snapshot of `slot`. */
void fl_world_record_frame(fl_world *world, VkCommandBuffer cmd, fl_profiler *prof, uint32_t slot, bool simulate);
/* The views of frame slot `slot` (as last recorded); returns how many were written. */
uint32_t fl_world_views(const fl_world *world, uint32_t slot, fl_render_view *out, uint32_t max);
/* Height of the ground plane to draw (the upward plane collider, else the domain floor). */
float fl_world_ground_height(const fl_world *world);
/* After the slot's fence: reads the slot's asynchronous status copies (mass_spring
 * divergence resets; each new one is logged) and returns how many objects were reset. */
uint32_t fl_world_collect(fl_world *w, uint32_t slot);
/* Number of simulated objects (not colliders), in scene order. */
uint32_t fl_world_object_count(const fl_world *world);
/* Total particles over all objects. */
uint64_t fl_world_particle_count(const fl_world *world);
/* Tet constraint records over all soft bodies (two per tet for Neo-Hookean ones). */
uint64_t fl_world_tet_count(const fl_world *world);
/* Substeps recorded so far. */
uint64_t fl_world_substeps(const fl_world *world);
/* Snow substeps recorded so far (their count per frame adapts to the CFL limit). */
uint64_t fl_world_snow_substeps(const fl_world *world);
/* Mean snow substeps per simulated frame so far (0 without snow). */
double fl_world_snow_substeps_per_frame(const fl_world *world);
/* Particles of every snow object. */
uint64_t fl_world_snow_particle_count(const fl_world *world);
/* Largest simulation buffer in bytes (sizes the copy-ceiling benchmark). */
uint64_t fl_world_largest_buffer(const fl_world *world);
/* Reads object `index`'s positions and velocities (malloc'd, count vec4 each). Waits for the GPU. */
bool fl_world_read_state(fl_world *world, uint32_t index, float (**pos)[4], float (**vel)[4], uint32_t *count);
/* Computes the report stats of object `index` (reads back; waits). */
bool fl_world_stats(fl_world *world, uint32_t index, fl_object_stats *out);
/* The worst volume loss (1 - smallest / largest volume since measure_after) over the bodies of each
 * conservation mode: worst[0] none, [1] global, [2] local; -1 where no body
 * uses the mode or none has reached its measure_after. Returns false on a readback failure; waits for the GPU. */
bool fl_world_volume_losses(fl_world *world, double worst[3]);
/* Asks to grab the particle nearest the camera within `radius` of a ray (unit
 * direction); recorded into the next frame, read back when its slot is done. */
void fl_world_pick(fl_world *world, const float origin[3], const float direction[3], float radius);
/* Reads the slot's pick result (after its fence): true when a particle was grabbed,
 * with its distance along the pick ray. */
bool fl_world_pick_collect(fl_world *world, uint32_t slot, float *distance);
/* Pulls the held particle towards `target` from the next substep on. */
void fl_world_drag_to(fl_world *world, const float target[3]);
/* Lets go of the held particle. */
void fl_world_release(fl_world *world);
/* True while a particle is held. */
bool fl_world_holding(const fl_world *world);
/* The scene the world was made from. */
const fl_scene *fl_world_scene(const fl_world *world);
