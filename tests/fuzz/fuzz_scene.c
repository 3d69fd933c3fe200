/* tests/fuzz/fuzz_scene.c: libFuzzer target for the scene loader. The input up
 * to the first NUL byte is the scene JSON; NUL-separated strings after it are
 * --set overrides. Every input must either load into a scene that satisfies the
 * documented ranges or fail with one non-empty line. */
#include "core/file.h"
#include "core/log.h"
#include "scene/scene.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OVERRIDES 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
  if (!ok) __builtin_trap();
}

static void check_vec_finite(const float v[3])
{
  for (int i = 0; i < 3; i++) check(isfinite(v[i]));
}

/* A particle sheet (cloth, mass_spring): sides 2..max_side, positive size and mass, a
 * known plane, and every pin inside the grid (-1 standing for the last row or column). */
static void check_sheet(const uint32_t resolution[2], uint32_t max_side, const float size[2],
                        const float center[3], fl_cloth_plane plane, float mass,
                        const fl_cloth_pin *pins, uint32_t pin_count)
{
  for (int k = 0; k < 2; k++) check(resolution[k] >= 2 && resolution[k] <= max_side);
  check(size[0] > 0 && size[1] > 0 && isfinite(size[0]) && isfinite(size[1]));
  check(mass > 0 && isfinite(mass));
  check(plane == FL_PLANE_XZ || plane == FL_PLANE_XY);
  check_vec_finite(center);
  check(pin_count <= FL_CLOTH_MAX_PINS);
  int32_t nx = (int32_t)resolution[0], ny = (int32_t)resolution[1];
  for (uint32_t k = 0; k < pin_count; k++) {
    const fl_cloth_pin *pin = &pins[k];
    if (pin->kind == FL_PIN_PARTICLE) check(pin->a >= -1 && pin->a < nx && pin->b >= -1 && pin->b < ny);
    else if (pin->kind == FL_PIN_ROW) check(pin->a >= -1 && pin->a < ny);
    else if (pin->kind == FL_PIN_COLUMN) check(pin->a >= -1 && pin->a < nx);
    else check(pin->kind == FL_PIN_INDEX && pin->a >= 0 && pin->a < nx * ny);
  }
}

static bool nonneg(float x) { return x >= 0 && isfinite(x); }
static bool positive(float x) { return x > 0 && isfinite(x); }

/* What soft bodies and balloons share: positive radius and scale, non-negative damping,
 * thickness and friction, a known volume conservation with alpha in 0..1, and a path (to an
 * existing file; tetgen: a ".node" one) exactly for the shapes that read a file. */
static void check_body_common(const fl_body_common_desc *c, fl_body_shape shape)
{
  check_vec_finite(c->center);
  check_vec_finite(c->velocity);
  check(positive(c->radius) && positive(c->scale));
  check(nonneg(c->damping) && nonneg(c->thickness) && nonneg(c->friction[0]) && nonneg(c->friction[1]));
  check(c->volume_conservation <= FL_VOLUME_CONSERVE_LOCAL);
  check(c->volume_alpha >= 0 && c->volume_alpha <= 1);
  check(nonneg(c->measure_after));
  const char *end = memchr(c->path, 0, sizeof c->path);
  check(end != NULL);
  size_t len = (size_t)(end - c->path);
  if (shape == FL_BODY_MESH || shape == FL_BODY_TETGEN) {
    check(len > 0 && fl_file_exists(c->path));
    if (shape == FL_BODY_TETGEN) check(len > 5 && strcmp(c->path + len - 5, ".node") == 0);
  } else {
    check(len == 0);
  }
}

static void check_softbody(const fl_softbody_desc *b)
{
  check(b->shape <= FL_BODY_TETGEN);
  check_body_common(&b->common, b->shape);
  for (int k = 0; k < 3; k++) check(positive(b->half_extents[k]));
  check(positive(b->minor_radius));
  if (b->shape == FL_BODY_TORUS) check(b->minor_radius < b->common.radius);
  check(b->resolution >= 2 && b->resolution <= 64);
  check(positive(b->density));
  check(b->model == FL_SOFT_MODEL_XPBD || b->model == FL_SOFT_MODEL_NEOHOOKEAN);
  check(nonneg(b->edge_compliance) && nonneg(b->volume_compliance));
  check(positive(b->youngs_modulus));
  check(b->poisson_ratio >= 0 && b->poisson_ratio <= 0.49f);
  check(b->render_detail >= 4 && b->render_detail <= 256);
}

static void check_balloon(const fl_balloon_desc *b)
{
  check(b->shape == FL_BODY_ICOSPHERE || b->shape == FL_BODY_MESH);
  check_body_common(&b->common, b->shape);
  check(b->subdivisions <= 6);
  check(positive(b->mass));
  check(nonneg(b->stretch_compliance) && nonneg(b->bend_compliance) && nonneg(b->pressure_compliance));
  check(b->bending <= FL_BENDING_NONE);
  check(b->pressure >= 0.1f && b->pressure <= 10);
}

/* MPM snow: its documented ranges (scene.h fl_snow_desc, docs/SCENES.md). */
static void check_snow(const fl_snow_desc *n)
{
  check(n->shape <= FL_SNOW_SHAPE_MESH && n->transfer <= FL_SNOW_APIC);
  check_vec_finite(n->center);
  check_vec_finite(n->velocity);
  if (n->shape == FL_SNOW_SHAPE_SPHERE) check(positive(n->radius));
  if (n->shape == FL_SNOW_SHAPE_BOX)
    for (int k = 0; k < 3; k++) check(positive(n->half_extents[k]));
  if (n->shape == FL_SNOW_SHAPE_MESH) check(n->path[0] && positive(n->scale));
  check(n->particles_per_cell >= 1 && n->particles_per_cell <= 64);
  check(positive(n->grid_spacing) && positive(n->density) && positive(n->E0));
  check(n->nu >= 0 && n->nu <= 0.49f && nonneg(n->xi));
  check(n->theta_c >= 0 && n->theta_c <= 1 && n->theta_s >= 0 && n->theta_s <= 1);
  check(n->flip >= 0 && n->flip <= 1 && n->beta >= 0 && n->beta <= 1);
  check(n->sticky || nonneg(n->friction));
}

/* The loaded scene respects every range in scene.h. */
static void check_scene(const fl_scene *s)
{
  check(memchr(s->name, 0, sizeof s->name) && s->name[0]);
  check(s->sim.dt > 0 && s->sim.dt <= 0.1f);
  check(s->sim.substeps >= 1 && s->sim.substeps <= 1000);
  check(s->sim.iterations >= 1 && s->sim.iterations <= 1000);
  check_vec_finite(s->sim.gravity);
  for (int i = 0; i < 3; i++) check(s->sim.domain_min[i] < s->sim.domain_max[i]);
  check(s->sim.solver == FL_SOLVER_COLORING || s->sim.solver == FL_SOLVER_JACOBI ||
        s->sim.solver == FL_SOLVER_SYMMETRIC);
  check(s->sim.relaxation >= 1 && s->sim.relaxation <= 2);
  check(s->sim.collider_normals == FL_NORMALS_ANALYTIC || s->sim.collider_normals == FL_NORMALS_TETRAHEDRAL);
  check(s->object_count <= FL_SCENE_MAX_OBJECTS);
  for (uint32_t i = 0; i < s->object_count; i++) {
    const fl_scene_object *o = &s->objects[i];
    check(memchr(o->name, 0, sizeof o->name) && o->name[0]);
    for (uint32_t j = 0; j < i; j++) check(strcmp(o->name, s->objects[j].name) != 0);
    if (o->type == FL_OBJECT_PARTICLES) {
      const fl_particles_desc *p = &o->particles;
      check(p->count >= 1 && p->count <= (16u << 20));
      for (int k = 0; k < 3; k++) check(p->half_extents[k] > 0);
      check(p->radius > 0 && p->mass > 0 && p->velocity_jitter >= 0 && p->friction >= 0);
      check(p->restitution >= 0 && p->restitution <= 1);
      check_vec_finite(p->center);
      check_vec_finite(p->velocity);
    } else if (o->type == FL_OBJECT_CLOTH) {
      const fl_cloth_desc *c = &o->cloth;
      check_sheet(c->resolution, 4096, c->size, c->center, c->plane, c->mass, c->pins, c->pin_count);
      check(c->thickness > 0);
      check(c->stretch_compliance >= 0 && c->shear_compliance >= 0 && c->bend_compliance >= 0);
      check(c->damping >= 0 && c->drag >= 0 && c->lift >= 0 && c->friction[0] >= 0 && c->friction[1] >= 0);
      check(c->bending <= FL_BENDING_NONE && c->damping_model <= FL_DAMPING_EDGE);
      check_vec_finite(c->wind);
      check(c->sag >= 0 && c->sag <= (float)FL_SHEET_MAX_SAG * c->size[0]);
      check(!(c->tethers && c->tear_strain > 0));
    } else if (o->type == FL_OBJECT_MASS_SPRING) {
      const fl_mass_spring_desc *m = &o->mass_spring;
      check_sheet(m->resolution, 1024, m->size, m->center, m->plane, m->mass, m->pins, m->pin_count);
      check(m->stiffness > 0 && isfinite(m->stiffness) && m->damping >= 0 && isfinite(m->damping));
      check(m->springs == FL_MS_SPRINGS_STRUCTURAL ||
            m->springs == (FL_MS_SPRINGS_STRUCTURAL | FL_MS_SPRINGS_SHEAR) ||
            m->springs == (FL_MS_SPRINGS_STRUCTURAL | FL_MS_SPRINGS_SHEAR | FL_MS_SPRINGS_BEND));
      check(m->integrator <= FL_MS_INTEGRATOR_HY && m->split <= FL_MS_SPLIT_KEY_MOMENTUM);
      check(m->jacobi_iterations >= 1 && m->jacobi_iterations <= 100);
      check(m->cg_iterations >= 1 && m->cg_iterations <= 10000);
      check(m->cg_tolerance > 0 && m->cg_tolerance < 1);
      check(m->divergence_strain > 0 && isfinite(m->divergence_strain));
    } else if (o->type == FL_OBJECT_SOFTBODY) {
      check_softbody(&o->softbody);
    } else if (o->type == FL_OBJECT_BALLOON) {
      check_balloon(&o->balloon);
    } else if (o->type == FL_OBJECT_SNOW) {
      check_snow(&o->snow);
    } else {
      check(o->type == FL_OBJECT_COLLIDER);
      const fl_collider_desc *c = &o->collider;
      check(c->friction >= 0);
      check_vec_finite(c->velocity);
      check(nonneg(c->move_until));
      if (c->shape == FL_SHAPE_PLANE) {
        double len = sqrt((double)c->normal[0] * c->normal[0] +
                          (double)c->normal[1] * c->normal[1] +
                          (double)c->normal[2] * c->normal[2]);
        check(fabs(len - 1) < 1e-3);
      } else if (c->shape == FL_SHAPE_SPHERE || c->shape == FL_SHAPE_CAPSULE) {
        check(c->radius > 0);
      } else if (c->shape == FL_SHAPE_MESH) {
        check(c->path[0] && positive(c->scale) && c->resolution >= 4 && c->resolution <= 128);
      } else {
        check(c->shape == FL_SHAPE_BOX);
        for (int k = 0; k < 3; k++) check(c->half_extents[k] > 0);
      }
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static fl_scene scene;
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  const char *overrides[MAX_OVERRIDES];
  int count = 0;
  for (size_t at = strlen(text) + 1; at < size && count < MAX_OVERRIDES;) {
    overrides[count++] = text + at;
    at += strlen(text + at) + 1;
  }
  if (fl_scene_parse(text, "fuzz.json", overrides, count, &scene)) {
    check_scene(&scene);
  } else {
    const char *msg = fl_error_message();
    check(msg[0] && !strchr(msg, '\n'));
  }
  free(text);
  return 0;
}
