/* sim/common/pick: grabbing particles with the mouse, for every material.
 * A pick request records two passes of common/pick.comp over each registered
 * positions buffer (vec4, w = inverse mass) into the next frame's compute
 * work and copies the result into that slot's host-visible buffer; the result
 * is read once the slot's fence has signalled (no stall). While a particle is
 * held, common/drag.comp pulls it towards the target point every substep with
 * an XPBD attachment constraint. */
#pragma once
#include "gpu/rec.h"

#define FL_PICK_MAX_TARGETS 64

typedef struct {
  const fl_buffer *positions;
  uint32_t first, count;
} fl_pick_target;

typedef struct {
  fl_gpu *gpu;
  fl_pick_target targets[FL_PICK_MAX_TARGETS];
  uint32_t target_count;
  fl_buffer result;                                 /* 2 uints per target */
  fl_buffer readback[FL_GPU_FRAMES_IN_FLIGHT];
  bool request_pending, slot_pending[FL_GPU_FRAMES_IN_FLIGHT];
  float ray_origin[3], ray_direction[3], radius;
  /* The held particle (held = true), and where it is pulled. */
  bool held;
  uint32_t held_target, held_index;
  float held_distance;                              /* along the pick ray */
  float drag_target[3], drag_compliance;
} fl_picker;

bool fl_picker_create(fl_gpu *gpu, fl_picker *p);
void fl_picker_destroy(fl_picker *p);
/* Registers a positions buffer range that can be grabbed; false (with a message) past FL_PICK_MAX_TARGETS. */
bool fl_picker_add_target(fl_picker *p, const fl_buffer *positions, uint32_t first, uint32_t count);
/* Asks for a pick along a ray (unit direction) within `radius` of it. */
void fl_picker_request(fl_picker *p, const float origin[3], const float direction[3], float radius);
/* Records the pending request's passes for the rec's frame slot. */
void fl_picker_record(fl_picker *p, fl_rec *r);
/* Reads a finished request of `slot` (after its fence); returns true when it grabbed a particle. */
bool fl_picker_collect(fl_picker *p, uint32_t slot);
/* True while the held particle is one of `positions`' (its material records the drag). */
bool fl_picker_holds(const fl_picker *p, const fl_buffer *positions);
/* Records the drag constraint for the held particle (if any) in a substep of length h. */
void fl_picker_record_drag(const fl_picker *p, fl_rec *r, float h);
/* Releases the held particle. */
void fl_picker_release(fl_picker *p);
