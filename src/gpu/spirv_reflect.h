/* gpu/spirv_reflect: a small SPIR-V reader that recovers what a pipeline layout
 * needs from a shader module: the entry point and stage, descriptor bindings
 * (set, binding, type, array count, name), the push-constant block size, the
 * compute workgroup size (literal or specialization constant) and the
 * specialization constant ids. No Vulkan calls; only vulkan_core.h enum types.
 * Every input, however malformed, is rejected with fl_error_set rather than
 * read out of bounds. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan_core.h>

#define FL_SPIRV_MAX_BINDINGS 32
#define FL_SPIRV_MAX_SPEC_CONSTANTS 16

typedef struct {
  uint32_t set, binding;
  VkDescriptorType type;
  uint32_t count; /* descriptor array length: 1 for a non-array, 0 for a runtime array */
  char name[64];  /* the variable's name, else its block's type name, else "" */
} fl_spirv_binding;

typedef struct {
  VkShaderStageFlagBits stage;
  char entry[32];
  uint32_t binding_count;
  fl_spirv_binding bindings[FL_SPIRV_MAX_BINDINGS]; /* sorted by (set, binding) */
  uint32_t push_constant_size;   /* max(offset + size) over the block's members, rounded up to 4; 0 when none */
  uint32_t local_size[3];        /* compute workgroup size (spec-constant defaults where specializable); 0 for other stages */
  uint32_t local_size_spec_id[3]; /* SpecId that overrides local_size[i], or UINT32_MAX when it is a literal */
  uint32_t spec_constant_ids[FL_SPIRV_MAX_SPEC_CONSTANTS]; /* every scalar SpecId, ascending, unique */
  uint32_t spec_constant_count;
} fl_spirv_info;

/* Reflects a SPIR-V module (its first entry point, all resource variables);
 * on malformed or unsupported input records an error and returns false. */
bool fl_spirv_reflect(const uint32_t *words, size_t word_count, fl_spirv_info *out);

/* Merges the bindings of `count` stages (e.g. vertex + fragment) into one sorted
 * list for a single descriptor set layout: `stage_flags_out[i]` (may be NULL) gets
 * the stages that use out[i], `*push_size_out` (may be NULL) the largest push-constant
 * size. A set/binding declared with different types or counts is an error naming both. */
bool fl_spirv_merge_stages(const fl_spirv_info *stages, int count, fl_spirv_binding *out,
                           uint32_t *out_count, uint32_t max_out,
                           VkShaderStageFlags *stage_flags_out, uint32_t *push_size_out);

/* A short human name for a descriptor type ("storage buffer"), for messages. */
const char *fl_spirv_descriptor_type_name(VkDescriptorType type);
