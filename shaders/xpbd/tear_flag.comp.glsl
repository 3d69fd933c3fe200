// xpbd/tear_flag.comp: once a frame, every distance constraint (i, j) of a tearing cloth whose strain
// e = |x_i - x_j| / rest - 1 passes its object's tear_strain is appended to the report
// (common/tear_shared.h), which the CPU reads a frame or two later (sim/xpbd/tear_gpu.h).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "tear_shared.h"

layout(std430, binding = 0) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Constraints { fl_gpu_distance constraints[]; };
layout(std430, binding = 2) readonly buffer ObjectOf { uint object_of[]; };
layout(std430, binding = 3) readonly buffer Strain { float tear_strain[]; };
layout(std430, binding = 4) buffer Report { uvec4 report[]; };
layout(push_constant) uniform Push { fl_count_push pc; };

void main()
{
  uint c = fl_thread_index();
  if (c >= pc.count) return;
  fl_gpu_distance d = constraints[c];
  float limit = tear_strain[object_of[d.i]];
  if (limit <= 0.0 || d.rest <= 0.0) return;
  float strain = length(pos[d.i].xyz - pos[d.j].xyz) / d.rest - 1.0;
  if (!(strain > limit)) return;
  uint slot = atomicAdd(report[0].x, 1u);
  if (slot < FL_TEAR_MAX_REPORTS) report[1u + slot] = uvec4(d.i, d.j, floatBitsToUint(strain), 0u);
}
