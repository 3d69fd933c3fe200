/* render/renderer: render pass, pipelines, and recording of one frame's draws. */
#include "render/renderer.h"

#include "core/log.h"
#include "render/panel_imgui.h"

#include <string.h>

static VkFormat pick_depth_format(fl_gpu *gpu)
{
  VkFormat candidates[] = {VK_FORMAT_D32_SFLOAT, VK_FORMAT_X8_D24_UNORM_PACK32, VK_FORMAT_D24_UNORM_S8_UINT,
                           VK_FORMAT_D16_UNORM};
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
    VkFormatProperties p;
    vkGetPhysicalDeviceFormatProperties(gpu->physical, candidates[i], &p);
    if (p.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) return candidates[i];
  }
  return VK_FORMAT_UNDEFINED;
}

static bool create_render_pass(fl_renderer *r)
{
  VkAttachmentDescription att[2] = {
      {.format = r->color_format, .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
       .storeOp = VK_ATTACHMENT_STORE_OP_STORE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
       .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
       .finalLayout = r->final_layout},
      {.format = r->depth_format, .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
       .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
       .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
       .finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL},
  };
  VkAttachmentReference color_ref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkAttachmentReference depth_ref = {1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass = {.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
                                  .colorAttachmentCount = 1, .pColorAttachments = &color_ref,
                                  .pDepthStencilAttachment = &depth_ref};
  /* The previous frame's use of the same images (drawing, depth testing, the
   * screenshot copy, presentation through the acquire semaphore) completes
   * before this frame clears them; and the draw reads simulation buffers
   * written by compute (made visible by the semaphore wait plus this). */
  VkSubpassDependency deps[2] = {
      {.srcSubpass = VK_SUBPASS_EXTERNAL, .dstSubpass = 0,
       .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT |
                       VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
       .dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                       VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
       .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
       .dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
                        VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT},
      {.srcSubpass = 0, .dstSubpass = VK_SUBPASS_EXTERNAL,
       .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
       .dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
       .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
       .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT},
  };
  VkRenderPassCreateInfo info = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 2,
                                 .pAttachments = att, .subpassCount = 1, .pSubpasses = &subpass,
                                 .dependencyCount = 2, .pDependencies = deps};
  FL_VK_TRY(vkCreateRenderPass(r->gpu->device, &info, NULL, &r->render_pass));
  return true;
}

bool fl_renderer_create(fl_gpu *gpu, VkFormat color_format, VkImageLayout final_layout, fl_renderer *r)
{
  memset(r, 0, sizeof *r);
  r->gpu = gpu;
  r->color_format = color_format;
  r->final_layout = final_layout;
  r->depth_format = pick_depth_format(gpu);
  if (r->depth_format == VK_FORMAT_UNDEFINED) return fl_error_set("the device has no depth attachment format");
  if (!create_render_pass(r) || !fl_shadow_create(gpu, r->depth_format, &r->shadow)) return false;
  fl_graphics_desc ground = {.vertex = "render/ground.vert", .fragment = "render/ground.frag",
                             .render_pass = r->render_pass, .depth_test = true, .depth_write = true};
  fl_graphics_desc mesh = {.vertex = "render/mesh.vert", .fragment = "render/mesh.frag",
                           .render_pass = r->render_pass, .push_size = sizeof(fl_draw_push),
                           .depth_test = true, .depth_write = true, .cull = VK_CULL_MODE_NONE};
  fl_graphics_desc particles = {.vertex = "render/particles.vert", .fragment = "render/particles.frag",
                                .render_pass = r->render_pass, .push_size = sizeof(fl_draw_push),
                                .depth_test = true, .depth_write = true};
  fl_graphics_desc snow = {.vertex = "render/snow.vert", .fragment = "render/snow.frag",
                           .render_pass = r->render_pass, .push_size = sizeof(fl_snow_push),
                           .depth_test = true, .depth_write = true};
  /* Opaque: back faces of the grid's box, its fragments at the iso-surface's depth. */
  fl_graphics_desc snow_surface = {.vertex = "render/snow_volume.vert", .fragment = "render/snow_surface.frag",
                                   .render_pass = r->render_pass, .push_size = sizeof(fl_snow_push),
                                   .depth_test = true, .depth_write = true, .cull = VK_CULL_MODE_FRONT_BIT};
  /* Translucent, after the opaque passes: back faces of the grid's box, tested
   * (not written) against the scene's depth at the depth the march reports. */
  fl_graphics_desc snow_volume = {.vertex = "render/snow_volume.vert", .fragment = "render/snow_volume.frag",
                                  .render_pass = r->render_pass, .push_size = sizeof(fl_snow_push),
                                  .blend = true, .depth_test = true, .cull = VK_CULL_MODE_FRONT_BIT};
  fl_graphics_desc text = {.vertex = "render/overlay.vert", .fragment = "render/overlay.frag",
                           .render_pass = r->render_pass, .blend = true, .vertex_stride = sizeof(fl_overlay_vertex),
                           .vertex_attribute_count = 2,
                           .vertex_attributes = {{0, 0, VK_FORMAT_R32G32_SFLOAT, 0},
                                                 {1, 0, VK_FORMAT_R8G8B8A8_UNORM, 8}}};
  if (!fl_pipeline_graphics(gpu, &ground, &r->ground) || !fl_pipeline_graphics(gpu, &mesh, &r->mesh) ||
      !fl_pipeline_graphics(gpu, &particles, &r->particles) || !fl_pipeline_graphics(gpu, &snow, &r->snow) ||
      !fl_pipeline_graphics(gpu, &snow_surface, &r->snow_surface) ||
      !fl_pipeline_graphics(gpu, &snow_volume, &r->snow_volume) || !fl_pipeline_graphics(gpu, &text, &r->text) ||
      !fl_overlay_create(gpu, &r->overlay) || !fl_descriptor_cache_create(gpu, "renderer", &r->sets))
    return false;
  /* A container's winding faces inward: culling back faces leaves the walls seen from inside. */
  fl_graphics_desc cutaway = mesh;
  cutaway.cull = VK_CULL_MODE_BACK_BIT;
  if (!fl_pipeline_graphics(gpu, &cutaway, &r->mesh_cutaway)) return false;
  if (gpu->has_wireframe) {
    fl_graphics_desc wire = mesh;
    wire.wireframe = true;
    if (!fl_pipeline_graphics(gpu, &wire, &r->mesh_wire)) return false;
  }
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++)
    if (!fl_buffer_create(gpu, sizeof(fl_frame_uniforms), FL_MEMORY_UPLOAD, "frame uniforms", &r->frame_ubo[s]))
      return false;
  return true;
}

static void snow_bricks_destroy(fl_renderer *r, fl_snow_bricks *b)
{
  fl_buffer_destroy(r->gpu, &b->distance[0]);
  fl_buffer_destroy(r->gpu, &b->distance[1]);
  fl_buffer_destroy(r->gpu, &b->bounds);
  memset(b, 0, sizeof *b);
}

void fl_renderer_forget_views(fl_renderer *r)
{
  fl_descriptor_cache_reset(&r->sets);
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++) snow_bricks_destroy(r, &r->snow_bricks[s]);
}

void fl_renderer_destroy(fl_renderer *r)
{
  if (!r->gpu) return;
  fl_renderer_forget_views(r);
  fl_descriptor_cache_destroy(&r->sets);
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++) fl_buffer_destroy(r->gpu, &r->frame_ubo[s]);
  fl_overlay_destroy(r->gpu, &r->overlay);
  fl_shadow_destroy(&r->shadow);
  fl_pipeline_destroy(r->gpu, &r->ground);
  fl_pipeline_destroy(r->gpu, &r->mesh);
  fl_pipeline_destroy(r->gpu, &r->mesh_wire);
  fl_pipeline_destroy(r->gpu, &r->mesh_cutaway);
  fl_pipeline_destroy(r->gpu, &r->particles);
  fl_pipeline_destroy(r->gpu, &r->snow);
  fl_pipeline_destroy(r->gpu, &r->snow_surface);
  fl_pipeline_destroy(r->gpu, &r->snow_volume);
  fl_pipeline_destroy(r->gpu, &r->text);
  if (r->render_pass) vkDestroyRenderPass(r->gpu->device, r->render_pass, NULL);
  memset(r, 0, sizeof *r);
}

/* The ray march of the snow volume: at most this many steps (lavapipe is slow), this far apart (in cells). */
#define SNOW_VOLUME_MAX_STEPS 192u
#define SNOW_VOLUME_STEP 1.0f
/* The volume's extinction at the rest density, per node spacing: e^-2.5 through one cell of packed snow. */
#define SNOW_VOLUME_OPACITY 2.5f
/* Density (a fraction of the rest density) below which the volume is empty space. */
#define SNOW_VOLUME_EMPTY 0.01f
/* The surface look: the iso-surface at this fraction of the rest density, marched
 * a cell at a time; the particles looser than SNOW_SPRAY_Q are drawn as beads. */
#define SNOW_SURFACE_ISO 0.35f
#define SNOW_SPRAY_Q 0.2f

static const fl_pipeline *view_pipeline(const fl_renderer *r, fl_view_kind kind)
{
  switch (kind) {
  case FL_VIEW_MESH: return r->wireframe && r->mesh_wire.pipeline ? &r->mesh_wire : &r->mesh;
  case FL_VIEW_PARTICLES: return &r->particles;
  case FL_VIEW_SNOW: return &r->snow;
  case FL_VIEW_SNOW_VOLUME: return &r->snow_volume;
  }
  return &r->particles;
}

/* The constants of the snow passes for view `v` (either snow kind). */
static fl_snow_push snow_push(const fl_render_view *v)
{
  float h = v->grid_spacing, rho0 = v->rest_density > 0.0f ? v->rest_density : 400.0f;
  return (fl_snow_push){
      .color = {v->color[0], v->color[1], v->color[2], v->color[3]},
      .offset = {v->offset[0], v->offset[1], v->offset[2]},
      .radius = v->radius,
      .grid_origin = {v->grid_origin[0], v->grid_origin[1], v->grid_origin[2]},
      .h = h,
      .dims = {v->grid_dims[0], v->grid_dims[1], v->grid_dims[2]},
      .max_steps = SNOW_VOLUME_MAX_STEPS,
      .rest_density = rho0,
      .extinction = h > 0.0f ? SNOW_VOLUME_OPACITY / h : 0.0f,
      .step = SNOW_VOLUME_STEP * h,
      .empty_density = SNOW_VOLUME_EMPTY * rho0,
      .iso = SNOW_SURFACE_ISO};
}

/* Draws every view of `kind` (meshes, particles, snow impostors; with
 * `spray_only`, only the snow looser than the surface look draws). */
static void draw_views(fl_renderer *r, fl_rec *rec, const fl_render_view *views, uint32_t count, fl_view_kind kind,
                       bool spray_only)
{
  VkCommandBuffer cmd = rec->cmd;
  for (uint32_t i = 0; i < count; i++) {
    const fl_render_view *v = &views[i];
    if (v->kind != kind || v->count == 0 || v->color[3] <= 0.0f) continue;
    const fl_pipeline *p = v->cutaway && !r->wireframe ? &r->mesh_cutaway : view_pipeline(r, kind);
    const fl_buffer *ubo = &r->frame_ubo[rec->slot];
    const fl_buffer *with_normals[] = {ubo, v->positions, v->normals, &r->shadow.map[rec->slot]},
                    *plain[] = {ubo, v->positions};
    bool bound = kind == FL_VIEW_MESH ? fl_rec_bind_graphics(rec, p, with_normals, 4)
                                      : fl_rec_bind_graphics(rec, p, plain, 2);
    if (!bound) return;
    if (kind == FL_VIEW_SNOW) {
      fl_snow_push push = snow_push(v);
      if (spray_only) push.loose_q = SNOW_SPRAY_Q;
      vkCmdPushConstants(cmd, p->layout, p->push_stages, 0, sizeof push, &push);
    } else {
      fl_draw_push push = {.color = {v->color[0], v->color[1], v->color[2], v->color[3]},
                           .offset = {v->offset[0], v->offset[1], v->offset[2]}, .radius = v->radius,
                           .rotation = {v->rotation[0], v->rotation[1], v->rotation[2], v->rotation[3]},
                           .look = v->look};
      vkCmdPushConstants(cmd, p->layout, p->push_stages, 0, sizeof push, &push);
    }
    if (kind == FL_VIEW_MESH) {
      vkCmdBindIndexBuffer(cmd, v->indices->buffer, 0, VK_INDEX_TYPE_UINT32);
      vkCmdDrawIndexed(cmd, v->count, 1, v->first, 0, 0);
    } else {
      vkCmdDraw(cmd, 6 * v->count, 1, 0, 0);
    }
  }
}

/* The first snow volume view that can be drawn, or NULL. */
static const fl_render_view *find_volume(const fl_render_view *views, uint32_t count)
{
  for (uint32_t i = 0; i < count; i++) {
    const fl_render_view *v = &views[i];
    if (v->kind == FL_VIEW_SNOW_VOLUME && v->count && v->color[3] > 0.0f && v->density && v->grid_dims[0] >= 2 &&
        v->grid_dims[1] >= 2 && v->grid_dims[2] >= 2 && v->grid_spacing > 0.0f)
      return v;
  }
  return NULL;
}

/* The slot's brick buffers for the volume view `v`, made on first use. */
static fl_snow_bricks *snow_bricks(fl_renderer *r, uint32_t slot, const fl_render_view *v)
{
  fl_snow_bricks *b = &r->snow_bricks[slot];
  if (b->density == v->density->buffer) return b;
  if (b->density) return NULL; /* another grid without fl_renderer_forget_views: cannot happen */
  uint32_t bd[3];
  for (int a = 0; a < 3; a++) bd[a] = (v->grid_dims[a] + FL_SNOW_BRICK - 2) / FL_SNOW_BRICK;
  b->brick_count = bd[0] * bd[1] * bd[2];
  VkDeviceSize bytes = sizeof(uint32_t) * b->brick_count;
  bool ok = fl_buffer_create(r->gpu, bytes, FL_MEMORY_DEVICE, "snow volume brick distance", &b->distance[0]) &&
            fl_buffer_create(r->gpu, bytes, FL_MEMORY_DEVICE, "snow volume brick distance", &b->distance[1]) &&
            fl_buffer_create(r->gpu, 8 * sizeof(uint32_t), FL_MEMORY_DEVICE, "snow volume bounds", &b->bounds);
  if (!ok) {
    fl_warn_repeated("snow volume unavailable", "renderer", "render: %s", fl_error_message());
    fl_error_clear();
    snow_bricks_destroy(r, b);
    return NULL;
  }
  b->density = v->density->buffer;
  return b;
}

/* Before the render pass: which bricks of the volume view's grid hold snow,
 * the box of those, and every brick's distance to them. NULL: nothing to draw. */
static const fl_snow_bricks *record_snow_bricks(fl_renderer *r, fl_rec *rec, const fl_render_view *v)
{
  fl_snow_bricks *b = snow_bricks(r, rec->slot, v);
  if (!b) return NULL;
  fl_rec_begin(rec, "render/snow_bricks", 0);
  /* The density comes from the compute queue, which the submission waits for at
   * the transfer stage: this barrier (from transfer) extends that to compute. */
  fl_rec_barrier(rec);
  vkCmdFillBuffer(rec->cmd, b->bounds.buffer, 0, VK_WHOLE_SIZE, 0);
  fl_rec_barrier(rec);
  fl_snow_push push = snow_push(v);
  fl_rec_pass(rec, &(fl_pass){.kernel = "render/snow_bricks", FL_PUSH(push), .threads = b->brick_count,
                              FL_BUFFERS(v->density, &b->distance[0], &b->bounds)});
  /* the distance transform along x (0 -> 1), y (1 -> 0), z (0 -> 1) */
  for (uint32_t axis = 0; axis < 3; axis++) {
    push.axis = axis;
    fl_rec_pass(rec, &(fl_pass){.kernel = "render/snow_brick_distance", FL_PUSH(push), .threads = b->brick_count,
                                .no_barrier = axis == 2,
                                FL_BUFFERS(&b->distance[axis % 2], &b->distance[1 - axis % 2])});
  }
  fl_cmd_compute_to_draw_barrier(rec->cmd);
  fl_rec_end(rec);
  return b;
}

/* The volume view's box, ray-marched: translucent (`p` snow_volume, after
 * everything opaque) or its iso-surface (snow_surface, which also reads the shadow map). */
static void draw_snow_grid(fl_renderer *r, fl_rec *rec, const fl_pipeline *p, const fl_render_view *v,
                           const fl_snow_bricks *b)
{
  const fl_buffer *buffers[] = {&r->frame_ubo[rec->slot], v->density, &b->distance[1], &b->bounds,
                                &r->shadow.map[rec->slot]};
  if (!fl_rec_bind_graphics(rec, p, buffers, p == &r->snow_surface ? 5 : 4)) return;
  fl_snow_push push = snow_push(v);
  vkCmdPushConstants(rec->cmd, p->layout, p->push_stages, 0, sizeof push, &push);
  vkCmdDraw(rec->cmd, 36, 1, 0, 0);
}

static bool has_view(const fl_render_view *views, uint32_t count, fl_view_kind kind)
{
  for (uint32_t i = 0; i < count; i++)
    if (views[i].kind == kind && views[i].count) return true;
  return false;
}

/* The labels, pins and grab point of r->markers, projected to the screen. */
static void add_markers(fl_renderer *r, uint32_t slot, VkExtent2D extent, const fl_frame_uniforms *u, float scale)
{
  static const uint8_t label_rgba[4] = {255, 228, 130, 255}, pin_rgba[4] = {255, 140, 40, 255},
                       grab_rgba[4] = {90, 220, 255, 255};
  float w = (float)extent.width, h = (float)extent.height;
  float placed[64][4]; /* labels drawn so far: x0, y0, x1, y1; a label that would overlap one moves up */
  uint32_t placed_count = 0;
  for (uint32_t k = 0; k < r->marker_count; k++) {
    const fl_marker *m = &r->markers[k];
    float x, y;
    if (!fl_markers_project((const float(*)[4])u->view_proj, w, h, m->position, &x, &y) || x < -64 || y < -64 || x > w + 64 ||
        y > h + 64)
      continue;
    if (m->kind == FL_MARKER_LABEL) {
      float s = 1.25f * scale, tw = fl_overlay_text_width(m->text, s), x0 = x - 0.5f * tw, y0 = y - 10.0f * s;
      for (bool moved = true; moved;) {
        moved = false;
        for (uint32_t i = 0; i < placed_count; i++)
          if (x0 < placed[i][2] + 4 && x0 + tw + 4 > placed[i][0] && y0 < placed[i][3] && y0 + 10.0f * s > placed[i][1]) {
            y0 = placed[i][1] - 10.0f * s;
            moved = true;
          }
      }
      if (placed_count < 64) {
        float *p = placed[placed_count++];
        p[0] = x0, p[1] = y0, p[2] = x0 + tw, p[3] = y0 + 10.0f * s;
      }
      fl_overlay_add_text(&r->overlay, slot, m->text, x0, y0, s, label_rgba);
    } else if (m->kind == FL_MARKER_PIN) {
      fl_overlay_add_box(&r->overlay, slot, x, y, 2.0f * scale, pin_rgba);
    } else {
      fl_overlay_add_box(&r->overlay, slot, x, y, 4.0f * scale, grab_rgba);
    }
  }
}

void fl_renderer_record(fl_renderer *r, VkCommandBuffer cmd, uint32_t slot, VkFramebuffer framebuffer,
                        VkExtent2D extent, const fl_frame_uniforms *uniforms, const fl_render_view *views,
                        uint32_t view_count, const char *overlay_text, fl_profiler *prof)
{
  memcpy(r->frame_ubo[slot].mapped, uniforms, sizeof *uniforms);
  float text_scale = extent.height >= 600 ? 1.5f : 1.0f; /* 12-pixel lines, larger where the window has room */
  fl_overlay_clear(&r->overlay, slot);
  add_markers(r, slot, extent, uniforms, text_scale);
  if (overlay_text) fl_overlay_add_text(&r->overlay, slot, overlay_text, 8.0f, 8.0f, text_scale, NULL);
  fl_rec rec = {.gpu = r->gpu, .cmd = cmd, .sets = &r->sets, .prof = prof, .slot = slot, .queue = FL_QUEUE_GRAPHICS};
  const fl_buffer *ubo[] = {&r->frame_ubo[slot]};

  VkClearValue clears[2] = {{.color = {{0.55f, 0.6f, 0.68f, 1.0f}}}, {.depthStencil = {1.0f, 0}}};
  VkRenderPassBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .renderPass = r->render_pass,
                                 .framebuffer = framebuffer, .renderArea = {{0, 0}, extent},
                                 .clearValueCount = 2, .pClearValues = clears};
  fl_rec_begin(&rec, "render", 0);
  bool grid_look = r->snow_look == FL_SNOW_LOOK_SURFACE || r->snow_look == FL_SNOW_LOOK_VOLUME;
  const fl_render_view *volume = grid_look ? find_volume(views, view_count) : NULL;
  const fl_snow_bricks *bricks = volume ? record_snow_bricks(r, &rec, volume) : NULL;
  if (uniforms->shadow_size) fl_shadow_record(&r->shadow, &rec, ubo[0], views, view_count);
  vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
  VkViewport viewport = {0, 0, (float)extent.width, (float)extent.height, 0, 1};
  VkRect2D scissor = {{0, 0}, extent};
  vkCmdSetViewport(cmd, 0, 1, &viewport);
  vkCmdSetScissor(cmd, 0, 1, &scissor);

  fl_rec_begin(&rec, "render/ground", 0);
  const fl_buffer *ground[] = {ubo[0], &r->shadow.map[slot]};
  if (fl_rec_bind_graphics(&rec, &r->ground, ground, 2)) vkCmdDraw(cmd, 6, 1, 0, 0);
  fl_rec_end(&rec);

  fl_rec_begin(&rec, "render/meshes", 0);
  draw_views(r, &rec, views, view_count, FL_VIEW_MESH, false);
  fl_rec_end(&rec);

  fl_rec_begin(&rec, "render/particles", 0);
  draw_views(r, &rec, views, view_count, FL_VIEW_PARTICLES, false);
  fl_rec_end(&rec);

  /* Snow, in its look: the surface (opaque) and its spray as beads, every
   * particle as a bead, or the volume (translucent: after everything opaque). */
  if (bricks && r->snow_look == FL_SNOW_LOOK_SURFACE) {
    fl_rec_begin(&rec, "render/snow_surface", 0);
    draw_snow_grid(r, &rec, &r->snow_surface, volume, bricks);
    fl_rec_end(&rec);
  }
  if (r->snow_look != FL_SNOW_LOOK_VOLUME && has_view(views, view_count, FL_VIEW_SNOW)) {
    fl_rec_begin(&rec, "render/snow", 0);
    draw_views(r, &rec, views, view_count, FL_VIEW_SNOW, bricks != NULL); /* with the surface: its spray */
    fl_rec_end(&rec);
  }
  if (bricks && r->snow_look == FL_SNOW_LOOK_VOLUME) {
    fl_rec_begin(&rec, "render/snow_volume", 0);
    draw_snow_grid(r, &rec, &r->snow_volume, volume, bricks);
    fl_rec_end(&rec);
  }

  if (r->overlay.vertex_count[slot]) {
    fl_rec_begin(&rec, "render/overlay", 0);
    if (fl_rec_bind_graphics(&rec, &r->text, ubo, 1)) {
      VkDeviceSize offset = 0;
      vkCmdBindVertexBuffers(cmd, 0, 1, &r->overlay.vertices[slot].buffer, &offset);
      vkCmdDraw(cmd, r->overlay.vertex_count[slot], 1, 0, 0);
    }
    fl_rec_end(&rec);
  }
  if (r->draw_panel) {
    fl_rec_begin(&rec, "render/panel", 0);
    fl_panel_imgui_record(cmd);
    fl_rec_end(&rec);
  }
  vkCmdEndRenderPass(cmd);
  fl_rec_end(&rec);
  if (rec.failed) { /* a failure here repeats every frame: print it once, count the rest */
    fl_warn_repeated("render failed", "renderer", "render: %s", fl_error_message());
    fl_error_clear();
  }
}
