/* sim/common/collider_block: the scene's colliders as the one GPU buffer every
 * material reads (sdf_cpu.h): the records, then their keyframes and the baked
 * SDF grids of mesh colliders. */
#include "core/log.h"
#include "sim/common/mesh_cpu.h"
#include "sim/common/mesh_sdf.h"
#include "sim/common/sdf_cpu.h"

#include <stdlib.h>
#include <string.h>

/* Bakes every mesh collider: sdfs[i] (zeroed for the other shapes). */
static bool bake_meshes(const fl_collider_desc *descs, const char *const *names, uint32_t count, fl_mesh_sdf *sdfs)
{
  for (uint32_t i = 0; i < count; i++) {
    if (descs[i].shape != FL_SHAPE_MESH) continue;
    fl_cpu_mesh mesh = {0};
    bool ok = fl_obj_load_placed(descs[i].path, descs[i].scale, descs[i].center, &mesh) &&
              fl_mesh_sdf_bake(&mesh, descs[i].resolution, &sdfs[i]);
    fl_cpu_mesh_free(&mesh);
    if (!ok) return names ? fl_error_wrap("collider \"%s\"", names[i]) : false;
  }
  return true;
}

bool fl_collider_block_build(const fl_collider_desc *descs, const char *const *names, uint32_t count,
                             fl_collider_block **out, size_t *bytes)
{
  *out = NULL;
  if (count > FL_MAX_COLLIDERS) return fl_error_set("%u colliders, at most %d", count, FL_MAX_COLLIDERS);
  fl_mesh_sdf sdfs[FL_MAX_COLLIDERS];
  memset(sdfs, 0, sizeof sdfs);
  size_t tail = 0;
  bool ok = bake_meshes(descs, names, count, sdfs);
  for (uint32_t i = 0; ok && i < count; i++)
    tail += (size_t)descs[i].keyframe_count * FL_COLLIDER_KEYFRAME_FLOATS +
            (size_t)sdfs[i].dims[0] * sdfs[i].dims[1] * sdfs[i].dims[2];
  *bytes = sizeof(fl_collider_block) + (tail ? tail : 1) * sizeof(float); /* a runtime array is never empty */
  fl_collider_block *b = ok ? calloc(1, *bytes) : NULL;
  if (ok && !b) ok = fl_error_set("out of host memory for the collider block (%zu bytes)", *bytes);
  size_t at = 0;
  for (uint32_t i = 0; ok && i < count; i++) {
    const fl_collider_desc *d = &descs[i];
    fl_gpu_collider *c = &b->records[i];
    fl_collider_pack(d, c);
    c->index = i;
    c->keyframe_count = d->keyframe_count;
    c->keyframe_offset = (uint32_t)at;
    for (uint32_t k = 0; k < d->keyframe_count; k++, at += FL_COLLIDER_KEYFRAME_FLOATS) {
      b->tail[at] = d->keyframes[k].t;
      memcpy(&b->tail[at + 1], d->keyframes[k].position, 3 * sizeof(float));
      fl_quat_from_rotvec_cpu(d->keyframes[k].rotation, &b->tail[at + 4]);
    }
    for (uint32_t k = 0; k + 1 < d->keyframe_count; k++) { /* each segment's turn, once */
      float *key = &b->tail[c->keyframe_offset + k * FL_COLLIDER_KEYFRAME_FLOATS];
      fl_quat_turn_cpu(&key[4], &key[4 + FL_COLLIDER_KEYFRAME_FLOATS], &key[8]);
    }
    if (d->shape != FL_SHAPE_MESH) continue;
    const fl_mesh_sdf *s = &sdfs[i];
    memcpy(c->grid_min, s->grid_min, sizeof c->grid_min);
    memcpy(c->grid_dims, s->dims, sizeof c->grid_dims);
    c->grid_cell = s->cell;
    c->grid_offset = (uint32_t)at;
    size_t n = (size_t)s->dims[0] * s->dims[1] * s->dims[2];
    memcpy(&b->tail[at], s->values, n * sizeof(float));
    at += n;
  }
  for (uint32_t i = 0; i < count; i++) fl_mesh_sdf_free(&sdfs[i]);
  if (!ok) {
    free(b);
    return false;
  }
  *out = b;
  return true;
}
