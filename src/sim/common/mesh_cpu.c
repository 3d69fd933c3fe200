/* sim/common/mesh_cpu: procedural meshes, vertex-face adjacency, CPU normals. */
#include "sim/common/mesh_cpu.h"

#include "core/log.h"

#include <math.h>

#define FL_PI 3.14159265358979323846f
#include <stdlib.h>
#include <string.h>

static bool mesh_alloc(fl_cpu_mesh *m, uint32_t vertices, uint32_t triangles)
{
  memset(m, 0, sizeof *m);
  m->positions = calloc(vertices, sizeof *m->positions);
  m->indices = calloc(3 * (size_t)triangles, sizeof *m->indices);
  if (!m->positions || !m->indices) {
    fl_cpu_mesh_free(m);
    return fl_error_set("out of memory for a mesh of %u vertices", vertices);
  }
  m->vertex_count = vertices;
  m->triangle_count = triangles;
  return true;
}

void fl_cpu_mesh_free(fl_cpu_mesh *mesh)
{
  free(mesh->positions);
  free(mesh->indices);
  memset(mesh, 0, sizeof *mesh);
}

/* Rows of a latitude-longitude grid; row r has `segments + 1` vertices (a seam). */
static void grid_triangles(fl_cpu_mesh *m, uint32_t rows, uint32_t segments)
{
  uint32_t t = 0, stride = segments + 1;
  for (uint32_t r = 0; r + 1 < rows; r++)
    for (uint32_t s = 0; s < segments; s++) {
      uint32_t a = r * stride + s, b = a + 1, c = a + stride, d = c + 1;
      uint32_t *ix = &m->indices[3 * t];
      ix[0] = a; ix[1] = c; ix[2] = b;
      ix[3] = b; ix[4] = c; ix[5] = d;
      t += 2;
    }
}

bool fl_mesh_sphere(const float center[3], float radius, uint32_t rings, uint32_t segments, fl_cpu_mesh *out)
{
  const float a[3] = {center[0], center[1], center[2]};
  return fl_mesh_capsule(a, a, radius, rings, segments, out);
}

bool fl_mesh_capsule(const float a[3], const float b[3], float radius, uint32_t rings, uint32_t segments,
                     fl_cpu_mesh *out)
{
  if (rings < 2 || segments < 3) return fl_error_set("mesh: need rings >= 2 and segments >= 3");
  rings += rings % 2; /* an equator row */
  float axis_len2 = (b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]);
  bool cylinder = axis_len2 > 0; /* a capsule repeats the equator row: top and bottom halves */
  uint32_t rows = rings + 1 + (cylinder ? 1 : 0);
  if (!mesh_alloc(out, rows * (segments + 1), 2 * (rows - 1) * segments)) return false;
  float axis[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  float half_len = 0.5f * sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  float mid[3] = {0.5f * (a[0] + b[0]), 0.5f * (a[1] + b[1]), 0.5f * (a[2] + b[2])};
  /* Orthonormal frame (u, w, z) with z along the axis (y when a == b). */
  float z[3] = {0, 1, 0};
  if (half_len > 0) for (int i = 0; i < 3; i++) z[i] = axis[i] / (2 * half_len);
  float helper[3] = {fabsf(z[0]) < 0.9f ? 1.0f : 0.0f, fabsf(z[0]) < 0.9f ? 0.0f : 1.0f, 0};
  float u[3] = {z[1] * helper[2] - z[2] * helper[1], z[2] * helper[0] - z[0] * helper[2],
                z[0] * helper[1] - z[1] * helper[0]};
  float ul = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  for (int i = 0; i < 3; i++) u[i] /= ul;
  float w[3] = {z[1] * u[2] - z[2] * u[1], z[2] * u[0] - z[0] * u[2], z[0] * u[1] - z[1] * u[0]};
  uint32_t v = 0;
  for (uint32_t row = 0; row < rows; row++) {
    uint32_t ring = (!cylinder || row <= rings / 2) ? row : row - 1;
    float shift = row <= rings / 2 ? half_len : -half_len;
    float lat = FL_PI * (0.5f - (float)ring / (float)rings);
    for (uint32_t s = 0; s <= segments; s++, v++) {
      float lon = 2.0f * FL_PI * (float)s / (float)segments;
      float cu = cosf(lat) * cosf(lon), cw = cosf(lat) * sinf(lon), cz = sinf(lat);
      for (int i = 0; i < 3; i++)
        out->positions[v][i] = mid[i] + radius * (cu * u[i] + cw * w[i] + cz * z[i]) + shift * z[i];
      out->positions[v][3] = 1.0f;
    }
  }
  grid_triangles(out, rows, segments);
  return true;
}

bool fl_mesh_box(const float center[3], const float h[3], fl_cpu_mesh *out)
{
  if (!mesh_alloc(out, 24, 12)) return false;
  static const int faces[6][4][3] = {
      {{1, -1, -1}, {1, 1, -1}, {1, 1, 1}, {1, -1, 1}},       /* +x */
      {{-1, -1, 1}, {-1, 1, 1}, {-1, 1, -1}, {-1, -1, -1}},   /* -x */
      {{-1, 1, -1}, {-1, 1, 1}, {1, 1, 1}, {1, 1, -1}},       /* +y */
      {{-1, -1, 1}, {-1, -1, -1}, {1, -1, -1}, {1, -1, 1}},   /* -y */
      {{-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1}},       /* +z */
      {{1, -1, -1}, {-1, -1, -1}, {-1, 1, -1}, {1, 1, -1}},   /* -z */
  };
  for (int f = 0; f < 6; f++) {
    for (int k = 0; k < 4; k++) {
      for (int i = 0; i < 3; i++) out->positions[4 * f + k][i] = center[i] + h[i] * (float)faces[f][k][i];
      out->positions[4 * f + k][3] = 1.0f;
    }
    uint32_t base = 4 * (uint32_t)f, *ix = &out->indices[6 * f];
    ix[0] = base; ix[1] = base + 1; ix[2] = base + 2;
    ix[3] = base; ix[4] = base + 2; ix[5] = base + 3;
  }
  return true;
}

bool fl_mesh_vertex_faces(const fl_cpu_mesh *m, uint32_t **first_out, uint32_t **faces_out)
{
  uint32_t *first = calloc((size_t)m->vertex_count + 1, sizeof *first);
  uint32_t *faces = malloc(3 * (size_t)m->triangle_count * sizeof *faces);
  uint32_t *fill = calloc((size_t)m->vertex_count + 1, sizeof *fill);
  if (!first || !faces || !fill) {
    free(first);
    free(faces);
    free(fill);
    return fl_error_set("out of memory building mesh adjacency");
  }
  for (uint32_t k = 0; k < 3 * m->triangle_count; k++) {
    if (m->indices[k] >= m->vertex_count) {
      free(first);
      free(faces);
      free(fill);
      return fl_error_set("mesh index %u out of range (%u vertices)", m->indices[k], m->vertex_count);
    }
    first[m->indices[k] + 1]++;
  }
  for (uint32_t v = 0; v < m->vertex_count; v++) first[v + 1] += first[v];
  for (uint32_t k = 0; k < 3 * m->triangle_count; k++) {
    uint32_t v = m->indices[k];
    faces[first[v] + fill[v]++] = k / 3;
  }
  free(fill);
  *first_out = first;
  *faces_out = faces;
  return true;
}

void fl_mesh_normals_cpu(const fl_cpu_mesh *m, float (*normals)[4])
{
  memset(normals, 0, (size_t)m->vertex_count * sizeof *normals);
  for (uint32_t t = 0; t < m->triangle_count; t++) {
    const float *a = m->positions[m->indices[3 * t]], *b = m->positions[m->indices[3 * t + 1]],
                *c = m->positions[m->indices[3 * t + 2]];
    float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    for (int k = 0; k < 3; k++)
      for (int i = 0; i < 3; i++) normals[m->indices[3 * t + k]][i] += n[i];
  }
  for (uint32_t v = 0; v < m->vertex_count; v++) {
    float *n = normals[v];
    float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (len > 0) {
      n[0] /= len; n[1] /= len; n[2] /= len;
    } else {
      n[0] = 0; n[1] = 1; n[2] = 0;
    }
    n[3] = 0;
  }
}

/* The three local particle indices of triangle `t` (0 or 1) of cell (i,j). */
void fl_grid_cell_triangle(uint32_t nx, uint32_t i, uint32_t j, int t, uint32_t out[3])
{
  uint32_t a = j * nx + i, bb = a + 1, c = a + nx, d = c + 1;
  bool even = (i + j) % 2 == 0;
  if (even) {
    uint32_t t0[3] = {a, bb, d}, t1[3] = {a, d, c};
    memcpy(out, t ? t1 : t0, sizeof t0);
  } else {
    uint32_t t0[3] = {a, bb, c}, t1[3] = {bb, d, c};
    memcpy(out, t ? t1 : t0, sizeof t0);
  }
}

bool fl_mesh_grid(const float (*positions)[4], uint32_t nx, uint32_t ny, fl_cpu_mesh *out)
{
  memset(out, 0, sizeof *out);
  if (nx < 2 || ny < 2) return fl_error_set("grid mesh: %ux%u vertices, at least 2x2", (unsigned)nx, (unsigned)ny);
  size_t nv = (size_t)nx * ny, nt = 2 * (size_t)(nx - 1) * (ny - 1);
  out->positions = malloc(nv * sizeof *out->positions);
  out->indices = malloc(nt * 3 * sizeof *out->indices);
  if (!out->positions || !out->indices) {
    fl_cpu_mesh_free(out);
    return fl_error_set("grid mesh: out of host memory for %ux%u vertices", (unsigned)nx, (unsigned)ny);
  }
  memcpy(out->positions, positions, nv * sizeof *out->positions);
  size_t t = 0;
  for (uint32_t j = 0; j + 1 < ny; j++)
    for (uint32_t i = 0; i + 1 < nx; i++)
      for (int h = 0; h < 2; h++, t++) fl_grid_cell_triangle(nx, i, j, h, &out->indices[3 * t]);
  out->vertex_count = (uint32_t)nv;
  out->triangle_count = (uint32_t)nt;
  return true;
}
