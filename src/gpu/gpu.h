/* gpu/gpu: the thin layer over Vulkan that every other layer uses.
 *
 * It owns the instance (with optional validation), the chosen device, its
 * queues (a graphics+present queue and, when the device has a separate compute
 * family, an async compute queue; otherwise both are the same VkQueue), the
 * memory sub-allocator, the pipeline cache and the compute kernels made so far
 * (fl_kernel). It knows nothing of physics or of what is drawn. Recording
 * passes: gpu/rec.h; descriptor sets: gpu/descriptor_cache.h.
 *
 * Errors: functions return false (or a null handle) with fl_error_message()
 * set, VK_ERROR_DEVICE_LOST and out-of-memory included (fl_vk_fail): the app
 * unwinds, waits for the device and exits with the message. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <volk.h>

#include "gpu/suballoc.h"

#define FL_GPU_FRAMES_IN_FLIGHT 2

typedef struct {
  bool validation;          /* VK_LAYER_KHRONOS_validation + synchronization validation */
  bool no_async;            /* force the one-queue path */
  bool patient;             /* one-shot waits (fl_fence_wait) have no time limit: not an interactive run */
  bool need_present;        /* the device must be able to present (windowed mode) */
  const char *device;       /* "N" or a name substring; NULL = prefer discrete > integrated > virtual > CPU */
  const char **instance_extensions; /* extra instance extensions (the window system's) */
  uint32_t instance_extension_count;
  /* When need_present: can this queue family present? (the window system answers) */
  bool (*present_support)(VkInstance instance, VkPhysicalDevice device, uint32_t family);
} fl_gpu_desc;

typedef struct {
  uint64_t errors, warnings, infos;
} fl_validation_counts;

typedef struct fl_memory_block fl_memory_block;
struct fl_kernel_table;

typedef struct {
  VkBuffer buffer;
  VkDeviceSize size;
  VkDeviceSize offset;      /* within its memory block */
  fl_memory_block *block;
  void *mapped;             /* non-NULL for host-visible buffers */
} fl_buffer;

typedef struct {
  VkImage image;
  VkImageView view;
  VkFormat format;
  VkExtent2D extent;
  VkDeviceSize offset;
  fl_memory_block *block;
} fl_image;

typedef enum {
  FL_MEMORY_DEVICE,         /* device-local */
  FL_MEMORY_UPLOAD,         /* host-visible, coherent, written by the CPU */
  FL_MEMORY_READBACK,       /* host-visible, cached when possible, read by the CPU */
} fl_memory_kind;

/* One-shot command buffers fl_gpu_end_once keeps for reuse instead of freeing (gpu/commands.c). */
#define FL_GPU_ONCE_SPARES 4

typedef struct fl_gpu {
  VkInstance instance;
  VkDebugUtilsMessengerEXT messenger;
  VkPhysicalDevice physical;
  VkDevice device;
  VkPhysicalDeviceProperties props;
  VkPhysicalDeviceMemoryProperties mem_props;
  char driver_name[VK_MAX_DRIVER_NAME_SIZE];
  char driver_info[VK_MAX_DRIVER_INFO_SIZE];

  uint32_t graphics_family, compute_family;
  VkQueue graphics_queue, compute_queue; /* the same queue when !async_compute */
  bool async_compute;
  /* FLURRY_EMULATE_ASYNC=1 (a test mode, docs/PORTING.md): on one queue, the frame
   * loop drops the same-queue barrier between the simulation and the drawing, so
   * only the timeline-semaphore waits order them, as on two queues. */
  bool emulate_async;
  uint32_t timestamp_valid_bits[2];     /* [0] graphics family, [1] compute family */

  /* Probed features; each has a fallback path (see docs/ARCHITECTURE.md). */
  bool has_float_atomic_add;            /* VK_EXT_shader_atomic_float, buffer add */
  bool has_shared_float_atomic_add;     /* VK_EXT_shader_atomic_float, shared-memory add (the snow P2G tile) */
  bool has_debug_utils;
  bool has_wireframe;                   /* fillModeNonSolid: polygon mode LINE */
  bool has_calibrated_timestamps;       /* VK_EXT_calibrated_timestamps, device + CLOCK_MONOTONIC (--trace) */
  uint32_t subgroup_size;
  VkDriverId driver_id;
  /* llvmpipe resolves a timestamp when its binned scene is flushed, which can be
   * after the dispatch that follows it: a compute scope's opening timestamp
   * must be followed by a flush (a barrier) to bracket the work. */
  bool timestamp_needs_flush;
  bool patient;              /* fl_gpu_desc.patient */

  bool validation;
  fl_validation_counts counts;

  fl_memory_block *blocks;              /* singly linked */
  VkPipelineCache pipeline_cache;
  char pipeline_cache_path[512];
  struct fl_kernel_table *kernels;      /* fl_kernel's pipelines (gpu/kernels.c) */
  /* The collider features (FL_COLLIDER_FEATURE_*) the kernels made from now on keep:
   * specialization constant 1 of shaders/common/sdf.glsl. fl_gpu_create sets all
   * (correct for any colliders, slow on llvmpipe); the world narrows it to its
   * colliders' before it makes a kernel; fl_kernel keys its pipelines on it. */
  uint32_t collider_features;
  VkCommandPool upload_pool;            /* one-shot transfers on the graphics queue */
  /* Finished one-shot command buffers kept for the next fl_gpu_begin_once (gpu/commands.c). */
  VkCommandBuffer once_spare[FL_GPU_ONCE_SPARES];
  uint32_t once_spare_count;
} fl_gpu;

/* ---- instance and device (gpu/instance.c, gpu/device.c) ---- */

/* Creates the instance, picks and creates the device and its queues. */
bool fl_gpu_create(const fl_gpu_desc *desc, fl_gpu *gpu);
/* Waits idle and destroys everything fl_gpu_create made; accepts a zeroed gpu. */
void fl_gpu_destroy(fl_gpu *gpu);
/* Shutdown only (and after a timed-out fence wait): waits without a limit until the
 * device has finished all it was given, so that every exit path may destroy what
 * the frames still use; a lost device counts as finished. */
void fl_gpu_wait_idle(fl_gpu *gpu);
/* Prints every physical device: index, name, type, driver, API, queue families;
 * verbose: also what flurry depends on and the path it takes (gpu/device_caps.h). */
bool fl_gpu_list_devices(bool verbose);
/* Human-readable device type ("discrete", "integrated", "virtual", "cpu", "other"). */
const char *fl_gpu_device_type_name(VkPhysicalDeviceType type);
/* Gives a Vulkan object a name that RenderDoc and the validation layer show. */
void fl_gpu_set_name(fl_gpu *gpu, VkObjectType type, uint64_t handle, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Opens and closes a named command-buffer region (debug utils label). */
void fl_gpu_begin_label(fl_gpu *gpu, VkCommandBuffer cmd, const char *name);
void fl_gpu_end_label(fl_gpu *gpu, VkCommandBuffer cmd);

/* Calls fn(name, workgroup size chosen) for every compute kernel made so far (gpu/kernels.c). */
void fl_kernels_each(const fl_gpu *gpu, void (*fn)(void *user, const char *name, uint32_t workgroup), void *user);

/* ---- results (gpu/check.c) ---- */

/* The enum name of a VkResult ("VK_ERROR_DEVICE_LOST"). */
const char *fl_vk_result_name(VkResult result);
/* Handles a failed call: records an error naming the call, result, file and line
 * (and what a lost device or exhausted memory means), and returns false. */
bool fl_vk_fail(VkResult result, const char *call, const char *file, int line);
#define FL_VK_TRY(call)                                                   \
  do {                                                                    \
    VkResult fl_vk_r_ = (call);                                           \
    if (fl_vk_r_ < 0) return fl_vk_fail(fl_vk_r_, #call, __FILE__, __LINE__); \
  } while (0)

/* ---- memory, buffers, images (gpu/memory.c, gpu/transfer.c) ---- */

/* Creates a buffer in a sub-allocated block. Device buffers are storage +
 * vertex + index + transfer src/dst; sizes are checked against the heap and
 * maxStorageBufferRange first. `name` labels it for debuggers and errors. */
bool fl_buffer_create(fl_gpu *gpu, VkDeviceSize size, fl_memory_kind kind, const char *name,
                      fl_buffer *out);
/* Frees the buffer's range and zeroes it; accepts a zeroed buffer. */
void fl_buffer_destroy(fl_gpu *gpu, fl_buffer *buffer);
/* Copies `size` bytes from host memory into a device buffer at `offset` (staging + wait; load time only). */
bool fl_buffer_upload(fl_gpu *gpu, fl_buffer *dst, VkDeviceSize offset, const void *data,
                      VkDeviceSize size);
/* Copies `size` bytes of a device buffer into host memory (readback + wait; reports and dumps only). */
bool fl_buffer_readback(fl_gpu *gpu, const fl_buffer *src, VkDeviceSize offset, void *data,
                        VkDeviceSize size);
/* Fills a device buffer with a 32-bit pattern (load time; waits). */
bool fl_buffer_fill(fl_gpu *gpu, fl_buffer *dst, uint32_t value);
/* A device buffer holding `bytes` of `data` (NULL: zeros); 0 bytes makes 16
 * zero bytes, so that an empty array still binds (load time; waits). */
bool fl_buffer_create_with(fl_gpu *gpu, const void *data, VkDeviceSize bytes, const char *name, fl_buffer *out);
/* Creates a 2D device-local image with a view. `usage` as Vulkan's. */
bool fl_image_create(fl_gpu *gpu, VkExtent2D extent, VkFormat format, VkImageUsageFlags usage,
                     VkImageAspectFlags aspect, const char *name, fl_image *out);
void fl_image_destroy(fl_gpu *gpu, fl_image *image);
/* Total bytes currently sub-allocated, for reports. */
VkDeviceSize fl_gpu_memory_used(const fl_gpu *gpu);
/* Frees every memory block (device teardown). */
void fl_memory_destroy_all(fl_gpu *gpu);

/* ---- one-shot command buffers and barriers (gpu/commands.c) ---- */

/* Begins a one-shot command buffer on the graphics queue. */
bool fl_gpu_begin_once(fl_gpu *gpu, VkCommandBuffer *cmd);
/* Submits it, waits with a finite timeout, and frees it. */
bool fl_gpu_end_once(fl_gpu *gpu, VkCommandBuffer cmd);
/* Writes the opening timestamp of a timed compute region (and, where the
 * driver needs it, the flush that makes it precede the work; see fl_gpu). */
void fl_cmd_timestamp_begin(const fl_gpu *gpu, VkCommandBuffer cmd, VkQueryPool pool, uint32_t query);
/* A global memory barrier between compute/transfer writes and later compute/transfer/vertex reads and writes
 * (and the dispatch-indirect reads of fl_pass.indirect). */
void fl_cmd_compute_barrier(VkCommandBuffer cmd);
/* A global barrier from compute/transfer writes to vertex/index/shader reads of a draw. */
void fl_cmd_compute_to_draw_barrier(VkCommandBuffer cmd);
/* Makes transfer writes (copies into readback buffers) visible to the host once the submission's fence signals. */
void fl_cmd_transfer_to_host_barrier(VkCommandBuffer cmd);
/* Transitions a whole colour or depth image between layouts with the given stages and accesses. */
void fl_cmd_image_barrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect,
                          VkImageLayout from, VkImageLayout to, VkPipelineStageFlags src_stage,
                          VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                          VkAccessFlags dst_access);
/* Creates a timeline semaphore starting at `initial`. */
bool fl_timeline_create(fl_gpu *gpu, uint64_t initial, const char *name, VkSemaphore *out);
/* Waits on the host until a fence signals, at most FLURRY_FENCE_TIMEOUT_MS (10 s); a timeout
 * is an error, recorded after the device has finished (so the caller may free what it used).
 * On a gpu made with .patient (headless, --bench, experiments) and no FLURRY_FENCE_TIMEOUT_MS,
 * it waits as long as the device needs, with an info line every 10 s: a slow device's long
 * submission is not a hang there (issue 14 item 3). */
bool fl_fence_wait(fl_gpu *gpu, VkFence fence);

/* ---- pipelines and descriptors (gpu/pipeline.c, gpu/pipeline_cache.c) ---- */

#define FL_MAX_BINDINGS 16

typedef struct {
  VkPipeline pipeline;
  VkPipelineLayout layout;
  VkDescriptorSetLayout set_layout;
  VkPipelineBindPoint bind_point;
  uint32_t binding_count;
  uint32_t binding_numbers[FL_MAX_BINDINGS];
  VkDescriptorType binding_types[FL_MAX_BINDINGS];
  uint32_t push_size;
  VkShaderStageFlags push_stages;
  uint32_t workgroup_size;  /* compute: the chosen local_size_x */
  bool uses_collider_features; /* compute: specialized on fl_gpu.collider_features (constant_id 1) */
  char name[64];
} fl_pipeline;

/* The workgroup size kernels get when they ask for none: FLURRY_WORKGROUP_SIZE
 * (1..1024) if set, else FL_WORKGROUP_SIZE; always clamped to the device's limits. */
uint32_t fl_default_workgroup_size(void);
/* Creates a compute pipeline from shaders/NAME.spv (NAME like "particles/integrate.comp").
 * The descriptor set layout and push-constant range come from SPIR-V reflection;
 * `push_size` must match the shader's block (0 = none). local_size_x comes from
 * specialization constant 0 (`workgroup_size`, or fl_default_workgroup_size() when 0),
 * clamped to the device limit; a shader that declares constant_id 1 (common/sdf.glsl)
 * gets gpu->collider_features there. */
bool fl_pipeline_compute(fl_gpu *gpu, const char *name, uint32_t push_size, uint32_t workgroup_size,
                         fl_pipeline *out);

typedef struct {
  const char *vertex, *fragment;   /* shaders/NAME.spv */
  VkRenderPass render_pass;
  uint32_t push_size;
  VkPrimitiveTopology topology;    /* 0 = triangle list */
  bool blend;                      /* alpha blending */
  bool wireframe;                  /* polygon mode LINE (needs gpu->has_wireframe) */
  bool depth_test, depth_write;
  VkCullModeFlags cull;
  /* Optional vertex input (overlay text); zero = vertices pulled from storage buffers. */
  uint32_t vertex_stride;
  uint32_t vertex_attribute_count;
  VkVertexInputAttributeDescription vertex_attributes[4];
} fl_graphics_desc;

/* Creates a graphics pipeline; layouts from the reflection of both stages. */
bool fl_pipeline_graphics(fl_gpu *gpu, const fl_graphics_desc *desc, fl_pipeline *out);
void fl_pipeline_destroy(fl_gpu *gpu, fl_pipeline *pipeline);

/* The compute pipeline of shaders/NAME.comp (NAME like "xpbd/predict") with
 * `push_size` bytes of push constants and local_size_x `workgroup` (0: the
 * default), made on first use and kept until fl_gpu_destroy. NULL (with the
 * error) when the shader does not load or its push-constant block differs. */
const fl_pipeline *fl_kernel(fl_gpu *gpu, const char *name, uint32_t push_size, uint32_t workgroup);
/* Destroys every kernel (device teardown). */
void fl_kernels_destroy(fl_gpu *gpu);

/* Loads the per-user pipeline cache ($XDG_CACHE_HOME/flurry/pipelines-<vendor>-<device>.bin);
 * a file whose header names another vendor, device, or driver UUID is ignored. */
bool fl_pipeline_cache_load(fl_gpu *gpu);
/* Writes the cache back; failures are warnings. */
void fl_pipeline_cache_save(fl_gpu *gpu);
/* True when `data` starts with a valid cache header for this device (exposed for tests). */
bool fl_pipeline_cache_header_matches(const fl_gpu *gpu, const void *data, size_t size);

/* ---- SPIR-V files ---- */

/* Reads shaders/NAME.spv from the data directory into a malloc'd word array. */
uint32_t *fl_spirv_load(const char *name, size_t *word_count);
