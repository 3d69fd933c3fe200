/* gpu/rec: the recording context and the compute pass verb (see rec.h). */
#include "gpu/rec.h"

#include "core/log.h"

/* The pass's pipeline: the caller's, or its kernel by name. */
static const fl_pipeline *pass_pipeline(fl_rec *r, const fl_pass *p)
{
  if (p->pipeline) return p->pipeline;
  if (!p->kernel) {
    fl_error_set("pass %s: no kernel or pipeline", p->name ? p->name : "(unnamed)");
    return NULL;
  }
  return fl_kernel(r->gpu, p->kernel, p->push_size, p->workgroup);
}

/* The shader's buffers in binding order, from a pass's list or its table by binding number. */
static bool pass_buffers(const fl_pipeline *pipe, const fl_pass *p, const fl_buffer **out, uint32_t *count)
{
  if (!p->table) {
    for (uint32_t i = 0; i < p->buffer_count && i < FL_MAX_BINDINGS; i++) out[i] = p->buffers[i];
    *count = p->buffer_count;
    return true;
  }
  for (uint32_t i = 0; i < pipe->binding_count; i++) {
    uint32_t b = pipe->binding_numbers[i];
    out[i] = b < p->table_count ? p->table[b] : NULL;
    if (!out[i]) return fl_error_set("pipeline %s: binding %u has no buffer in the table", pipe->name, b);
  }
  *count = pipe->binding_count;
  return true;
}

void fl_rec_pass(fl_rec *r, const fl_pass *p)
{
  if (r->failed) return;
  const fl_pipeline *pipe = pass_pipeline(r, p);
  const fl_buffer *buffers[FL_MAX_BINDINGS];
  uint32_t count = 0;
  VkDescriptorSet set = VK_NULL_HANDLE;
  bool ok = pipe && pass_buffers(pipe, p, buffers, &count) &&
            (pipe->binding_count == 0 && count == 0 ? true
                                                     : fl_descriptor_cache_get(r->sets, pipe, buffers, count, &set));
  if (ok && p->push_size != pipe->push_size)
    ok = fl_error_set("pipeline %s: %u bytes of push constants given, the shader's block is %u", pipe->name,
                      p->push_size, pipe->push_size);
  if (!ok) {
    r->failed = true;
    return;
  }
  if (p->name) fl_rec_begin(r, p->name, p->bytes);
  VkCommandBuffer cmd = r->cmd;
  if (r->bound != pipe->pipeline) vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe->pipeline);
  r->bound = pipe->pipeline;
  if (set) vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe->layout, 0, 1, &set, 0, NULL);
  if (pipe->push_size) vkCmdPushConstants(cmd, pipe->layout, pipe->push_stages, 0, pipe->push_size, p->push);
  /* Past 65535 groups (the guaranteed maxComputeWorkGroupCount) the grid folds
   * into y; shaders index threads with fl_thread_index() (common/compute.glsl). */
  uint32_t groups =
      p->threads ? (uint32_t)(((uint64_t)p->threads + pipe->workgroup_size - 1) / pipe->workgroup_size) : p->groups;
  uint32_t gx = groups < 65535 ? groups : 65535;
  if (groups) vkCmdDispatch(cmd, gx, (groups + gx - 1) / gx, 1);
  else if (p->indirect) vkCmdDispatchIndirect(cmd, p->indirect->buffer, p->indirect_offset);
  if (!p->no_barrier) fl_cmd_compute_barrier(cmd);
  if (p->name) fl_rec_end(r);
}

void fl_rec_begin(fl_rec *r, const char *name, uint64_t bytes)
{
  fl_gpu_begin_label(r->gpu, r->cmd, name);
  int scope = r->prof ? fl_profiler_begin(r->prof, r->slot, r->queue, r->cmd, name, bytes) : -1;
  if (r->depth < FL_REC_MAX_DEPTH) r->scopes[r->depth] = scope;
  r->depth++;
}

void fl_rec_end(fl_rec *r)
{
  if (!r->depth) return;
  r->depth--;
  if (r->prof && r->depth < FL_REC_MAX_DEPTH) fl_profiler_end(r->prof, r->slot, r->queue, r->cmd, r->scopes[r->depth]);
  fl_gpu_end_label(r->gpu, r->cmd);
}

void fl_rec_barrier(fl_rec *r) { fl_cmd_compute_barrier(r->cmd); }

bool fl_rec_bind_graphics(fl_rec *r, const fl_pipeline *pipeline, const fl_buffer *const *buffers, uint32_t count)
{
  VkDescriptorSet set = VK_NULL_HANDLE;
  if (r->failed || (count && !fl_descriptor_cache_get(r->sets, pipeline, buffers, count, &set))) {
    r->failed = true;
    return false;
  }
  vkCmdBindPipeline(r->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline->pipeline);
  r->bound = VK_NULL_HANDLE; /* its own bind point, but the next compute pass binds again all the same */
  if (set) vkCmdBindDescriptorSets(r->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline->layout, 0, 1, &set, 0, NULL);
  return true;
}

bool fl_rec_begin_once(fl_gpu *gpu, fl_descriptor_cache *sets, fl_rec *out)
{
  *out = (fl_rec){.gpu = gpu, .sets = sets, .queue = FL_QUEUE_COMPUTE};
  return fl_gpu_begin_once(gpu, &out->cmd);
}

bool fl_rec_end_once(fl_rec *r)
{
  bool ok = fl_gpu_end_once(r->gpu, r->cmd);
  r->cmd = VK_NULL_HANDLE;
  r->bound = VK_NULL_HANDLE;
  if (r->failed) return false; /* the pass's error message stands */
  return ok;
}
