// render/snow_grid.glsl: addressing of the snow density grid (node (i,j,k) at
// (k ny + j) nx + i) and of its bricks: brick b covers cells b B .. b B + B - 1
// (B = FL_SNOW_BRICK), so nodes b B .. b B + B. Shared by render/snow_bricks
// and render/snow_volume; the including shader declares `pc` (fl_snow_push).
#ifndef FL_SNOW_GRID_GLSL
#define FL_SNOW_GRID_GLSL
#include "flurry_shared.h"

// Bricks per axis: ceil(cells / B), cells = nodes - 1.
uvec3 fl_snow_brick_dims()
{
  return (pc.dims + uvec3(FL_SNOW_BRICK - 2)) / uint(FL_SNOW_BRICK);
}

uint fl_snow_node_index(uvec3 i)
{
  return (i.z * pc.dims.y + i.y) * pc.dims.x + i.x;
}

uint fl_snow_brick_index(uvec3 b)
{
  uvec3 bd = fl_snow_brick_dims();
  return (b.z * bd.y + b.y) * bd.x + b.x;
}
#endif
