/* sim/xpbd/collide_cpu: one particle's contacts with the colliders and the
 * domain walls, with friction (xpbd_spec.h step 5), as shaders/xpbd/collide.glsl
 * computes them: the CPU reference's contacts and the colliders' priority in its
 * triangle-contact apply (docs/CLOTH.md). */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "flurry_shared.h"
#include "sim/xpbd/xpbd_build.h"

/* What a particle collides with in a substep, and the arrays its contacts read. */
typedef struct {
  const fl_xpbd_build *b;             /* the objects and each particle's object */
  const fl_gpu_collider *colliders;
  uint32_t count;
  float t, h;                         /* the substep's end time and length */
  bool tetrahedral;                   /* collider normals from the tetrahedral SDF gradient */
  const float *domain_min, *domain_max;
  const float (*prev)[4];             /* the substep's start */
  const float (*load)[4];             /* a body particle's contact load (softbody_spec.h) */
} fl_collide_env;

/* The friction correction of xpbd_spec.h step 5 on displacement D against normal n (added to x). */
void fl_friction_corr_cpu(const float D[3], const float n[3], float depth, float mu_s, float mu_k, float out[3]);
/* Moves particle p's position x (w > 0) out of every collider, then out of the walls (fl_collide in
 * collide.glsl); true when it touched any of them. */
bool fl_collide_particle_cpu(const fl_collide_env *e, uint32_t p, float x[3]);
