/* sim/common/mesh_check: the checks that a mesh bounds a solid. */
#include "sim/common/mesh_check.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>

static int compare_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Counts the undirected edges that border one triangle only, and those that border more than two. */
static bool count_open_edges(const fl_cpu_mesh *m, uint64_t *open, uint64_t *shared)
{
  size_t n = 3 * (size_t)m->triangle_count;
  uint64_t *keys = malloc(n * sizeof *keys);
  if (!keys) return fl_error_set("out of memory checking a mesh of %u triangles", m->triangle_count);
  for (size_t t = 0; t < m->triangle_count; t++)
    for (int k = 0; k < 3; k++) {
      uint64_t a = m->indices[3 * t + k], b = m->indices[3 * t + (k + 1) % 3];
      keys[3 * t + k] = a < b ? a << 32 | b : b << 32 | a;
    }
  qsort(keys, n, sizeof *keys, compare_u64);
  *open = *shared = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && keys[j] == keys[i]) j++;
    if (j - i == 1) (*open)++;
    else if (j - i > 2) (*shared)++;
    i = j;
  }
  free(keys);
  return true;
}

bool fl_mesh_check_solid(const fl_cpu_mesh *m, const char *source)
{
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint32_t v = 0; v < m->vertex_count; v++)
    for (int a = 0; a < 3; a++) {
      lo[a] = fmin(lo[a], m->positions[v][a]);
      hi[a] = fmax(hi[a], m->positions[v][a]);
    }
  double extent[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
  double largest = fmax(extent[0], fmax(extent[1], extent[2]));
  if (!(largest >= FL_MESH_MIN_EXTENT))
    return fl_error_set("%s: the mesh is too small: it spans %g m, less than %g m", source, largest,
                        FL_MESH_MIN_EXTENT);
  for (int a = 0; a < 3; a++)
    if (!(extent[a] > 1e-6 * largest))
      return fl_error_set("%s: the mesh is flat (it spans %g m along %c): it encloses no volume", source, extent[a],
                          "xyz"[a]);
  uint64_t open = 0, shared = 0;
  if (!count_open_edges(m, &open, &shared)) return false;
  if (open)
    return fl_error_set("%s: the mesh is open: %llu edges border only one triangle (a solid needs a closed surface)",
                        source, (unsigned long long)open);
  if (shared)
    return fl_error_set("%s: the mesh is not a closed surface: %llu edges border more than two triangles", source,
                        (unsigned long long)shared);
  double volume = fl_mesh_volume((const float(*)[4])m->positions, m->indices, m->triangle_count);
  if (volume < 0)
    return fl_error_set("%s: the mesh is inside out: its triangles run clockwise seen from outside "
                        "(the enclosed volume is %g m^3)", source, volume);
  if (!(volume > 0)) return fl_error_set("%s: the mesh encloses no volume", source);
  return true;
}
