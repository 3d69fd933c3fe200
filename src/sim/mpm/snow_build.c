/* sim/mpm/snow_build: seeding, materials, grid and push constants of the snow (see snow_build.h). */
#include "sim/mpm/snow_build.h"

#include "core/log.h"
#include "sim/common/solid.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

fl_snow_material fl_snow_material_of(const fl_snow_desc *d)
{
  double E = d->E0, nu = d->nu;
  fl_snow_material m;
  m.mu0 = (float)(E / (2.0 * (1.0 + nu)));                     /* mu0 */
  m.lambda0 = (float)(E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu)));   /* lambda0 */
  m.xi = d->xi;
  m.flip = d->flip;
  m.stretch_min = 1.0f - d->theta_c;
  m.stretch_max = 1.0f + d->theta_s;
  m.friction = d->sticky ? (float)FL_SNOW_STICKY : d->friction;
  m.transfer = d->transfer == FL_SNOW_APIC ? FL_SNOW_TRANSFER_APIC : FL_SNOW_TRANSFER_PIC_FLIP;
  return m;
}

/* xorshift32 in [-1, 1): the lattice jitter, the same every run. */
static float next_unit(uint32_t *state)
{
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return (float)(x >> 8) / 16777216.0f * 2.0f - 1.0f;
}

/* The solid of a snow desc; meshes are loaded into *mesh (freed by the caller). */
static bool snow_solid(const fl_snow_desc *d, fl_cpu_mesh *mesh, fl_solid *out)
{
  memset(out, 0, sizeof *out);
  memcpy(out->center, d->center, sizeof out->center);
  switch (d->shape) {
  case FL_SNOW_SHAPE_SPHERE: out->kind = FL_SOLID_SPHERE; out->radius = d->radius; return true;
  case FL_SNOW_SHAPE_BOX:
    out->kind = FL_SOLID_BOX;
    memcpy(out->half_extents, d->half_extents, sizeof out->half_extents);
    return true;
  case FL_SNOW_SHAPE_MESH:
    out->kind = FL_SOLID_MESH;
    out->mesh = mesh;
    return fl_obj_load_placed(d->path, d->scale, d->center, mesh);
  }
  return fl_error_set("unknown snow shape");
}

/* The inside lattice of one object, clipped to the domain: n points per axis from lo. */
typedef struct {
  double lo[3], s;
  uint32_t n[3];
  uint8_t *inside;
  uint64_t kept;
} lattice;

/* A snow mesh (its bounds lo..hi, placed) must lie inside sim.domain, as a sphere or box must
 * (scene_check.c checks those at load; a mesh's bounds need the file): snow is seeded and kept only
 * inside, so the part past a wall was lost in silence. It may touch a wall, give or take float
 * rounding (fl_scene_box_outside, the load check's measure). */
static bool snow_mesh_inside(const fl_snow_desc *d, const fl_sim_desc *sim, const char *name, const float lo[3],
                             const float hi[3])
{
  double box_lo[3] = {lo[0], lo[1], lo[2]}, box_hi[3] = {hi[0], hi[1], hi[2]};
  int axis = 0, upper = 0;
  double out = fl_scene_box_outside(sim, box_lo, box_hi, &axis, &upper);
  if (!(out > 0.0)) return true;
  return fl_error_set("snow \"%s\" starts outside sim.domain: its mesh %s (scale %g, center [%g, %g, %g]) spans "
                      "[%g, %g, %g]..[%g, %g, %g], %g m past sim.domain.%s[%d] = %g, and the snow beyond it would be "
                      "lost (it is seeded and kept only inside); move center, lower scale or grow sim.domain",
                      name, d->path, (double)d->scale, (double)d->center[0], (double)d->center[1],
                      (double)d->center[2], (double)lo[0], (double)lo[1], (double)lo[2], (double)hi[0],
                      (double)hi[1], (double)hi[2], out, upper ? "max" : "min", axis,
                      (double)(upper ? sim->domain_max[axis] : sim->domain_min[axis]));
}

static bool snow_lattice(const fl_snow_desc *d, const fl_sim_desc *sim, const char *name, lattice *out)
{
  memset(out, 0, sizeof *out);
  fl_cpu_mesh mesh = {0};
  fl_solid solid;
  bool ok = snow_solid(d, &mesh, &solid);
  if (!ok) {
    fl_cpu_mesh_free(&mesh);
    return fl_error_wrap("snow \"%s\"", name);
  }
  float lo[3], hi[3];
  fl_solid_bounds(&solid, lo, hi);
  if (d->shape == FL_SNOW_SHAPE_MESH && !snow_mesh_inside(d, sim, name, lo, hi)) {
    fl_cpu_mesh_free(&mesh);
    return false;
  }
  out->s = d->grid_spacing / cbrt((double)d->particles_per_cell);
  uint64_t points = 1;
  for (int a = 0; a < 3; a++) {
    double l = fmax(lo[a], sim->domain_min[a]), u = fmin(hi[a], sim->domain_max[a]);
    if (!(u > l)) {
      fl_cpu_mesh_free(&mesh);
      return fl_error_set("snow \"%s\": the shape lies outside sim.domain", name);
    }
    double n = floor((u - l) / out->s);
    out->n[a] = n < 1 ? 1 : (n > 1e7 ? 0 : (uint32_t)n);
    out->lo[a] = l + 0.5 * ((u - l) - (out->n[a] - 1) * out->s); /* centred in the clipped box */
    points *= out->n[a] ? out->n[a] : (uint64_t)1 << 40;
  }
  if (points > 4ull * FL_SNOW_MAX_PARTICLES) {
    fl_cpu_mesh_free(&mesh);
    return fl_error_set("snow \"%s\": about %llu particles, more than the %u a scene may have "
                        "(raise grid_spacing or lower particles_per_cell)",
                        name, (unsigned long long)points, FL_SNOW_MAX_PARTICLES);
  }
  out->inside = malloc(points);
  if (!out->inside) ok = fl_error_set("snow \"%s\": out of host memory", name);
  ok = ok && fl_solid_inside_lattice(&solid, out->lo, out->s, out->n, out->inside);
  fl_cpu_mesh_free(&mesh);
  if (!ok) {
    free(out->inside);
    out->inside = NULL;
    return false;
  }
  for (uint64_t i = 0; i < points; i++) out->kept += out->inside[i];
  if (out->kept == 0) {
    free(out->inside);
    out->inside = NULL;
    return fl_error_set("snow \"%s\": no particle fits in the shape (grid_spacing %g is too coarse for it)", name,
                        (double)d->grid_spacing);
  }
  return true;
}

/* Writes the kept lattice points of one object as particles from index `first`. */
static void seed_particles(fl_snow_build *b, const fl_snow_desc *d, const lattice *l, uint32_t material,
                           uint32_t first)
{
  uint32_t state = d->seed ? d->seed : 1, p = first;
  float m = (float)(d->density * l->s * l->s * l->s), j = (float)(0.25 * l->s);
  for (uint32_t k = 0; k < l->n[2]; k++)
    for (uint32_t jj = 0; jj < l->n[1]; jj++)
      for (uint32_t i = 0; i < l->n[0]; i++) {
        uint32_t idx[3] = {i, jj, k};
        float jitter[3] = {next_unit(&state), next_unit(&state), next_unit(&state)};
        if (!l->inside[((uint64_t)k * l->n[1] + jj) * l->n[0] + i]) continue;
        for (int a = 0; a < 3; a++) {
          b->pos[p][a] = (float)(l->lo[a] + idx[a] * l->s) + j * jitter[a];
          b->vel[p][a] = d->velocity[a];
        }
        b->pos[p][3] = m;
        b->vel[p][3] = 0.0f; /* V0: from the grid at load (snow_spec.h) */
        for (int r = 0; r < 3; r++)
          for (int c = 0; c < 4; c++) b->fe[3 * p + r][c] = r == c ? 1.0f : 0.0f;
        b->fe[3 * p][3] = 1.0f;                /* J_P */
        b->fe[3 * p + 1][3] = (float)material;
        b->stress[2 * p + 1][3] = (float)material;
        p++;
      }
}

static bool build_grid(fl_snow_build *b, const fl_sim_desc *sim)
{
  uint64_t nodes = 1, blocks = 1;
  for (int a = 0; a < 3; a++) {
    /* Blocks are aligned to the world (multiples of 4h), so the same snow takes the same blocks in any
     * domain box (snow_spec.h GRID); node 0 is at or below domain_min - 2h, the last at or past domain_max + 2h. */
    double block = 4.0 * b->h, origin = block * floor(((double)sim->domain_min[a] - 2.0 * b->h) / block);
    b->origin[a] = (float)origin;
    double n = ceil(((double)sim->domain_max[a] - origin) / b->h) + 3.0;
    if (n > 1e6) n = 1e6;
    b->dims[a] = (uint32_t)n;
    b->block_dims[a] = (b->dims[a] + 3) / 4;
    nodes *= b->dims[a];
    blocks *= b->block_dims[a];
  }
  if (blocks > FL_SNOW_MAX_LATTICE_BLOCKS)
    return fl_error_set("snow grid: %u x %u x %u nodes (grid_spacing %g over sim.domain) is more than %llu blocks of "
                        "4x4x4 can number; raise grid_spacing or shrink sim.domain",
                        b->dims[0], b->dims[1], b->dims[2], (double)b->h, (unsigned long long)FL_SNOW_MAX_LATTICE_BLOCKS);
  b->node_count = nodes > UINT32_MAX ? UINT32_MAX : (uint32_t)nodes;
  return true;
}

/* The block keys a position's stencil touches (mpm.glsl fl_mpm_block_range); returns how many. */
static uint32_t block_keys_of(const fl_snow_build *b, const float x[3], uint32_t keys[8])
{
  int32_t first[3], last[3];
  for (int a = 0; a < 3; a++) {
    int32_t cell = (int32_t)floorf((x[a] - b->origin[a]) * (1.0f / b->h));
    first[a] = (cell - 1) >> 2;
    last[a] = (cell + 2) >> 2;
  }
  uint32_t n = 0;
  for (int32_t z = first[2]; z <= last[2]; z++)
    for (int32_t y = first[1]; y <= last[1]; y++)
      for (int32_t x0 = first[0]; x0 <= last[0]; x0++)
        keys[n++] = ((uint32_t)z * b->block_dims[1] + (uint32_t)y) * b->block_dims[0] + (uint32_t)x0;
  return n;
}

static int compare_keys(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* blocks_at_load: the distinct blocks the seeded particles' stencils touch. */
static bool count_blocks(fl_snow_build *b)
{
  uint32_t *keys = malloc(((size_t)b->count * 8 + 8) * sizeof *keys), n = 0, prev[8], prev_n = 0;
  if (!keys) return fl_error_set("snow: out of host memory counting grid blocks");
  for (uint32_t p = 0; p < b->count; p++) {
    uint32_t k[8], m = block_keys_of(b, b->pos[p], k);
    if (m == prev_n && memcmp(k, prev, m * sizeof *k) == 0) continue; /* the lattice neighbour's blocks */
    memcpy(keys + n, k, m * sizeof *k);
    memcpy(prev, k, m * sizeof *k);
    prev_n = m;
    n += m;
  }
  qsort(keys, n, sizeof *keys, compare_keys);
  uint32_t distinct = 0;
  for (uint32_t i = 0; i < n; i++) distinct += i == 0 || keys[i] != keys[i - 1];
  free(keys);
  b->blocks_at_load = distinct;
  return true;
}

bool fl_snow_build_set_capacity(fl_snow_build *b, float slack, uint64_t device_max_blocks)
{
  uint64_t need = b->blocks_at_load;
  if (need > device_max_blocks)
    return fl_error_set("snow grid: the snow touches %llu blocks of 4x4x4 nodes (%.1f MiB of grid), more than this "
                        "device's storage buffers hold (%llu blocks); raise grid_spacing or make the snow smaller",
                        (unsigned long long)need, (double)need * FL_SNOW_BLOCK_NODES * 64 / 1048576.0,
                        (unsigned long long)device_max_blocks);
  fl_snow_build_fit_capacity(b, need, slack, device_max_blocks);
  return true;
}

uint64_t fl_snow_build_max_blocks(const fl_snow_build *b, uint64_t device_max_blocks)
{
  uint64_t lattice_blocks = (uint64_t)b->block_dims[0] * b->block_dims[1] * b->block_dims[2];
  return lattice_blocks < device_max_blocks ? lattice_blocks : device_max_blocks;
}

void fl_snow_build_fit_capacity(fl_snow_build *b, uint64_t need, float slack, uint64_t device_max_blocks)
{
  uint64_t cap = (uint64_t)ceil((double)need * slack), most = fl_snow_build_max_blocks(b, device_max_blocks);
  if (cap < need + FL_SNOW_BLOCK_SPARE) cap = need + FL_SNOW_BLOCK_SPARE;
  if (cap > most) cap = most;
  b->block_capacity = (uint32_t)cap;
  b->hash_entries = 1;
  while (b->hash_entries < 2 * cap) b->hash_entries *= 2;
}

bool fl_snow_build_create(const fl_scene *scene, const uint32_t *indices, uint32_t count, fl_snow_build *out)
{
  memset(out, 0, sizeof *out);
  if (count > FL_SNOW_MAX_MATERIALS)
    return fl_error_set("%u snow objects: at most %u share a scene", count, FL_SNOW_MAX_MATERIALS);
  const fl_scene_object *first = &scene->objects[indices[0]];
  out->h = first->snow.grid_spacing;
  out->beta = first->snow.beta;
  for (uint32_t k = 1; k < count; k++) {
    const fl_scene_object *o = &scene->objects[indices[k]];
    if (o->snow.grid_spacing != out->h || o->snow.beta != out->beta)
      return fl_error_set("snow \"%s\": every snow object shares one grid, so grid_spacing and beta must "
                          "match \"%s\"'s (%g, %g)",
                          o->name, first->name, (double)out->h, (double)out->beta);
  }
  if (!build_grid(out, &scene->sim)) return false;
  lattice lat[FL_SNOW_MAX_MATERIALS];
  memset(lat, 0, sizeof lat);
  uint64_t total = 0;
  bool ok = true;
  for (uint32_t k = 0; k < count && ok; k++) {
    const fl_scene_object *o = &scene->objects[indices[k]];
    ok = snow_lattice(&o->snow, &scene->sim, o->name, &lat[k]);
    total += lat[k].kept;
    out->materials[k] = fl_snow_material_of(&o->snow);
    out->object_particles[k] = (uint32_t)lat[k].kept;
    out->rho0[k] = o->snow.density;
    if (o->snow.transfer == FL_SNOW_PIC_FLIP) out->any_pic_flip = true;
    if (o->snow.transfer == FL_SNOW_APIC) out->any_apic = true;
    float speed = sqrtf(o->snow.velocity[0] * o->snow.velocity[0] + o->snow.velocity[1] * o->snow.velocity[1] +
                        o->snow.velocity[2] * o->snow.velocity[2]);
    if (speed > out->max_initial_speed) out->max_initial_speed = speed;
    if (ok && (out->particle_spacing == 0 || lat[k].s < out->particle_spacing)) out->particle_spacing = (float)lat[k].s;
  }
  if (ok && total > FL_SNOW_MAX_PARTICLES)
    ok = fl_error_set("snow: %llu particles, more than %u (raise grid_spacing or lower particles_per_cell)",
                      (unsigned long long)total, FL_SNOW_MAX_PARTICLES);
  out->material_count = count;
  if (ok) {
    out->count = (uint32_t)total;
    out->pos = calloc(total, sizeof *out->pos);
    out->vel = calloc(total, sizeof *out->vel);
    out->fe = calloc(3 * total, sizeof *out->fe);
    out->affine = calloc(3 * total, sizeof *out->affine);
    out->stress = calloc(2 * total, sizeof *out->stress);
    if (!out->pos || !out->vel || !out->fe || !out->affine || !out->stress)
      ok = fl_error_set("snow: out of host memory for %llu particles", (unsigned long long)total);
  }
  float m_max = 0;
  for (uint32_t k = 0, p = 0; k < count && ok; k++) {
    const fl_snow_desc *d = &scene->objects[indices[k]].snow;
    seed_particles(out, d, &lat[k], k, p);
    p += (uint32_t)lat[k].kept;
    float m = (float)(d->density * lat[k].s * lat[k].s * lat[k].s);
    if (m > m_max) m_max = m;
  }
  for (uint32_t k = 0; k < count; k++) free(lat[k].inside);
  ok = ok && count_blocks(out);
  out->mass_scale = ldexpf(1.0f, FL_SNOW_FIXED_MASS_BITS) / m_max;
  out->momentum_scale = ldexpf(1.0f, FL_SNOW_FIXED_MOMENTUM_BITS) / m_max;
  /* int32 headroom (snow_spec.h): the B-spline weights sum to 1 over a particle's nodes, so a
   * node of snow at density rho gathers about rho h^3; compressed FL_SNOW_FIXED_COMPRESSION times. */
  double rho_max = 0;
  for (uint32_t k = 0; k < count; k++) rho_max = fmax(rho_max, out->rho0[k]);
  double node_mass = FL_SNOW_FIXED_COMPRESSION * rho_max * (double)out->h * out->h * out->h;
  out->fixed_node_mass = (float)node_mass;
  out->fixed_speed_limit = ok ? (float)(2147483647.0 / ((double)out->momentum_scale * node_mass)) : 0.0f;
  assert(!ok || (double)out->mass_scale * node_mass < 2147483647.0); /* ppc <= 64: 2^28 at most */
  out->light_node_mass = (float)FL_SNOW_LIGHT_NODE * m_max;
  if (!ok) fl_snow_build_free(out);
  return ok;
}

bool fl_snow_fixed_headroom_check(const fl_snow_build *b)
{
  if (b->count == 0 || 2.0f * b->max_initial_speed <= b->fixed_speed_limit) return true;
  return fl_error_set("snow: the fixed-point P2G holds nodes of %.3g kg up to %.3g m/s, less than twice the fastest "
                      "initial speed %.3g m/s; lower the speed or particles_per_cell, or use sim.mpm_atomics \"float\"",
                      (double)b->fixed_node_mass, (double)b->fixed_speed_limit, (double)b->max_initial_speed);
}

void fl_snow_build_free(fl_snow_build *b)
{
  free(b->pos);
  free(b->vel);
  free(b->fe);
  free(b->affine);
  free(b->stress);
  memset(b, 0, sizeof *b);
}

void fl_snow_push_fill(const fl_snow_build *b, const fl_sim_desc *sim, uint32_t collider_count, bool fixed_point,
                       float dt, float t, fl_mpm_push *out)
{
  memset(out, 0, sizeof *out);
  for (int a = 0; a < 3; a++) {
    out->grid_origin[a] = b->origin[a];
    out->grid_dims[a] = b->dims[a];
    out->domain_min[a] = sim->domain_min[a];
    out->domain_max[a] = sim->domain_max[a];
    out->gravity[a] = sim->gravity[a];
  }
  out->h = b->h;
  out->node_count = b->block_capacity * FL_SNOW_BLOCK_NODES;
  out->block_capacity = b->block_capacity;
  out->hash_mask = b->hash_entries - 1;
  out->block_grid_x = b->block_dims[0];
  out->block_grid_y = b->block_dims[1];
  out->dt = dt;
  out->time = t;
  out->mass_scale = b->mass_scale;
  out->momentum_scale = b->momentum_scale;
  out->inv_h = 1.0f / b->h;
  out->light_node_mass = b->light_node_mass;
  out->count = b->count;
  out->collider_count = collider_count;
  out->flags = (fixed_point ? FL_MPM_FIXED_POINT : 0u) | (b->any_pic_flip ? 0u : FL_MPM_FOLD_IMPULSE) |
               (sim->collider_normals == FL_NORMALS_TETRAHEDRAL ? FL_MPM_TETRA_NORMALS : 0u);
}

float fl_snow_stable_dt(const fl_snow_build *b, float max_speed, float jp_min)
{
  float dt = INFINITY;
  if (max_speed > 0) dt = (float)FL_SNOW_CFL * b->h / max_speed;
  for (uint32_t k = 0; k < b->material_count; k++) {
    const fl_snow_material *m = &b->materials[k];
    float hard = expf(fminf(m->xi * (1.0f - jp_min), logf((float)FL_SNOW_HARDENING_MAX)));
    float c = sqrtf((m->lambda0 + 2.0f * m->mu0) * hard / b->rho0[k]);
    float gain = b->beta > 0 ? (float)FL_SNOW_IMPLICIT_ELASTIC_GAIN : 1.0f; /* the semi-implicit solve */
    float dt_e = gain * (float)FL_SNOW_ELASTIC_CFL * b->h / c;
    if (dt_e < dt) dt = dt_e;
  }
  return dt;
}
