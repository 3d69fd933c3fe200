/* sim/common/mesh_sdf: baking a closed mesh's signed distance on a grid (see mesh_sdf.h). */
#include "sim/common/mesh_sdf.h"

#include "core/log.h"
#include "sim/common/solid.h"
#include "sim/common/vec3d.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Squared distance from p to triangle (a, b, c): the closest point by the Voronoi
 * regions of the vertices, edges and face (Ericson 2005, 5.1.5). */
static double point_triangle_distance2(const double p[3], const double a[3], const double b[3], const double c[3])
{
  double ab[3], ac[3], ap[3], closest[3];
  fl_v3d_sub(b, a, ab);
  fl_v3d_sub(c, a, ac);
  fl_v3d_sub(p, a, ap);
  double d1 = fl_v3d_dot(ab, ap), d2 = fl_v3d_dot(ac, ap);
  double bp[3], cp[3];
  fl_v3d_sub(p, b, bp);
  fl_v3d_sub(p, c, cp);
  double d3 = fl_v3d_dot(ab, bp), d4 = fl_v3d_dot(ac, bp), d5 = fl_v3d_dot(ab, cp), d6 = fl_v3d_dot(ac, cp);
  double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
  double s = 0, u = 0; /* closest = a + s ab + u ac */
  if (d1 <= 0 && d2 <= 0) {
  } else if (d3 >= 0 && d4 <= d3) {
    s = 1;
  } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    s = d1 / (d1 - d3);
  } else if (d6 >= 0 && d5 <= d6) {
    u = 1;
  } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    u = d2 / (d2 - d6);
  } else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    double k = (d4 - d3) / ((d4 - d3) + (d5 - d6)); /* on edge bc */
    s = 1 - k;
    u = k;
  } else {
    double denom = 1.0 / (va + vb + vc);
    s = vb * denom;
    u = vc * denom;
  }
  for (int i = 0; i < 3; i++) closest[i] = a[i] + s * ab[i] + u * ac[i] - p[i];
  return fl_v3d_dot(closest, closest);
}

static double unsigned_distance(const fl_cpu_mesh *mesh, const double p[3])
{
  double best = DBL_MAX;
  for (uint32_t t = 0; t < mesh->triangle_count; t++) {
    double v[3][3];
    for (int k = 0; k < 3; k++) fl_v3d_from_f(mesh->positions[mesh->indices[3 * t + k]], v[k]);
    double d2 = point_triangle_distance2(p, v[0], v[1], v[2]);
    if (d2 < best) best = d2;
  }
  return sqrt(best);
}

double fl_mesh_sdf_exact(const fl_cpu_mesh *mesh, const double p[3])
{
  fl_solid solid = {.kind = FL_SOLID_MESH, .mesh = mesh};
  float pf[3] = {(float)p[0], (float)p[1], (float)p[2]};
  double d = unsigned_distance(mesh, p);
  return fl_solid_inside(&solid, pf) ? -d : d;
}

bool fl_mesh_sdf_bake(const fl_cpu_mesh *mesh, uint32_t resolution, fl_mesh_sdf *out)
{
  memset(out, 0, sizeof *out);
  fl_solid solid = {.kind = FL_SOLID_MESH, .mesh = mesh};
  float lo[3], hi[3];
  fl_solid_bounds(&solid, lo, hi);
  float longest = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
  out->cell = longest / (float)resolution;
  double nodes = 1;
  for (int a = 0; a < 3; a++) {
    out->dims[a] = (uint32_t)ceilf((hi[a] - lo[a]) / out->cell) + 1 + 2 * FL_MESH_SDF_MARGIN;
    out->grid_min[a] = lo[a] - FL_MESH_SDF_MARGIN * out->cell;
    nodes *= out->dims[a];
  }
  if (nodes * mesh->triangle_count > 2e9)
    return fl_error_set("a mesh collider of %u triangles at resolution %u needs %.3g point-triangle tests to bake "
                        "(limit 2e9): lower \"resolution\" or simplify the mesh",
                        mesh->triangle_count, resolution, nodes * mesh->triangle_count);
  size_t count = (size_t)nodes;
  uint8_t *inside = malloc(count);
  out->values = malloc(count * sizeof *out->values);
  double origin[3] = {out->grid_min[0], out->grid_min[1], out->grid_min[2]};
  bool ok = inside && out->values && fl_solid_inside_lattice(&solid, origin, out->cell, out->dims, inside);
  if (!inside || !out->values) fl_error_set("out of host memory baking a mesh collider's SDF (%zu nodes)", count);
  for (uint32_t k = 0; ok && k < out->dims[2]; k++)
    for (uint32_t j = 0; j < out->dims[1]; j++)
      for (uint32_t i = 0; i < out->dims[0]; i++) {
        size_t n = ((size_t)k * out->dims[1] + j) * out->dims[0] + i;
        double p[3] = {origin[0] + i * (double)out->cell, origin[1] + j * (double)out->cell,
                       origin[2] + k * (double)out->cell};
        double d = unsigned_distance(mesh, p);
        out->values[n] = (float)(inside[n] ? -d : d);
      }
  free(inside);
  if (!ok) fl_mesh_sdf_free(out);
  return ok;
}

void fl_mesh_sdf_free(fl_mesh_sdf *sdf)
{
  free(sdf->values);
  memset(sdf, 0, sizeof *sdf);
}
