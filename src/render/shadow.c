/* render/shadow: the shadow pass and its map (see shadow.h). */
#include "render/shadow.h"

#include "core/log.h"

#include <cglm/cglm.h>
#include <string.h>

static bool create_render_pass(fl_shadow *s)
{
  VkAttachmentDescription att[2] = {
      {.format = VK_FORMAT_R8_UNORM, .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
       .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
       .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
       .finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL},
      {.format = s->depth_format, .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
       .storeOp = VK_ATTACHMENT_STORE_OP_STORE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
       .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
       .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL},
  };
  VkAttachmentReference color_ref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkAttachmentReference depth_ref = {1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass = {.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
                                  .pColorAttachments = &color_ref, .pDepthStencilAttachment = &depth_ref};
  /* In: the previous frame's copy out of the depth image (transfer read) and use
   * of the placeholder finish before this pass clears them. Out: the depth
   * written here is what the copy reads. */
  VkSubpassDependency deps[2] = {
      {.srcSubpass = VK_SUBPASS_EXTERNAL, .dstSubpass = 0,
       .srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                       VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
       .dstStageMask = VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT |
                       VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
       .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
       .dstAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                        VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT},
      {.srcSubpass = 0, .dstSubpass = VK_SUBPASS_EXTERNAL,
       .srcStageMask = VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT,
       .dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
       .srcAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
       .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT},
  };
  VkRenderPassCreateInfo info = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 2,
                                 .pAttachments = att, .subpassCount = 1, .pSubpasses = &subpass,
                                 .dependencyCount = 2, .pDependencies = deps};
  FL_VK_TRY(vkCreateRenderPass(s->gpu->device, &info, NULL, &s->render_pass));
  return true;
}

bool fl_shadow_create(fl_gpu *gpu, VkFormat depth_format, fl_shadow *s)
{
  memset(s, 0, sizeof *s);
  s->gpu = gpu;
  s->depth_format = VK_FORMAT_D32_SFLOAT; /* the map is read as floats */
  VkFormatProperties p;
  vkGetPhysicalDeviceFormatProperties(gpu->physical, s->depth_format, &p);
  if (!(p.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) ||
      !(p.optimalTilingFeatures & VK_FORMAT_FEATURE_TRANSFER_SRC_BIT) || depth_format == VK_FORMAT_UNDEFINED)
    return fl_error_set("shadow map: the device cannot render and copy D32_SFLOAT depth");
  VkExtent2D extent = {FL_SHADOW_SIZE, FL_SHADOW_SIZE};
  if (!create_render_pass(s) ||
      !fl_image_create(gpu, extent, s->depth_format,
                       VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                       VK_IMAGE_ASPECT_DEPTH_BIT, "shadow depth", &s->depth) ||
      !fl_image_create(gpu, extent, VK_FORMAT_R8_UNORM,
                       VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT,
                       VK_IMAGE_ASPECT_COLOR_BIT, "shadow placeholder", &s->color))
    return false;
  VkImageView views[2] = {s->color.view, s->depth.view};
  VkFramebufferCreateInfo fb = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, .renderPass = s->render_pass,
                                .attachmentCount = 2, .pAttachments = views, .width = FL_SHADOW_SIZE,
                                .height = FL_SHADOW_SIZE, .layers = 1};
  FL_VK_TRY(vkCreateFramebuffer(gpu->device, &fb, NULL, &s->framebuffer));
  for (uint32_t slot = 0; slot < FL_GPU_FRAMES_IN_FLIGHT; slot++)
    if (!fl_buffer_create(gpu, sizeof(float) * FL_SHADOW_SIZE * FL_SHADOW_SIZE, FL_MEMORY_DEVICE, "shadow map",
                          &s->map[slot]))
      return false;
  fl_graphics_desc mesh = {.vertex = "render/shadow_mesh.vert", .fragment = "render/shadow.frag",
                           .render_pass = s->render_pass, .push_size = sizeof(fl_draw_push), .depth_test = true,
                           .depth_write = true, .cull = VK_CULL_MODE_NONE};
  fl_graphics_desc discs = {.vertex = "render/shadow_particles.vert", .fragment = "render/shadow_disc.frag",
                            .render_pass = s->render_pass, .push_size = sizeof(fl_draw_push), .depth_test = true,
                            .depth_write = true, .cull = VK_CULL_MODE_NONE};
  return fl_pipeline_graphics(gpu, &mesh, &s->mesh) && fl_pipeline_graphics(gpu, &discs, &s->discs);
}

void fl_shadow_destroy(fl_shadow *s)
{
  if (!s->gpu) return;
  fl_pipeline_destroy(s->gpu, &s->mesh);
  fl_pipeline_destroy(s->gpu, &s->discs);
  for (uint32_t slot = 0; slot < FL_GPU_FRAMES_IN_FLIGHT; slot++) fl_buffer_destroy(s->gpu, &s->map[slot]);
  if (s->framebuffer) vkDestroyFramebuffer(s->gpu->device, s->framebuffer, NULL);
  fl_image_destroy(s->gpu, &s->depth);
  fl_image_destroy(s->gpu, &s->color);
  if (s->render_pass) vkDestroyRenderPass(s->gpu->device, s->render_pass, NULL);
  memset(s, 0, sizeof *s);
}

float fl_shadow_light_matrix(const float light_dir[3], const float lo[3], const float hi[3], float out[4][4])
{
  vec3 a, b, center, dir = {light_dir[0], light_dir[1], light_dir[2]};
  for (int k = 0; k < 3; k++) { /* clipped to 20 m a side around the box's centre */
    float c = 0.5f * (lo[k] + hi[k]), half = 0.5f * (hi[k] - lo[k]);
    if (half > 10.0f) half = 10.0f;
    a[k] = c - half, b[k] = c + half, center[k] = c;
  }
  float radius = 0.5f * glm_vec3_distance(a, b) + 0.01f;
  vec3 eye, up = {0.0f, 1.0f, 0.0f};
  glm_vec3_scale(dir, 2.0f * radius, eye);
  glm_vec3_add(center, eye, eye);
  if (fabsf(dir[1]) > 0.99f) up[1] = 0.0f, up[2] = 1.0f;
  mat4 view, proj = GLM_MAT4_IDENTITY_INIT;
  glm_lookat(eye, center, up, view);
  /* Orthographic, Vulkan depth 0..1: the view looks down -z, depth = -z / far. */
  float far = 4.0f * radius;
  proj[0][0] = 1.0f / radius;
  proj[1][1] = 1.0f / radius;
  proj[2][2] = -1.0f / far;
  proj[3][2] = 0.0f;
  glm_mat4_mul(proj, view, out);
  return far;
}

void fl_shadow_record(fl_shadow *s, fl_rec *rec, const fl_buffer *ubo, const fl_render_view *views, uint32_t count)
{
  VkCommandBuffer cmd = rec->cmd;
  VkClearValue clears[2] = {{.color = {{0}}}, {.depthStencil = {1.0f, 0}}};
  VkRenderPassBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .renderPass = s->render_pass,
                                 .framebuffer = s->framebuffer,
                                 .renderArea = {{0, 0}, {FL_SHADOW_SIZE, FL_SHADOW_SIZE}}, .clearValueCount = 2,
                                 .pClearValues = clears};
  /* Bytes: the depth image written and copied (read + written as floats), plus the casters' positions. */
  uint64_t bytes = 3ull * sizeof(float) * FL_SHADOW_SIZE * FL_SHADOW_SIZE;
  for (uint32_t i = 0; i < count; i++) bytes += views[i].positions ? 16ull * views[i].count : 0;
  fl_rec_begin(rec, "render/shadow", bytes);
  vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
  VkViewport viewport = {0, 0, (float)FL_SHADOW_SIZE, (float)FL_SHADOW_SIZE, 0, 1};
  VkRect2D scissor = {{0, 0}, {FL_SHADOW_SIZE, FL_SHADOW_SIZE}};
  vkCmdSetViewport(cmd, 0, 1, &viewport);
  vkCmdSetScissor(cmd, 0, 1, &scissor);
  for (uint32_t i = 0; i < count; i++) {
    const fl_render_view *v = &views[i];
    bool mesh = v->kind == FL_VIEW_MESH, disc = v->kind == FL_VIEW_PARTICLES || v->kind == FL_VIEW_SNOW;
    if ((!mesh && !disc) || v->count == 0 || v->color[3] <= 0.0f || !v->positions || v->cutaway) continue;
    const fl_pipeline *p = mesh ? &s->mesh : &s->discs;
    const fl_buffer *bound[] = {ubo, v->positions};
    if (!fl_rec_bind_graphics(rec, p, bound, 2)) break;
    fl_draw_push push = {.offset = {v->offset[0], v->offset[1], v->offset[2]}, .radius = v->radius,
                         .rotation = {v->rotation[0], v->rotation[1], v->rotation[2], v->rotation[3]}};
    vkCmdPushConstants(cmd, p->layout, p->push_stages, 0, sizeof push, &push);
    if (mesh) {
      vkCmdBindIndexBuffer(cmd, v->indices->buffer, 0, VK_INDEX_TYPE_UINT32);
      vkCmdDrawIndexed(cmd, v->count, 1, v->first, 0, 0);
    } else {
      vkCmdDraw(cmd, 6 * v->count, 1, 0, 0);
    }
  }
  vkCmdEndRenderPass(cmd);
  /* The depth image (TRANSFER_SRC after the pass) into this slot's map; then the map is read by fragment shaders. */
  VkBufferImageCopy copy = {.imageSubresource = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1},
                            .imageExtent = {FL_SHADOW_SIZE, FL_SHADOW_SIZE, 1}};
  const fl_buffer *map = &s->map[rec->slot];
  vkCmdCopyImageToBuffer(cmd, s->depth.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, map->buffer, 1, &copy);
  VkBufferMemoryBarrier to_shader = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                                     .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                     .dstAccessMask = VK_ACCESS_SHADER_READ_BIT,
                                     .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                     .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .buffer = map->buffer,
                                     .offset = 0, .size = VK_WHOLE_SIZE};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, 0, NULL, 1,
                       &to_shader, 0, NULL);
  fl_rec_end(rec);
}
