// common/compute.glsl: the conventions of every 1D compute kernel: the
// workgroup size is specialization constant 0, and large grids fold into y.
#ifndef FL_COMPUTE_GLSL
#define FL_COMPUTE_GLSL

layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;

// The linear thread index of a dispatch made by fl_cmd_dispatch.
uint fl_thread_index()
{
  return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
         gl_LocalInvocationID.x;
}

#endif
