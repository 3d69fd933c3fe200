// coupling/coupling.glsl: what the snow <-> XPBD coupling kernels share
// (docs/COUPLING.md): the XPBD particle as a moving boundary at the snow
// substep's time, and its quadratic B-spline stencil on the snow's sparse
// grid (shaders/mpm/mpm.glsl, the MLS-MPM weights of Hu et al. 2018 eq. 3).
// A kernel declares `block_hash` (binding 3) and the push `pc` before including it.
#ifndef FL_COUPLING_GLSL
#define FL_COUPLING_GLSL
#include "coupling_shared.h"
#define FL_MPM_BLOCK_HASH
#include "../mpm/mpm.glsl"

// The fields of the snow's push that the stencil and the block hash read.
fl_mpm_push fl_coupling_mpm_push()
{
  fl_mpm_push m;
  m.grid_origin = pc.grid_origin;
  m.h = pc.h;
  m.inv_h = pc.inv_h;
  m.hash_mask = pc.hash_mask;
  m.block_grid_x = pc.block_grid_x;
  m.block_grid_y = pc.block_grid_y;
  return m;
}

// The boundary point of XPBD particle x (xyz, w = 1/m) moving at v, at the end of the snow
// substep: the XPBD state is at the frame's end, lag seconds later (docs/COUPLING.md).
vec3 fl_coupling_point(vec4 x, vec3 v) { return x.xyz - pc.lag * v; }

// Whether the quadratic stencil of point x lies inside the snow's lattice (else the particle
// is away from every snow node and makes no contact).
bool fl_coupling_inside(vec3 x)
{
  vec3 f = (x - pc.grid_origin) * pc.inv_h;
  return all(greaterThanEqual(f, vec3(1.0))) && all(lessThan(f, vec3(pc.grid_dims) - 2.0));
}
#endif
