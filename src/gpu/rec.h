/* gpu/rec: recording GPU work. An fl_rec is what every record call carries
 * (command buffer, descriptor sets, profiler, frame slot, queue); one call,
 * fl_rec_pass, records a whole compute pass: debug label and timestamp scope
 * with its byte count, the kernel, its buffers named at the call site, push
 * constants, the dispatch and the barrier after it. For example:
 *
 *   fl_rec_pass(r, &(fl_pass){
 *       .name = "snow/g2p", .bytes = fl_snow_g2p_bytes(s),
 *       .kernel = "mpm/g2p", FL_PUSH(push), .threads = s->build.count,
 *       FL_BUFFERS(&s->pos, &s->vel, &s->fe, &s->stress, &s->affine, &s->gridv, &s->stats,
 *                  colliders, &s->materials)});
 *
 * Fields left zero take their defaults: no scope of its own (the pass is part
 * of the caller's fl_rec_begin/end scope), the default workgroup size, and a
 * compute barrier after the dispatch. Descriptor sets come from the rec's
 * cache (gpu/descriptor_cache.h): made on first use, never freed pass by pass.
 *
 * A pass that cannot be recorded (a shader that does not load, buffers that
 * do not match the shader) marks the rec failed and records nothing more;
 * fl_error_message() says why, and the owner of the rec reports it. */
#pragma once
#include "gpu/descriptor_cache.h"
#include "gpu/gpu.h"
#include "gpu/profiler.h"

#define FL_REC_MAX_DEPTH 4

typedef struct {
  fl_gpu *gpu;
  VkCommandBuffer cmd;
  fl_descriptor_cache *sets;      /* where the passes' descriptor sets come from */
  fl_profiler *prof;              /* NULL: untimed (load-time work, tests) */
  uint32_t slot;                  /* frame slot of the profiler's queries */
  fl_queue_role queue;            /* the queue whose profiler queries its scopes use */
  int scopes[FL_REC_MAX_DEPTH];   /* open fl_rec_begin scopes */
  uint32_t depth;
  bool failed;                    /* a pass could not be recorded: see fl_error_message() */
  VkPipeline bound;               /* the compute pipeline fl_rec_pass last bound in cmd, which the next
                                   * pass with the same one does not bind again; VK_NULL_HANDLE: none
                                   * known (a rec starts so: one rec per command buffer, and every
                                   * compute bind in it goes through fl_rec_pass) */
} fl_rec;

/* One compute pass. */
typedef struct {
  const char *name;               /* profiler scope and debug label ("xpbd/predict"); NULL: none */
  uint64_t bytes;                 /* bytes the pass must move per execution (the scope's GB/s) */
  const char *kernel;             /* shaders/<kernel>.comp through fl_kernel ... */
  const fl_pipeline *pipeline;    /* ... or a pipeline the caller made */
  uint32_t workgroup;             /* the kernel's workgroup size (0: fl_default_workgroup_size) */
  const fl_buffer *const *buffers;/* the shader's bindings in binding-number order ... */
  uint32_t buffer_count;
  const fl_buffer *const *table;  /* ... or a table indexed by binding number (kernels that declare
                                   * their buffers at fixed numbers, e.g. shaders/xpbd/buffers.glsl) */
  uint32_t table_count;
  const void *push;               /* push constants (FL_PUSH) */
  uint32_t push_size;
  uint32_t threads;               /* invocations: ceil(threads / workgroup size) groups (folded into y past 65535) */
  uint32_t groups;                /* or whole workgroups (one per item, e.g. per body), when threads is 0 */
  const fl_buffer *indirect;      /* or the groups a GPU pass wrote (VkDispatchIndirectCommand at indirect_offset),
                                   * when threads and groups are 0 */
  uint64_t indirect_offset;
  bool no_barrier;                /* the next pass does not read what this one writes */
} fl_pass;

/* The buffers of a pass, in binding order: FL_BUFFERS(&a, &b, colliders). */
#define FL_BUFFERS(...)                                        \
  .buffers = (const fl_buffer *const[]){__VA_ARGS__},          \
  .buffer_count = (uint32_t)(sizeof((const fl_buffer *const[]){__VA_ARGS__}) / sizeof(const fl_buffer *))
/* The push constants of a pass: FL_PUSH(push) for a struct variable. */
#define FL_PUSH(value) .push = &(value), .push_size = (uint32_t)sizeof(value)

/* Records one compute pass (see above). */
void fl_rec_pass(fl_rec *r, const fl_pass *pass);
/* Opens a named scope (debug label, and a timestamp scope when r->prof) around
 * several passes and transfers; `bytes` is what they must move together. */
void fl_rec_begin(fl_rec *r, const char *name, uint64_t bytes);
/* Closes the innermost scope. */
void fl_rec_end(fl_rec *r);
/* A compute barrier (fl_cmd_compute_barrier) in the rec's command buffer. */
void fl_rec_barrier(fl_rec *r);
/* Binds a graphics pipeline and its set of `buffers` (binding order), for a draw. */
bool fl_rec_bind_graphics(fl_rec *r, const fl_pipeline *pipeline, const fl_buffer *const *buffers, uint32_t count);
/* A rec on a one-shot command buffer (load-time work, tests): untimed until the
 * caller sets prof; submitted to the graphics queue, profiled as compute work. */
bool fl_rec_begin_once(fl_gpu *gpu, fl_descriptor_cache *sets, fl_rec *out);
/* Submits it and waits for it; false (with the reason) if a pass failed or the GPU did. */
bool fl_rec_end_once(fl_rec *r);
