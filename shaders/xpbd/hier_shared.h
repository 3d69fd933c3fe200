/* xpbd/hier_shared.h: the prolongation record of hierarchical PBD
 * (src/sim/xpbd/hierarchy.h), shared by C and GLSL. Include after flurry_shared.h. */
#ifndef FL_HIER_SHARED_H
#define FL_HIER_SHARED_H

/* A particle of level l-1 that is not in level l: after level l is solved its
 * position moves by the interpolated correction of its (up to 4, repeated
 * when fewer) level-l parents: x_target += sum_k weight_k (x_parent_k - x0_parent_k)
 * (Müller 2008 via the PBD survey, "Hierarchical solver": prolongation). */
FL_STRUCT_BEGIN(fl_gpu_prolong)
  uvec4 parent;     /* particle indices */
  vec4 weight;      /* bilinear weights, sum 1 */
  uint target;      /* the particle that follows */
  uint unused0, unused1, unused2;
FL_STRUCT_END(fl_gpu_prolong)

#endif
