/* gpu/pipeline: compute and graphics pipelines whose descriptor set layouts and
 * push-constant ranges are derived from SPIR-V reflection, so a shader and its
 * layout cannot drift (descriptor sets: gpu/descriptor_cache.c, checked against
 * the same reflection). */
#include "core/env.h"
#include "core/file.h"
#include "core/log.h"
#include "gpu/device_caps.h"
#include "gpu/gpu_internal.h"
#include "gpu/spirv_reflect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flurry_shared.h"

uint32_t *fl_spirv_load(const char *name, size_t *word_count)
{
  char rel[256], path[1024];
  snprintf(rel, sizeof rel, "shaders/%s.spv", name);
  fl_data_path(path, sizeof path, rel);
  size_t size = 0;
  char *data = fl_file_read(path, &size, 16u << 20);
  if (!data) return NULL;
  if (size % 4 != 0 || size < 20) {
    free(data);
    fl_error_set("%s: not a SPIR-V module (%zu bytes)", path, size);
    return NULL;
  }
  *word_count = size / 4;
  return (uint32_t *)data;
}

static bool load_module(fl_gpu *gpu, const char *name, VkShaderModule *module, fl_spirv_info *info)
{
  size_t words = 0;
  uint32_t *code = fl_spirv_load(name, &words);
  if (!code) return false;
  if (!fl_spirv_reflect(code, words, info)) {
    free(code);
    return fl_error_wrap("shader %s", name);
  }
  VkShaderModuleCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                 .codeSize = words * 4, .pCode = code};
  VkResult r = vkCreateShaderModule(gpu->device, &ci, NULL, module);
  free(code);
  if (r != VK_SUCCESS) return fl_vk_fail(r, "vkCreateShaderModule", __FILE__, __LINE__);
  fl_gpu_set_name(gpu, VK_OBJECT_TYPE_SHADER_MODULE, (uint64_t)*module, "%s", name);
  return true;
}

/* Builds the set layout and pipeline layout from the merged reflection of the stages. */
static bool build_layouts(fl_gpu *gpu, const char *name, const fl_spirv_info *stages, int count,
                          uint32_t push_size, fl_pipeline *out)
{
  fl_spirv_binding merged[FL_SPIRV_MAX_BINDINGS];
  VkShaderStageFlags flags[FL_SPIRV_MAX_BINDINGS];
  uint32_t merged_count = 0, reflected_push = 0;
  if (!fl_spirv_merge_stages(stages, count, merged, &merged_count, FL_SPIRV_MAX_BINDINGS, flags, &reflected_push))
    return fl_error_wrap("pipeline %s", name);
  if (merged_count > FL_MAX_BINDINGS)
    return fl_error_set("pipeline %s: %u bindings, at most %d supported", name, merged_count, FL_MAX_BINDINGS);
  if (reflected_push != push_size)
    return fl_error_set("pipeline %s: the shader's push-constant block is %u bytes but the C side passes %u",
                        name, reflected_push, push_size);
  if (push_size > gpu->props.limits.maxPushConstantsSize)
    return fl_error_set("pipeline %s: %u bytes of push constants, the device allows %u", name, push_size,
                        gpu->props.limits.maxPushConstantsSize);

  VkDescriptorSetLayoutBinding bindings[FL_MAX_BINDINGS];
  for (uint32_t i = 0; i < merged_count; i++) {
    if (merged[i].set != 0)
      return fl_error_set("pipeline %s: binding %s uses set %u; flurry shaders use set 0 only", name,
                          merged[i].name, merged[i].set);
    bindings[i] = (VkDescriptorSetLayoutBinding){
        .binding = merged[i].binding,
        .descriptorType = merged[i].type,
        .descriptorCount = merged[i].count ? merged[i].count : 1,
        .stageFlags = flags[i],
    };
    out->binding_numbers[i] = merged[i].binding;
    out->binding_types[i] = merged[i].type;
    out->push_stages |= flags[i];
  }
  out->binding_count = merged_count;
  for (int s = 0; s < count; s++) out->push_stages |= stages[s].stage;

  VkDescriptorSetLayoutCreateInfo sl = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                        .bindingCount = merged_count, .pBindings = bindings};
  FL_VK_TRY(vkCreateDescriptorSetLayout(gpu->device, &sl, NULL, &out->set_layout));
  VkPushConstantRange range = {.stageFlags = out->push_stages, .offset = 0, .size = push_size};
  VkPipelineLayoutCreateInfo pl = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = 1,
      .pSetLayouts = &out->set_layout,
      .pushConstantRangeCount = push_size ? 1 : 0,
      .pPushConstantRanges = &range,
  };
  FL_VK_TRY(vkCreatePipelineLayout(gpu->device, &pl, NULL, &out->layout));
  out->push_size = push_size;
  snprintf(out->name, sizeof out->name, "%s", name);
  return true;
}

uint32_t fl_workgroup_for(const VkPhysicalDeviceLimits *limits, uint32_t asked)
{
  uint32_t wg = asked ? asked : fl_default_workgroup_size();
  uint32_t max_wg = limits->maxComputeWorkGroupSize[0];
  if (limits->maxComputeWorkGroupInvocations < max_wg) max_wg = limits->maxComputeWorkGroupInvocations;
  return wg > max_wg ? max_wg : wg;
}

uint32_t fl_default_workgroup_size(void)
{
  int64_t v = fl_env_get()->workgroup_size; /* checked in 1..1024 by fl_env_load */
  return v ? (uint32_t)v : FL_WORKGROUP_SIZE;
}

bool fl_pipeline_compute(fl_gpu *gpu, const char *name, uint32_t push_size, uint32_t workgroup_size,
                         fl_pipeline *out)
{
  memset(out, 0, sizeof *out);
  out->bind_point = VK_PIPELINE_BIND_POINT_COMPUTE;
  VkShaderModule module;
  fl_spirv_info info;
  if (!load_module(gpu, name, &module, &info)) return false;
  bool ok = info.stage == VK_SHADER_STAGE_COMPUTE_BIT ||
            fl_error_set("shader %s is not a compute shader", name);
  ok = ok && build_layouts(gpu, name, &info, 1, push_size, out);

  uint32_t wg = fl_workgroup_for(&gpu->props.limits, workgroup_size);
  /* Specialization: the workgroup size (local_size_x_id) and, in the kernels that
   * include common/sdf.glsl, the collider features (constant_id 1); each only
   * where the shader declares it. */
  uint32_t values[2] = {wg, gpu->collider_features};
  VkSpecializationMapEntry entries[2];
  uint32_t entry_count = 0;
  bool specializable = info.local_size_spec_id[0] != UINT32_MAX;
  if (specializable)
    entries[entry_count++] = (VkSpecializationMapEntry){.constantID = info.local_size_spec_id[0], .offset = 0, .size = 4};
  out->uses_collider_features = false;
  for (uint32_t i = 0; i < info.spec_constant_count; i++)
    if (info.spec_constant_ids[i] == FL_COLLIDER_FEATURES_SPEC_ID &&
        info.local_size_spec_id[0] != FL_COLLIDER_FEATURES_SPEC_ID)
      out->uses_collider_features = true;
  if (out->uses_collider_features)
    entries[entry_count++] =
        (VkSpecializationMapEntry){.constantID = FL_COLLIDER_FEATURES_SPEC_ID, .offset = 4, .size = 4};
  VkSpecializationInfo spec = {.mapEntryCount = entry_count, .pMapEntries = entries, .dataSize = sizeof values,
                               .pData = values};
  out->workgroup_size = specializable ? wg : info.local_size[0];

  if (ok) {
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module,
                  .pName = info.entry,
                  .pSpecializationInfo = entry_count ? &spec : NULL},
        .layout = out->layout,
    };
    VkResult r = vkCreateComputePipelines(gpu->device, gpu->pipeline_cache, 1, &ci, NULL, &out->pipeline);
    if (r != VK_SUCCESS) ok = fl_vk_fail(r, "vkCreateComputePipelines", __FILE__, __LINE__);
  }
  vkDestroyShaderModule(gpu->device, module, NULL);
  if (!ok) {
    fl_pipeline_destroy(gpu, out);
    return false;
  }
  fl_gpu_set_name(gpu, VK_OBJECT_TYPE_PIPELINE, (uint64_t)out->pipeline, "%s", name);
  return true;
}

bool fl_pipeline_graphics(fl_gpu *gpu, const fl_graphics_desc *desc, fl_pipeline *out)
{
  memset(out, 0, sizeof *out);
  out->bind_point = VK_PIPELINE_BIND_POINT_GRAPHICS;
  VkShaderModule modules[2] = {0};
  fl_spirv_info infos[2];
  char name[64];
  snprintf(name, sizeof name, "%s", desc->vertex);
  bool ok = load_module(gpu, desc->vertex, &modules[0], &infos[0]) &&
            load_module(gpu, desc->fragment, &modules[1], &infos[1]);
  ok = ok && build_layouts(gpu, name, infos, 2, desc->push_size, out);
  if (ok) {
    VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = modules[0], .pName = infos[0].entry},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = modules[1], .pName = infos[1].entry},
    };
    VkVertexInputBindingDescription vb = {0, desc->vertex_stride, VK_VERTEX_INPUT_RATE_VERTEX};
    VkPipelineVertexInputStateCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
        .vertexBindingDescriptionCount = desc->vertex_stride ? 1 : 0,
        .pVertexBindingDescriptions = &vb,
        .vertexAttributeDescriptionCount = desc->vertex_attribute_count,
        .pVertexAttributeDescriptions = desc->vertex_attributes,
    };
    VkPipelineInputAssemblyStateCreateInfo ia = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = desc->topology ? desc->topology : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
    };
    VkPipelineViewportStateCreateInfo vp = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                            .viewportCount = 1, .scissorCount = 1};
    VkPipelineRasterizationStateCreateInfo rs = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
        .polygonMode = desc->wireframe ? VK_POLYGON_MODE_LINE : VK_POLYGON_MODE_FILL,
        .cullMode = desc->cull,
        .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
        .lineWidth = 1.0f,
    };
    VkPipelineMultisampleStateCreateInfo ms = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                               .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
    VkPipelineDepthStencilStateCreateInfo ds = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
        .depthTestEnable = desc->depth_test,
        .depthWriteEnable = desc->depth_write,
        .depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL,
    };
    VkPipelineColorBlendAttachmentState att = {
        .blendEnable = desc->blend,
        .srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA,
        .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
        .colorBlendOp = VK_BLEND_OP_ADD,
        .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
        .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
        .alphaBlendOp = VK_BLEND_OP_ADD,
        .colorWriteMask = 0xF,
    };
    VkPipelineColorBlendStateCreateInfo cb = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                              .attachmentCount = 1, .pAttachments = &att};
    VkDynamicState dyn[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dy = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                           .dynamicStateCount = 2, .pDynamicStates = dyn};
    VkGraphicsPipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
        .stageCount = 2,
        .pStages = stages,
        .pVertexInputState = &vi,
        .pInputAssemblyState = &ia,
        .pViewportState = &vp,
        .pRasterizationState = &rs,
        .pMultisampleState = &ms,
        .pDepthStencilState = &ds,
        .pColorBlendState = &cb,
        .pDynamicState = &dy,
        .layout = out->layout,
        .renderPass = desc->render_pass,
    };
    VkResult r = vkCreateGraphicsPipelines(gpu->device, gpu->pipeline_cache, 1, &ci, NULL, &out->pipeline);
    if (r != VK_SUCCESS) ok = fl_vk_fail(r, "vkCreateGraphicsPipelines", __FILE__, __LINE__);
  }
  for (int i = 0; i < 2; i++)
    if (modules[i]) vkDestroyShaderModule(gpu->device, modules[i], NULL);
  if (!ok) {
    fl_pipeline_destroy(gpu, out);
    return false;
  }
  fl_gpu_set_name(gpu, VK_OBJECT_TYPE_PIPELINE, (uint64_t)out->pipeline, "%s+%s", desc->vertex, desc->fragment);
  return true;
}

void fl_pipeline_destroy(fl_gpu *gpu, fl_pipeline *pipeline)
{
  if (pipeline->pipeline) vkDestroyPipeline(gpu->device, pipeline->pipeline, NULL);
  if (pipeline->layout) vkDestroyPipelineLayout(gpu->device, pipeline->layout, NULL);
  if (pipeline->set_layout) vkDestroyDescriptorSetLayout(gpu->device, pipeline->set_layout, NULL);
  memset(pipeline, 0, sizeof *pipeline);
}
