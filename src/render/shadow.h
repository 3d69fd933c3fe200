/* render/shadow: a shadow map from the one directional light, for meshes,
 * particles and snow. The pass "render/shadow" draws every mesh (its triangles)
 * and every particle and snow particle (a disc facing the light) into a depth
 * image from the light's orthographic view over the scene's domain; the depth
 * is copied into a storage buffer per frame slot, which the ground and the
 * meshes read (shaders/render/shadow.glsl: bilinear percentage-closer filtering, 4 texels).
 * A buffer rather than a sampled image because every descriptor flurry binds is
 * a buffer. Sized for lavapipe: 1024^2 texels (4 MiB per slot), depth only. */
#pragma once
#include "gpu/descriptor_cache.h"
#include "gpu/gpu.h"
#include "gpu/rec.h"
#include "sim/material.h"

#define FL_SHADOW_SIZE 1024u

typedef struct {
  fl_gpu *gpu;
  VkRenderPass render_pass;
  fl_image depth, color;     /* color: a placeholder (the pipelines write one colour attachment) */
  VkFramebuffer framebuffer;
  fl_buffer map[FL_GPU_FRAMES_IN_FLIGHT]; /* the depth as floats, row-major, read by the receivers */
  fl_pipeline mesh, discs;
  VkFormat depth_format;
} fl_shadow;

bool fl_shadow_create(fl_gpu *gpu, VkFormat depth_format, fl_shadow *s);
void fl_shadow_destroy(fl_shadow *s);
/* The light's view-projection: orthographic along -light_dir (towards the light,
 * normalized), covering the box [lo, hi] (the scene's domain, clipped to 20 m a
 * side). Returns the depth range in metres (depth 1 is that far from depth 0). */
float fl_shadow_light_matrix(const float light_dir[3], const float lo[3], const float hi[3], float out[4][4]);
/* Records the shadow pass and the copy into slot's map, outside any render pass;
 * `ubo` holds the frame uniforms (light_view_proj). The map is ready for fragment
 * shaders after this (a barrier is recorded). */
void fl_shadow_record(fl_shadow *s, fl_rec *rec, const fl_buffer *ubo, const fl_render_view *views, uint32_t count);
