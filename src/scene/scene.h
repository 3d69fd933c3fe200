/* scene/scene: the JSON scene format turned into plain structs.
 *
 * A scene is "name", "sim", "camera" and "objects" (README, "Scene format").
 * Loading validates everything: unknown keys, wrong types, out-of-range values,
 * malformed JSON, unknown scene names and unreadable files each fail with one
 * line naming the file, the key path and what was expected (fl_error_message()).
 * Material issues extend this by adding an object type, its desc struct and
 * its key table in scene_objects.c. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#define FL_SCENE_NAME_MAX 64
#define FL_SCENE_MAX_OBJECTS 64

typedef enum {
  FL_OBJECT_PARTICLES,
  FL_OBJECT_COLLIDER,
  FL_OBJECT_CLOTH,
  FL_OBJECT_SOFTBODY,
  FL_OBJECT_BALLOON,
  FL_OBJECT_MASS_SPRING,
  FL_OBJECT_SNOW,
} fl_object_type;

typedef enum {
  FL_SHAPE_PLANE,   /* normal, offset: the solid side is dot(n, x) < offset */
  FL_SHAPE_SPHERE,  /* center, radius */
  FL_SHAPE_BOX,     /* center, half_extents */
  FL_SHAPE_CAPSULE, /* a, b, radius */
  FL_SHAPE_MESH,    /* path (a closed OBJ), scale, center: its SDF baked on a grid at load */
} fl_collider_shape;

#define FL_COLLIDER_MAX_KEYFRAMES 16
#define FL_SCENE_PATH_MAX 256

/* One keyframe of a collider's path: at time t its pivot is at `position` and
 * the shape is turned by `rotation` from its rest pose. */
typedef struct {
  float t;                      /* s, strictly increasing along the list */
  float position[3];            /* where the pivot is (m) */
  float rotation[3];            /* rotation vector: axis * angle (rad; the scene gives degrees) */
} fl_collider_keyframe;

typedef struct {
  fl_collider_shape shape;
  float normal[3], offset;      /* plane (normal is normalized at load) */
  float center[3], radius;      /* sphere, box, mesh (center); sphere, capsule (radius) */
  float half_extents[3];        /* box */
  float a[3], b[3];             /* capsule */
  char path[FL_SCENE_PATH_MAX]; /* mesh: the OBJ, resolved as soft bodies' */
  float scale;                  /* mesh: file units to metres, default 1 */
  uint32_t resolution;          /* mesh: SDF grid cells along the longest side, default 32, 4..128 */
  float friction;               /* default 0.3, >= 0 */
  float velocity[3];            /* default 0: the pivot moves as x(t) = x0 + velocity min(t, move_until) */
  float angular_velocity[3];    /* rad/s about the pivot, default 0; stops at move_until too */
  float move_until;             /* s, default 0: moves for ever; > 0: stops at that time */
  float pivot[3];               /* what rotations turn about: default the shape's centre (plane: normal * offset;
                                 * capsule: the middle of a-b) */
  fl_collider_keyframe keyframes[FL_COLLIDER_MAX_KEYFRAMES];
  uint32_t keyframe_count;      /* > 0: the pose follows the keyframes (no velocity, angular_velocity, move_until) */
  bool inside;                  /* default false: true keeps particles inside a box/sphere/mesh (a container) */
} fl_collider_desc;

typedef struct {
  uint32_t count;               /* number of particles, 1 .. 16M, default 4096 */
  float center[3];              /* emitter box centre, default [0,1,0] */
  float half_extents[3];        /* emitter box half size, default [0.5,0.5,0.5], each > 0 */
  float velocity[3];            /* initial velocity, default 0 */
  float velocity_jitter;        /* uniform random +- per component, default 0, >= 0 */
  float radius;                 /* drawing and collision radius (m), default 0.02, > 0 */
  float mass;                   /* total mass (kg), default 1, > 0 */
  float restitution;            /* 0..1, default 0.3 */
  float friction;               /* >= 0, default 0.2: scales collider friction */
  uint32_t seed;                /* default 1 */
} fl_particles_desc;

#define FL_CLOTH_MAX_PINS 16

typedef enum { FL_PLANE_XZ, FL_PLANE_XY } fl_cloth_plane;
typedef enum { FL_BENDING_ISOMETRIC, FL_BENDING_DIHEDRAL, FL_BENDING_NONE } fl_bending_model;
typedef enum { FL_DAMPING_POINT, FL_DAMPING_EDGE, FL_DAMPING_GLOBAL } fl_damping_model;
typedef enum { FL_PIN_PARTICLE, FL_PIN_ROW, FL_PIN_COLUMN, FL_PIN_INDEX } fl_pin_kind;

/* One pin, parsed from "corner:i,j" (or a corner name), "row:j" (or "top",
 * "bottom"), "column:i" (or "left", "right"), "index:k". */
typedef struct {
  fl_pin_kind kind;
  int32_t a, b;                 /* particle: i, j; row: j; column: i; index: k.
                                 * -1 stands for the last (nx-1 or ny-1). */
} fl_cloth_pin;

typedef struct {
  uint32_t resolution[2];       /* [nx, ny] particles, each 2..4096, default [32, 32] */
  float size[2];                /* [w, h] metres, default [1, 1], > 0 */
  float center[3];              /* default [0, 1, 0] */
  fl_cloth_plane plane;         /* "xz" (default) or "xy" */
  float sag;                    /* m, default 0 (flat); the sheet starts bent along x into an arc whose middle
                                 * hangs this far below its x edges (sim/common/sheet_grid.h), <= 0.3 size[0] */
  float mass;                   /* total kg, default 1, > 0 */
  fl_cloth_pin pins[FL_CLOTH_MAX_PINS];
  uint32_t pin_count;           /* "pin": a list of the forms above, default none */
  float stretch_compliance;     /* m/N, default 0, >= 0 */
  float shear_compliance;       /* m/N, default 1e-6, >= 0 */
  float bend_compliance;        /* default 1e-3, >= 0 */
  fl_bending_model bending;     /* "isometric" (default), "dihedral" or "none" */
  float damping;                /* 1/s, default 0.1, >= 0 */
  fl_damping_model damping_model; /* "point" (default), "edge" or "global" (both momentum-conserving) */
  float thickness;              /* m, default 0.01, > 0 */
  float friction[2];            /* [static, kinetic], default [0.5, 0.4], >= 0 */
  bool self_collision;          /* default false; true, "particles" or "triangles" turn it on */
  bool triangle_contacts;       /* self_collision "triangles": vertex-triangle and edge-edge contacts too */
  bool contact_guard;           /* "triangles": the contact guard, a copy of sim.contact_guard (set by the parser) */
  float wind[3];                /* m/s, default 0 */
  float drag, lift;             /* default 0, >= 0 */
  float gust;                   /* gust amplitude, a fraction of the wind, 0..1, default 0 (shaders/common/gust_shared.h) */
  float gust_period;            /* s, default 2, 0.05..60 */
  float gust_length;            /* m, default 3, 0.05..100 */
  bool area;                    /* triangle area constraints (docs/AREA.md): on when "area_compliance" is given */
  float area_compliance;        /* m^3/N, >= 0 */
  float tear_strain;            /* 0 (absent): never tears; else a stretch or shear constraint whose strain
                                 * |x_i - x_j| / rest - 1 passes it breaks and the mesh splits (docs/CLOTH.md), 0 < s <= 10 */
  uint32_t hierarchy_levels;    /* hierarchical PBD (docs/HIERARCHY.md): 1 (default; 0 too) = off, 2..8 levels */
  bool tethers;                 /* long range attachments (docs/CLOTH.md "Tethers"): each particle no farther from its
                                 * nearest pin, nor from the nearest on its other side, than across the sheet at
                                 * rest; default false, not with tear_strain */
} fl_cloth_desc;

/* The deepest cloth "sag", a fraction of its size[0] (a semicircle hangs 1 / pi; deeper arcs would overhang). */
#define FL_SHEET_MAX_SAG 0.3

/* True when a sheet of `resolution` particles has 2 or more particles per side at the
 * coarsest of `levels` levels (src/sim/xpbd/hierarchy.c). */
static inline bool fl_cloth_hierarchy_fits(const uint32_t resolution[2], uint32_t levels)
{
  uint32_t stride = 1u << (levels - 1);
  return resolution[0] > stride && resolution[1] > stride;
}

/* Mass-spring cloth of Kang 2018 (sim/massspring/ms_spec.h, docs/KANG2018.md). */
typedef enum { FL_MS_INTEGRATOR_E, FL_MS_INTEGRATOR_HO, FL_MS_INTEGRATOR_JI, FL_MS_INTEGRATOR_IM,
               FL_MS_INTEGRATOR_HY } fl_ms_integrator;
typedef enum { FL_MS_SPLIT_KEY_PAPER, FL_MS_SPLIT_KEY_MOMENTUM } fl_ms_split_key;
/* Spring groups (bit mask); "springs" is "structural", "structural+shear" or
 * "structural+shear+bend" (default). */
#define FL_MS_SPRINGS_STRUCTURAL 1u
#define FL_MS_SPRINGS_SHEAR 2u
#define FL_MS_SPRINGS_BEND 4u

typedef struct {
  uint32_t resolution[2];       /* [nx, ny] particles, each 2..1024, default [32, 32] */
  float size[2];                /* [w, h] metres, default [1, 1], > 0 */
  float center[3];              /* default [0, 1, 0] */
  fl_cloth_plane plane;         /* "xz" (default) or "xy" (as cloth) */
  float mass;                   /* total kg, default 1, > 0 */
  float stiffness;              /* kappa N/m, default 1000, > 0 */
  float damping;                /* c_d N s/m, default 0.5, >= 0 */
  uint32_t springs;             /* FL_MS_SPRINGS_* mask, default all three */
  fl_cloth_pin pins[FL_CLOTH_MAX_PINS];
  uint32_t pin_count;           /* "pin": as cloth, default none */
  fl_ms_integrator integrator;  /* "E", "HO", "JI", "IM" or "HY" (default "HY") */
  uint32_t jacobi_iterations;   /* JI and HY, default 3, 1..100 */
  fl_ms_split_key split;        /* HO and HY: "paper" (Eq. 22, default) or "momentum" */
  bool definite_jacobian;       /* JI, IM, HY: clamp 1 - l0/l >= 0, default true */
  bool jacobi_explicit_start;   /* JI, HY: "jacobi_start": "explicit" (dv = b / m) or "zero" (default) */
  uint32_t cg_iterations;       /* IM: CG iterations per step at most, default 100, 1..10000 */
  float cg_tolerance;           /* IM: relative residual, default 1e-5, > 0 and < 1 */
  float divergence_strain;      /* a spring strain |l - l0|/l0 above this (or a NaN) is a
                                 * divergence: the object is reset; default 2, > 0 */
  float thickness;              /* > 0: collides with the colliders and domain walls, keeping
                                 * thickness/2 from them; default 0: no collisions (Kang 2018 has none) */
  float friction;               /* scales each collider's friction coefficient, default 0.5, >= 0 */
} fl_mass_spring_desc;

/* XPBD soft bodies and balloons (sim/xpbd/softbody_spec.h, docs/SOFTBODY.md). */
typedef enum { FL_BODY_SPHERE, FL_BODY_BOX, FL_BODY_TORUS, FL_BODY_MESH, FL_BODY_TETGEN,
               FL_BODY_ICOSPHERE } fl_body_shape;
typedef enum { FL_SOFT_MODEL_XPBD, FL_SOFT_MODEL_NEOHOOKEAN } fl_soft_model;
typedef enum { FL_VOLUME_CONSERVE_NONE, FL_VOLUME_CONSERVE_GLOBAL, FL_VOLUME_CONSERVE_LOCAL } fl_volume_conservation;

/* What soft bodies and balloons share: placement, contact, damping, volume conservation. */
typedef struct {
  float center[3];              /* default [0, 1, 0]; meshes: added to the file's (scaled) coordinates */
  float radius;                 /* sphere, icosphere; torus: major radius. m, default 0.5, > 0 */
  char path[FL_SCENE_PATH_MAX]; /* mesh: an OBJ file; tetgen: a .node file (its .ele beside it);
                                 * relative paths are tried from the scene file's directory, then the data dir;
                                 * stored resolved: the path of the existing file found (scene_objects.c) */
  float scale;                  /* mesh, tetgen: multiplies the file's coordinates, default 1, > 0 */
  float velocity[3];            /* initial velocity m/s, default 0 */
  float damping;                /* 1/s, point damping, default 0.1, >= 0 */
  float thickness;              /* m, particle collision distance; default 0: the mean edge length */
  float friction[2];            /* [static, kinetic], default [0.5, 0.4], >= 0 */
  fl_volume_conservation volume_conservation; /* "none" (default), "global" or "local" (Diziol 2011) */
  float volume_alpha;           /* local: mixing alpha of the uniform weight, default 0.25, 0..1 */
  float volume_beta;            /* local: share beta of the opposite pairs' distance change, default 1, 0..1 */
  float volume_pair_stiffness;  /* local: the pairs' stiffness s, default 1, 0..1e4 */
  bool volume_velocity;         /* Diziol's velocity correction dV/dt = 0, default false; needs conservation */
  float measure_after;          /* s, default 0: the worst volume loss is tracked from this time on, >= 0 */
} fl_body_common_desc;

typedef struct {
  fl_body_common_desc common;
  fl_body_shape shape;          /* "sphere" (default), "box", "torus", "mesh" or "tetgen" */
  float half_extents[3];        /* box, default [0.3, 0.3, 0.3], > 0 */
  float minor_radius;           /* torus tube radius, default 0.2, > 0 and < radius */
  uint32_t resolution;          /* voxel cells along the longest side of the bounding box, default 8, 2..64 */
  float density;                /* kg/m^3, default 1000, > 0 */
  fl_soft_model model;          /* "xpbd" (edges + tet volumes, default) or "neohookean" */
  float edge_compliance;        /* xpbd: m/N, default 1e-5, >= 0 */
  float volume_compliance;      /* xpbd: 1/(N m^2) (C in m^3), default 0, >= 0 */
  float youngs_modulus;         /* neohookean: Pa, default 1e5, > 0 */
  float poisson_ratio;          /* neohookean: default 0.4, 0..0.49 */
  uint32_t render_detail;       /* segments around the drawn surface, default 32, 4..256 */
} fl_softbody_desc;

typedef struct {
  fl_body_common_desc common;
  fl_body_shape shape;          /* "icosphere" (default) or "mesh" */
  uint32_t subdivisions;        /* icosphere, default 3, 0..6 */
  float mass;                   /* total kg, default 0.1, > 0 */
  float stretch_compliance;     /* m/N, default 1e-4, >= 0 */
  float bend_compliance;        /* default 0.1, >= 0 */
  fl_bending_model bending;     /* "isometric" (default), "dihedral" or "none" */
  float pressure;               /* k_pressure: target volume k V0, default 1, 0.1..10 */
  float pressure_compliance;    /* of C = V - k V0 (m^3/N... per m^3), default 0, >= 0 */
  float tear_strain;            /* 0 (absent): never tears; else an edge past this strain tears the surface and the
                                 * balloon loses its pressure (docs/CLOTH.md "Tearing"), 0 < s <= 10 */
} fl_balloon_desc;

/* MPM snow (Stomakhin 2013; sim/mpm/snow_spec.h, docs/SNOW.md). */
typedef enum { FL_SNOW_SHAPE_SPHERE, FL_SNOW_SHAPE_BOX, FL_SNOW_SHAPE_MESH } fl_snow_shape;
typedef enum { FL_SNOW_PIC_FLIP, FL_SNOW_APIC } fl_snow_transfer;

typedef struct {
  fl_snow_shape shape;          /* "sphere" (default), "box" or "mesh" (a closed OBJ) */
  float center[3];              /* default [0, 1, 0]; mesh: added to the file's (scaled) coordinates */
  float radius;                 /* sphere, m, default 0.2, > 0 */
  float half_extents[3];        /* box, default [0.2, 0.2, 0.2], > 0 */
  char path[FL_SCENE_PATH_MAX]; /* mesh: the OBJ, resolved as soft bodies' */
  float scale;                  /* mesh: multiplies the file's coordinates, default 1, > 0 */
  float velocity[3];            /* initial velocity m/s, default 0 */
  uint32_t particles_per_cell;  /* default 8, 1..64 */
  float grid_spacing;           /* h, m, > 0, shared by every snow object of a scene; default: another snow
                                   object's, else 0.05 doubled until the grid over sim.domain has at most
                                   2^21 nodes (0.1 in the default 10 m domain: it fits lavapipe) */
  float density;                /* rho0 kg/m^3, default 400, > 0 */
  float E0;                     /* Young's modulus Pa, default 1.4e5, > 0 */
  float nu;                     /* Poisson's ratio, default 0.2, 0..0.49 */
  float xi;                     /* hardening, default 10, >= 0 */
  float theta_c, theta_s;       /* critical compression / stretch, default 2.5e-2, 7.5e-3; 0..1 */
  float flip;                   /* FLIP blend alpha, default 0.95, 0..1 (pic_flip) */
  float beta;                   /* implicit blend, default 0 (explicit), 0..1 (shared by all snow) */
  float friction;               /* mu with colliders and walls, default 0.3, >= 0, or "sticky" */
  bool sticky;                  /* friction "sticky": mu = infinity */
  fl_snow_transfer transfer;    /* "pic_flip" (default: the paper) or "apic" (MLS-MPM, quadratic) */
  uint32_t seed;                /* jitter of the particle lattice, default 1 */
} fl_snow_desc;

typedef struct {
  char name[FL_SCENE_NAME_MAX]; /* unique within the scene; default "<type><index>" */
  fl_object_type type;
  bool no_coupling;             /* "coupling": false on a cloth, soft body, balloon or snow object:
                                 * it does not meet the snow (docs/COUPLING.md); default coupled */
  union {
    fl_particles_desc particles;
    fl_collider_desc collider;
    fl_cloth_desc cloth;
    fl_mass_spring_desc mass_spring;
    fl_softbody_desc softbody;
    fl_balloon_desc balloon;
    fl_snow_desc snow;
  };
} fl_scene_object;

typedef enum { FL_SOLVER_COLORING, FL_SOLVER_JACOBI, FL_SOLVER_SYMMETRIC } fl_solver;
typedef enum { FL_MPM_ATOMICS_AUTO, FL_MPM_ATOMICS_FLOAT, FL_MPM_ATOMICS_FIXED } fl_mpm_atomics;
typedef enum { FL_SNOW_FUSE_SEPARATE, FL_SNOW_FUSE_G2P2G } fl_snow_fuse;
typedef enum { FL_NORMALS_ANALYTIC, FL_NORMALS_TETRAHEDRAL } fl_collider_normals;
typedef enum { FL_INTEGRATOR_EULER, FL_INTEGRATOR_BDF2 } fl_xpbd_integrator;
typedef enum { FL_COUPLING_SUBSTEPS_SNOW, FL_COUPLING_SUBSTEPS_XPBD } fl_coupling_substeps;

typedef struct {
  float dt;                     /* seconds per frame, default 1/60, 0 < dt <= 0.1 */
  uint32_t substeps;            /* default 1, 1..1000 */
  uint32_t iterations;          /* default 1, 1..1000 */
  float gravity[3];             /* default [0,-9.81,0] */
  float domain_min[3], domain_max[3]; /* default [-5,0,-5] .. [5,10,5]; min < max */
  fl_solver solver;             /* XPBD: "coloring" (default), "jacobi" or "symmetric" (coloring with
                                 * the colour order alternating over the iterations, sweep_order.h) */
  fl_xpbd_integrator integrator; /* XPBD: "euler" (default) or "bdf2" (second-order PBD, NOTES.md) */
  float relaxation;             /* Jacobi over-relaxation omega, default 1.5, 1..2 */
  fl_collider_normals collider_normals; /* "analytic" (default): each shape's exact gradient;
                                 * "tetrahedral": the generic four-point finite difference (note 002) */
  bool collider_triangles;      /* XPBD cloth: colliders against the insides of its triangles
                                 * (xpbd/tri_collider, docs/CLOTH.md), default true; false: the
                                 * vertices only */
  bool contact_guard;           /* XPBD "triangles" cloth: the contact guard (docs/CLOTH.md "The contact
                                 * guard"): no edge passes through a triangle in a substep; default false */
  float max_speed;              /* m/s: a particle faster than this is a blow-up (the health watch,
                                 * sim/common/health.h), default 500, 0 < v <= 3e8 */
  float max_strain;             /* an XPBD distance constraint strained past this, (L - L0) / L0, is a
                                 * blow-up (the health watch), default 10, 0 < s <= 1e6 */
  float snow_grid_slack;        /* snow grid blocks allocated: this x those the snow touches at load,
                                 * default 4, 1..64 (snow spreading wider, as a ball breaking on a wall
                                 * at fine spacing, needs more: the health watch says when) */
  fl_mpm_atomics mpm_atomics;   /* snow P2G: "auto" (default: float atomics where the device has them),
                                 * "float" (an error without them) or "fixed" (int32 fixed point) */
  fl_snow_fuse snow_transfer;   /* snow: "separate" (default: P2G and G2P passes) or "g2p2g" (each G2P
                                 * fused with the next substep's P2G, docs/SNOW.md; needs float atomics) */
  fl_coupling_substeps coupling_substeps; /* coupled snow and XPBD: "snow" (default: a coupling substep and
                                 * XPBD substep per snow substep) or "xpbd" (XPBD keeps `substeps`, each
                                 * covering a run of snow substeps, coupled at the run's last, the
                                 * others holding; docs/COUPLING.md, substep order) */
} fl_sim_desc;

typedef struct {
  float eye[3];                 /* default [0,3,8] */
  float target[3];              /* default [0,1,0] */
} fl_camera_desc;

typedef struct {
  char name[FL_SCENE_NAME_MAX];
  char source[512];             /* the file it was read from */
  fl_sim_desc sim;
  fl_camera_desc camera;
  uint32_t object_count;
  fl_scene_object objects[FL_SCENE_MAX_OBJECTS];
} fl_scene;

/* Loads a scene by built-in name (assets/scenes/NAME.json) or by file path.
 * `overrides` are "KEY=VALUE" strings from --set, applied before validation:
 * KEY is a dotted path (sim.substeps, camera.eye, objects.NAME.radius), VALUE is
 * JSON (a number, true/false, an array) or else taken as a string.
 * Returns false with fl_error_message() set on any bad input (the recorded error is
 * cleared first); `out` is written only on success. Keys: docs/SCENES.md. */
bool fl_scene_load(const char *name_or_path, const char *const *overrides, int override_count,
                   fl_scene *out);
/* Same, from JSON text in memory; `source` names it in error messages. */
bool fl_scene_parse(const char *json_text, const char *source, const char *const *overrides,
                    int override_count, fl_scene *out);
/* Writes the built-in scene names (one per line, with the file's "name") to stdout. */
bool fl_scene_list_builtin(void);
/* How far the box lo..hi sticks out of sim.domain past its farthest wall, beyond float rounding:
 * coordinates and walls are floats, so a shape written flush on a wall may sit out by a few of their
 * last bits (about 1e-6 m per metre of its coordinates). 0 when inside; *axis and *upper name the wall
 * (the snow checks: a sphere or box at load, scene_check.c; a mesh at its build, snow_build.c). */
double fl_scene_box_outside(const fl_sim_desc *sim, const double lo[3], const double hi[3], int *axis, int *upper);
/* The type name used in JSON and reports ("particles", "collider", ...). */
const char *fl_object_type_name(fl_object_type type);
