/* sim/common/mesh_cpu: procedural meshes, vertex-face adjacency, CPU normals. */
#include "sim/common/mesh_cpu.h"

#include "core/log.h"
#include "core/obj_file.h"
#include "sim/common/mesh_check.h"
#include "sim/common/vec3d.h"

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

/* ---- icosphere ---- */

/* Open-addressing map from an undirected edge (a, b) to the vertex at its midpoint. */
typedef struct {
  uint64_t *keys; /* (min << 32 | max) + 1; 0 = empty */
  uint32_t *values;
  uint32_t mask;
} edge_map;

static bool edge_map_init(edge_map *m, uint32_t edges)
{
  uint32_t size = 64;
  while (size < 2 * edges) size *= 2;
  m->keys = calloc(size, sizeof *m->keys);
  m->values = malloc(size * sizeof *m->values);
  m->mask = size - 1;
  return m->keys && m->values;
}

static void edge_map_free(edge_map *m)
{
  free(m->keys);
  free(m->values);
}

/* The midpoint vertex of edge (a, b): found, or appended to pos (unit length) at *count. */
static uint32_t edge_midpoint(edge_map *m, double (*pos)[3], uint32_t *count, uint32_t a, uint32_t b)
{
  uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
  uint64_t key = ((uint64_t)lo << 32 | hi) + 1;
  uint32_t slot = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & m->mask;
  while (m->keys[slot] && m->keys[slot] != key) slot = (slot + 1) & m->mask;
  if (m->keys[slot]) return m->values[slot];
  uint32_t v = (*count)++;
  double mid[3] = {pos[a][0] + pos[b][0], pos[a][1] + pos[b][1], pos[a][2] + pos[b][2]};
  double len = fl_v3d_length(mid);
  for (int i = 0; i < 3; i++) pos[v][i] = mid[i] / len;
  m->keys[slot] = key;
  m->values[slot] = v;
  return v;
}

/* One subdivision: each triangle of `from` becomes four in `to`. */
static bool icosphere_split(double (*pos)[3], uint32_t *vertex_count, const uint32_t *from, uint32_t triangles,
                            uint32_t *to)
{
  edge_map map;
  if (!edge_map_init(&map, 3 * triangles / 2)) {
    edge_map_free(&map);
    return false;
  }
  for (uint32_t t = 0; t < triangles; t++) {
    uint32_t a = from[3 * t], b = from[3 * t + 1], c = from[3 * t + 2];
    uint32_t ab = edge_midpoint(&map, pos, vertex_count, a, b), bc = edge_midpoint(&map, pos, vertex_count, b, c),
             ca = edge_midpoint(&map, pos, vertex_count, c, a);
    const uint32_t quad[12] = {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca};
    memcpy(&to[12 * (size_t)t], quad, sizeof quad);
  }
  edge_map_free(&map);
  return true;
}

bool fl_mesh_icosphere(const float center[3], float radius, uint32_t subdivisions, fl_cpu_mesh *out)
{
  memset(out, 0, sizeof *out);
  if (subdivisions > 7) return fl_error_set("icosphere: %u subdivisions, at most 7", subdivisions);
  static const double T = 1.6180339887498948482; /* the golden ratio */
  static const double ico_pos[12][3] = {{-1, T, 0}, {1, T, 0}, {-1, -T, 0}, {1, -T, 0}, {0, -1, T}, {0, 1, T},
                                        {0, -1, -T}, {0, 1, -T}, {T, 0, -1}, {T, 0, 1}, {-T, 0, -1}, {-T, 0, 1}};
  static const uint32_t ico_tri[60] = {0, 11, 5, 0, 5, 1,  0, 1, 7,   0, 7,  10, 0, 10, 11, 1, 5, 9, 5, 11,
                                       4, 11, 10, 2, 10, 7, 6, 7, 1,  8, 3,  9, 4, 3,  4, 2,  3, 2, 6, 3,
                                       6, 8, 3, 8, 9, 4, 9, 5, 2,  4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1};
  uint32_t nv = 10u * (1u << (2 * subdivisions)) + 2, nt = 20u * (1u << (2 * subdivisions));
  double(*pos)[3] = malloc((size_t)nv * sizeof *pos);
  uint32_t *tri[2] = {malloc(3 * (size_t)nt * sizeof(uint32_t)), malloc(3 * (size_t)nt * sizeof(uint32_t))};
  bool ok = pos && tri[0] && tri[1] && mesh_alloc(out, nv, nt);
  uint32_t count = 12, triangles = 20, cur = 0;
  if (ok) {
    for (uint32_t v = 0; v < 12; v++) {
      double len = fl_v3d_length(ico_pos[v]);
      for (int i = 0; i < 3; i++) pos[v][i] = ico_pos[v][i] / len;
    }
    memcpy(tri[0], ico_tri, sizeof ico_tri);
  }
  for (uint32_t s = 0; ok && s < subdivisions; s++, triangles *= 4, cur ^= 1)
    ok = icosphere_split(pos, &count, tri[cur], triangles, tri[cur ^ 1]);
  if (ok) {
    for (uint32_t v = 0; v < nv; v++) {
      for (int i = 0; i < 3; i++) out->positions[v][i] = (float)(center[i] + (double)radius * pos[v][i]);
      out->positions[v][3] = 1.0f;
    }
    memcpy(out->indices, tri[cur], 3 * (size_t)nt * sizeof(uint32_t));
  }
  free(pos);
  free(tri[0]);
  free(tri[1]);
  if (!ok) {
    fl_cpu_mesh_free(out);
    return fl_error_set("icosphere: out of memory for %u vertices", nv);
  }
  return true;
}

/* Relative to the first vertex, so a mesh far from the origin loses no precision. */
double fl_mesh_volume(const float (*positions)[4], const uint32_t *indices, uint32_t triangle_count)
{
  if (triangle_count == 0) return 0.0;
  const float *o = positions[indices[0]];
  double sum = 0;
  for (uint32_t t = 0; t < triangle_count; t++) {
    double a[3], b[3], c[3];
    fl_v3d_subf(positions[indices[3 * t]], o, a);
    fl_v3d_subf(positions[indices[3 * t + 1]], o, b);
    fl_v3d_subf(positions[indices[3 * t + 2]], o, c);
    sum += fl_v3d_triple(a, b, c);
  }
  return sum / 6.0;
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

bool fl_obj_load_placed(const char *path, float scale, const float center[3], fl_cpu_mesh *out)
{
  fl_obj_mesh obj;
  if (!fl_obj_load(path, &obj)) return false;
  memset(out, 0, sizeof *out);
  if (obj.triangle_count == 0) {
    fl_obj_mesh_free(&obj);
    return fl_error_set("%s: the mesh has no triangles", path);
  }
  if (!mesh_alloc(out, obj.vertex_count, obj.triangle_count)) {
    fl_obj_mesh_free(&obj);
    return fl_error_wrap("%s", path);
  }
  for (uint32_t v = 0; v < obj.vertex_count; v++) {
    for (int a = 0; a < 3; a++) out->positions[v][a] = obj.positions[v][a] * scale + center[a];
    out->positions[v][3] = 1.0f;
  }
  memcpy(out->indices, obj.triangles, (size_t)obj.triangle_count * 3 * sizeof *out->indices);
  fl_obj_mesh_free(&obj);
  if (fl_mesh_check_solid(out, path)) return true; /* every caller fills or inflates it */
  fl_cpu_mesh_free(out);
  return false;
}
