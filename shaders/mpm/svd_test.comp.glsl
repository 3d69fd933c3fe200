// mpm/svd_test.comp: the test kernel of mpm/svd3.glsl (tests/gpu/test_mpm_svd.c).
// Matrix n is rows 3n..3n+2 of `mats` (xyz: row r of F, row-major; w unused);
// it writes U (3 rows), sigma (xyz) and V (3 rows) to out[7n .. 7n+6], rows
// row-major as in the input. pc.count: the matrix count; pc.mode = 1:
// rows 0..2 hold R = fl_polar3(F) instead of U.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "svd3.glsl"

layout(std430, binding = 0) readonly buffer Mats { vec4 mats[]; };
layout(std430, binding = 1) writeonly buffer Out { vec4 outv[]; };
layout(push_constant) uniform Push { fl_count_push pc; };

void main()
{
  uint n = fl_thread_index();
  if (n >= pc.count) return;
  // Rows in, so the columns of F are transpose(mat3(rows)).
  mat3 F = transpose(mat3(mats[3 * n].xyz, mats[3 * n + 1].xyz, mats[3 * n + 2].xyz));
  mat3 U, V;
  vec3 sigma;
  fl_svd3(F, U, sigma, V);
  if (pc.mode == 1u) U = fl_polar3(F);
  mat3 Ut = transpose(U), Vt = transpose(V); // Ut[r] = row r of U
  outv[7 * n + 0] = vec4(Ut[0], 0.0);
  outv[7 * n + 1] = vec4(Ut[1], 0.0);
  outv[7 * n + 2] = vec4(Ut[2], 0.0);
  outv[7 * n + 3] = vec4(sigma, 0.0);
  outv[7 * n + 4] = vec4(Vt[0], 0.0);
  outv[7 * n + 5] = vec4(Vt[1], 0.0);
  outv[7 * n + 6] = vec4(Vt[2], 0.0);
}
