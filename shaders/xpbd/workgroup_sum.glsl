// xpbd/workgroup_sum.glsl: a deterministic sum over one workgroup of at most
// FL_BODY_WORKGROUP invocations (pairwise, in a fixed order), for the kernels
// that run one workgroup per body or object (body_volume, global_damping).
#ifndef FL_XPBD_WORKGROUP_SUM_GLSL
#define FL_XPBD_WORKGROUP_SUM_GLSL
shared float s_sum[FL_BODY_WORKGROUP];

// The workgroup's sum of v, pairwise in a fixed order (every invocation gets it).
float workgroup_sum(float v)
{
  uint lid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
  s_sum[lid] = v;
  barrier();
  uint half_size = 1u;
  while (half_size * 2u < wg) half_size *= 2u;
  for (uint s = half_size; s > 0u; s >>= 1u) {
    if (lid < s && lid + s < wg) s_sum[lid] += s_sum[lid + s];
    barrier();
  }
  float total = s_sum[0];
  barrier();
  return total;
}

vec3 workgroup_sum3(vec3 v) { return vec3(workgroup_sum(v.x), workgroup_sum(v.y), workgroup_sum(v.z)); }
#endif
