/* sim/common/health: the health watch, so that no object turns to garbage in
 * silence. Once a frame every simulated object's particles are checked on the
 * GPU: a position or velocity that is not finite, or a speed above
 * sim.max_speed (a blow-up), sets bits (FL_HEALTH_*) of the object's flag
 * word. The words are sticky; each frame they are copied to the frame slot's
 * readback buffer and read after its fence, so the watch costs one small
 * pass per object and never stalls. The world names the object and the frame
 * the first time its word turns bad; the report marks it unstable, and
 * --headless exits non-zero.
 *
 * Objects whose particles are a range of a position and a velocity buffer
 * record common/health.comp (fl_health_record_range); a material that
 * interleaves its objects' particles records its own kernel into
 * consecutive words (snow: mpm/health.comp, the word of its material). XPBD
 * objects also record xpbd/strain_health.comp over their distance constraints
 * (sim.max_strain). */
#pragma once
#include "flurry_shared.h"
#include "gpu/rec.h"
#include "scene/scene.h"

#define FL_HEALTH_MAX_WORDS FL_SCENE_MAX_OBJECTS

typedef struct {
  fl_gpu *gpu;
  float max_speed;                                /* m/s: faster is a blow-up */
  fl_buffer flags;                                /* uint per word, sticky */
  fl_buffer readback[FL_GPU_FRAMES_IN_FLIGHT];    /* the flags after the slot's frame */
  uint64_t slot_frame[FL_GPU_FRAMES_IN_FLIGHT];   /* that frame (frames simulated by then) */
  bool pending[FL_GPU_FRAMES_IN_FLIGHT];          /* a copy waits for the slot's fence */
  uint32_t word_count;
  uint32_t object[FL_HEALTH_MAX_WORDS];           /* the scene object of each word */
  uint32_t bits[FL_HEALTH_MAX_WORDS];             /* FL_HEALTH_* seen so far */
  uint64_t frame[FL_HEALTH_MAX_WORDS];            /* the frame by which they were first seen */
} fl_health;

bool fl_health_create(fl_gpu *gpu, float max_speed, fl_health *out);
void fl_health_destroy(fl_health *h);
/* Gives scene object `object` the next flag word (at load); false when the words run out. */
bool fl_health_watch(fl_health *h, uint32_t object, uint32_t *word);
/* Records the check of particles first..first+count-1 of `positions` and `velocities` (vec4 each). */
void fl_health_record_range(fl_health *h, fl_rec *r, uint32_t word, const fl_buffer *positions,
                            const fl_buffer *velocities, uint32_t first, uint32_t count);
/* After every check of a frame: copies the flags to the rec's slot, to be read after its fence. */
void fl_health_record_copy(fl_health *h, fl_rec *r, uint64_t frame);
/* After the slot's fence: merges the slot's flags; returns how many words turned bad since the last collect. */
uint32_t fl_health_collect(fl_health *h, uint32_t slot);
/* The words' FL_HEALTH_* bits as words ("not finite", "faster than max_speed"). */
const char *fl_health_reason(uint32_t bits);
