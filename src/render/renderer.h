/* render/renderer: the render pass and the passes that draw a frame straight
 * from GPU buffers: ground, meshes (positions + GPU normals), particles (sphere
 * impostors), snow (render/snow_look.h: the grid density's lit iso-surface,
 * impostors shaded by the grid density at each particle, or the density
 * ray-marched as a volume), the text overlay and the UI
 * panel (render/panel.h); before
 * them, the shadow pass (render/shadow.h) that the ground and meshes receive. One
 * renderer draws into a swapchain or an offscreen image alike (render/targets.h). */
#pragma once
#include "gpu/descriptor_cache.h"
#include "gpu/gpu.h"
#include "gpu/profiler.h"
#include "render/markers.h"
#include "render/overlay.h"
#include "render/shadow.h"
#include "render/snow_look.h"
#include "sim/world.h"
#include "flurry_shared.h"

/* One frame slot's empty-space skipping data of the snow surface and volume, made for the
 * density buffer `density` on first use, freed with the views. */
typedef struct {
  VkBuffer density;                                 /* the grid density buffer it was made for */
  fl_buffer distance[2];                            /* uint per brick, ping-pong: the Chebyshev distance
                                                     * to an occupied brick ends in [1] */
  fl_buffer bounds;                                 /* the occupied bricks' range (render/snow_bricks.comp) */
  uint32_t brick_count;
} fl_snow_bricks;

typedef struct {
  fl_gpu *gpu;
  VkFormat color_format, depth_format;
  VkImageLayout final_layout;
  VkRenderPass render_pass;
  fl_pipeline ground, mesh, particles, snow, snow_surface, snow_volume, text;
  fl_pipeline mesh_cutaway;                         /* meshes with back faces culled: containers' far walls */
  fl_pipeline mesh_wire;                            /* only when the device has fillModeNonSolid */
  bool wireframe;                                   /* draw meshes as lines (key W) */
  fl_snow_look snow_look;                           /* how snow is drawn (key V; 0: the surface) */
  fl_buffer frame_ubo[FL_GPU_FRAMES_IN_FLIGHT];
  fl_descriptor_cache sets;                         /* every set the passes bind; reset with the views */
  fl_snow_bricks snow_bricks[FL_GPU_FRAMES_IN_FLIGHT];
  fl_overlay overlay;
  fl_shadow shadow;                                 /* the light's shadow map (render/shadow.h) */
  bool draw_panel;                                  /* the UI panel (render/panel_imgui.h) over everything */
  const fl_marker *markers;                         /* labels, pins, grab point: drawn over the view */
  uint32_t marker_count;
} fl_renderer;

/* Creates the render pass for `color_format` (final layout `final_layout`) and the pipelines. */
bool fl_renderer_create(fl_gpu *gpu, VkFormat color_format, VkImageLayout final_layout, fl_renderer *r);
void fl_renderer_destroy(fl_renderer *r);
/* Forgets the descriptor sets made for views (call when the world they point to goes away). */
void fl_renderer_forget_views(fl_renderer *r);
/* Records the render pass into `cmd` for frame slot `slot`. `overlay_text` NULL hides the overlay. */
void fl_renderer_record(fl_renderer *r, VkCommandBuffer cmd, uint32_t slot, VkFramebuffer framebuffer,
                        VkExtent2D extent, const fl_frame_uniforms *uniforms, const fl_render_view *views,
                        uint32_t view_count, const char *overlay_text, fl_profiler *prof);
