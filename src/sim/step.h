/* sim/step: what recording one substep needs, built once per substep by the
 * world and handed to every material (Box2D's b2StepContext): the scene's
 * constants, the colliders, the substep's length and time, and the grab.
 * A material that plans its own substeps (snow) gets the frame's step
 * (substep_count 1, h = dt) and derives its own with fl_step_sub. */
#pragma once
#include "gpu/gpu.h"
#include "scene/scene.h"
#include "sim/common/pick.h"

typedef struct {
  const fl_sim_desc *sim;         /* gravity, domain, iterations, solver, relaxation, ... */
  const fl_buffer *colliders;     /* the collider uniform buffer (FL_MAX_COLLIDERS records) */
  uint32_t collider_count;
  float dt;                       /* the frame's length (s) */
  double t0;                      /* time at the start of the frame (s) */
  uint32_t substep, substep_count;
  float h, inv_h;                 /* this substep's length (s) and its inverse */
  float t;                        /* time at the end of this substep (s) */
  const fl_picker *picker;        /* the grab: the material holding the grabbed particle records the drag */
} fl_step;

/* Substep k (0-based) of n of the frame `frame`: h = dt / n, t = t0 + h (k + 1). */
static inline fl_step fl_step_sub(const fl_step *frame, uint32_t k, uint32_t n)
{
  fl_step s = *frame;
  s.substep = k;
  s.substep_count = n;
  s.h = frame->dt / (float)n;
  s.inv_h = 1.0f / s.h;
  s.t = (float)(frame->t0 + (double)s.h * (k + 1));
  return s;
}
