/* sim/mpm/snow_build: the CPU side of a scene's snow (snow_spec.h): the
 * particles seeded in every snow object's shape, their material records, the
 * virtual node lattice over sim.domain and the sparse grid's block capacity
 * (from the blocks the seeded snow touches), the fixed-point scales, and the
 * push constants every MPM kernel starts from. Sizes are checked before
 * anything is allocated. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "mpm_shared.h"
#include "scene/scene.h"

#define FL_SNOW_MAX_PARTICLES (1u << 24) /* 16 M: 160 B each on the GPU */
#define FL_SNOW_MAX_LATTICE_BLOCKS (1ull << 31) /* blocks of the virtual lattice over sim.domain (uint keys) */
                                         /* blocks allocated: sim.snow_grid_slack x those the snow touches at load ... */
#define FL_SNOW_BLOCK_SPARE 64u          /* ... and at least this many more */
#define FL_SNOW_MAX_VOLUME_NODES (1u << 23) /* the dense density volume of the volume view (4 B a node) */

typedef struct {
  uint32_t count;                       /* particles of every snow object */
  float (*pos)[4], (*vel)[4];           /* count each (snow_spec.h PARTICLE STATE) */
  float (*fe)[4], (*affine)[4];         /* 3 * count */
  float (*stress)[4];                   /* 2 * count */
  fl_snow_material materials[FL_SNOW_MAX_MATERIALS];
  uint32_t material_count;              /* = snow objects */
  uint32_t object_particles[FL_SNOW_MAX_MATERIALS];
  float rho0[FL_SNOW_MAX_MATERIALS];    /* density of each material */
  float particle_spacing;               /* smallest lattice spacing s (drawing radius) */
  float h;                              /* grid spacing */
  float origin[3];                      /* node (0,0,0): domain_min - 2h rounded down to a multiple of 4h */
  uint32_t dims[3];                     /* nodes per axis of the virtual lattice */
  uint32_t node_count;                  /* of the lattice (the CPU reference's dense grid, the volume view) */
  uint32_t block_dims[3];               /* blocks of 4x4x4 nodes per axis of the lattice */
  uint32_t blocks_at_load;              /* blocks the seeded particles' stencils touch */
  uint32_t block_capacity;              /* blocks the GPU grid allocates (fl_snow_build_set_capacity) */
  uint32_t hash_entries;                /* of the block hash: a power of two >= 2 x block_capacity */
  float beta;                           /* semi-implicit blend of the shared grid */
  float mass_scale, momentum_scale;     /* fixed point (snow_spec.h GRID ACCUMULATOR) */
  float light_node_mass;                /* nodes lighter than this get no internal force (snow_spec.h) */
  bool any_pic_flip;                    /* else the impulse is folded into the momentum */
  bool any_apic;                        /* with any_pic_flip: which transfer kernels (snow.c) */
  float max_initial_speed;
  float fixed_node_mass;                /* the heaviest node the fixed point must hold: FL_SNOW_FIXED_COMPRESSION
                                           x the densest material's rho h^3 (kg) */
  float fixed_speed_limit;              /* the node speed whose momentum fills int32 at that mass (m/s) */
} fl_snow_build;

/* Seeds every snow object of the scene (`indices`: their scene object indices, `count` of them). */
bool fl_snow_build_create(const fl_scene *scene, const uint32_t *indices, uint32_t count, fl_snow_build *out);
/* False (fl_error_set, naming what to lower) when the fixed-point accumulator cannot hold the
 * build's heaviest node at twice its fastest initial speed (snow_spec.h GRID ACCUMULATOR). */
bool fl_snow_fixed_headroom_check(const fl_snow_build *b);
/* Sets block_capacity (slack x blocks_at_load: sim.snow_grid_slack, at least FL_SNOW_BLOCK_SPARE
 * more, at most the lattice's blocks and device_max_blocks) and hash_entries; false (fl_error_set,
 * naming what to lower) when the snow at load already needs more than device_max_blocks. */
bool fl_snow_build_set_capacity(fl_snow_build *b, float slack, uint64_t device_max_blocks);
/* Sets block_capacity for `need` blocks in use the same way (slack x need, at least FL_SNOW_BLOCK_SPARE
 * more, at most fl_snow_build_max_blocks) and hash_entries: the grid growing at run time (snow.h). */
void fl_snow_build_fit_capacity(fl_snow_build *b, uint64_t need, float slack, uint64_t device_max_blocks);
/* The most blocks the grid can have: the lattice's, or what device_max_blocks allows. */
uint64_t fl_snow_build_max_blocks(const fl_snow_build *b, uint64_t device_max_blocks);
/* Frees the arrays; accepts a zeroed build. */
void fl_snow_build_free(fl_snow_build *b);
/* The push constants of one substep of length dt ending at time t (flags from the build and
 * `fixed_point`; counts.w and params.w zero). */
void fl_snow_push_fill(const fl_snow_build *b, const fl_sim_desc *sim, uint32_t collider_count, bool fixed_point,
                       float dt, float t, fl_mpm_push *out);
/* The material record of a snow desc. */
fl_snow_material fl_snow_material_of(const fl_snow_desc *d);
/* The largest stable substep for speeds up to max_speed and the hardening of J_P >= jp_min
 * (snow_spec.h SUBSTEPS). */
float fl_snow_stable_dt(const fl_snow_build *b, float max_speed, float jp_min);
