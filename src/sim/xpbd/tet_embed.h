/* sim/xpbd/tet_embed: embeds the points of a render surface in a tet
 * mesh, so the GPU can move them with the tets (barycentric skinning).
 *
 * Each point gets the tet that contains it, or, for points outside every tet
 * (the voxel boundary is a staircase inside a smooth surface), the nearest
 * tet by the distance from the point to the tet; its four barycentric weights
 * (summing to 1; negative outside the tet: extrapolation) reproduce the point
 * exactly in the rest shape: p = sum_k w_k x_{idx_k}. Among tets equally near
 * (a point nearest a shared face, edge or vertex), the one whose most negative
 * weight is mildest. Tets are found through a uniform grid over their bounding
 * boxes (cells of about the mean tet edge), searched in rings of cells around
 * the point's cell until no unseen tet can be nearer than the best found (cells
 * and tets whose boxes are farther are skipped), so embedding is about linear in
 * the number of points: 50k points into 20k tets take under 0.1 s. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "flurry_shared.h"
#include "sim/xpbd/tetrahedralize.h"

/* Fills out[i] for each of the `count` points: idx = the tet's four vertex
 * indices (into m->positions), weights = their barycentric weights. The tets
 * must have nonzero volume (fl_tetrahedralize, fl_tet_mesh_from_tets). False
 * (fl_error_set) when m has no tets or memory runs out. */
bool fl_tet_embed(const fl_tet_mesh *m, const float (*points)[4], uint32_t count, fl_gpu_skin *out);
