/* scene/scene_check.c: checks across keys of a parsed scene. Each value is in its own range
 * (scene.c, scene_objects.c); these catch the combinations that would run to silent garbage or
 * exhaust memory: more solver sweeps a frame than can be recorded, a collision thickness larger
 * than the domain, snow coarser than itself, snow sticking out of the domain (lost), an object
 * thrown faster than the health watch's limit. Each names the key to change and a value that works. (XPBD's substep against float
 * positions needs the objects built: sim/common/placement.h.) */
#include "scene/scene_check.h"

#include "scene/suggest.h"

#include <math.h>
#include <stdio.h>

/* fl_suggest_at_most's test for a check that refuses a value above *(const double *)limit. */
static bool at_most(float v, const void *limit) { return !((double)v > *(const double *)limit); }

/* Every substep's every iteration is recorded into the frame's command buffers (a dispatch per
 * constraint colour and pass), so their product bounds the memory a frame takes to record: 1000 x
 * 1000 took over 24 GB on lavapipe before the kernel killed the run. */
#define FL_SCENE_MAX_SWEEPS 10000u
static bool check_sweeps(const fl_jr *top, const fl_scene *s)
{
  uint64_t sweeps = (uint64_t)s->sim.substeps * s->sim.iterations;
  if (sweeps <= FL_SCENE_MAX_SWEEPS) return true;
  fl_jr r = fl_jr_child(top, "sim");
  return fl_jr_fail(&r, "iterations", "%u iterations in each of %u substeps are %llu solver sweeps a frame, each "
                    "recorded into the frame's command buffers; at most %u (sim.substeps x sim.iterations)",
                    s->sim.iterations, s->sim.substeps, (unsigned long long)sweeps, FL_SCENE_MAX_SWEEPS);
}

/* A collision thickness is a distance kept from the colliders and the domain's walls: more than a
 * quarter of the domain's smallest side leaves no room, and the load-time push out of the ground
 * throws the object out of the domain. */
static bool check_thickness(const fl_jr *objects, const fl_scene *s, uint32_t i)
{
  const fl_scene_object *o = &s->objects[i];
  float t = o->type == FL_OBJECT_CLOTH         ? o->cloth.thickness
            : o->type == FL_OBJECT_MASS_SPRING ? o->mass_spring.thickness
            : o->type == FL_OBJECT_SOFTBODY    ? o->softbody.common.thickness
            : o->type == FL_OBJECT_BALLOON     ? o->balloon.common.thickness
                                               : 0.0f;
  double side = 1e300;
  for (int a = 0; a < 3; a++) side = fmin(side, (double)s->sim.domain_max[a] - s->sim.domain_min[a]);
  double limit = 0.25 * side;
  if (!(t > limit)) return true;
  fl_jr r = fl_jr_index(objects, (int)i);
  return fl_jr_fail(&r, "thickness", "%g m is more than a quarter of sim.domain's smallest side (%g m): the object "
                    "could not keep it from the walls; use at most %g", (double)t, side,
                    fl_suggest_at_most(limit, 6, at_most, &limit));
}

/* True when objects[j] of the document writes grid_spacing (--set overrides included). */
static bool writes_spacing(const cJSON *objects, int j)
{
  return cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(objects, j), "grid_spacing") != NULL;
}

/* A snow object narrower than one grid cell samples to a particle or two that the grid cannot
 * resolve (it is flung about by its own stencil). The spacing is shared: the error names the key
 * that set it, this object's, else the first snow object's that writes one (scene.c), else none. */
static bool check_snow_size(const fl_jr *objects, const cJSON *root, const fl_scene *s, uint32_t i)
{
  const fl_scene_object *o = &s->objects[i];
  if (o->type != FL_OBJECT_SNOW || o->snow.shape == FL_SNOW_SHAPE_MESH) return true;
  const fl_snow_desc *d = &o->snow;
  double width = d->shape == FL_SNOW_SHAPE_SPHERE
                     ? 2.0 * d->radius
                     : 2.0 * fmin(d->half_extents[0], fmin(d->half_extents[1], d->half_extents[2]));
  if (!(d->grid_spacing > width)) return true;
  double fits = fl_suggest_at_most(width, 6, at_most, &width); /* what "%g" prints of width may be above it */
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "objects");
  int from = writes_spacing(list, (int)i) ? (int)i : -1; /* the object whose grid_spacing this is */
  for (int j = 0; j < (int)s->object_count && from < 0; j++)
    if (s->objects[j].type == FL_OBJECT_SNOW && writes_spacing(list, j)) from = j;
  fl_jr r = fl_jr_index(objects, from < 0 ? (int)i : from);
  if (from == (int)i)
    return fl_jr_fail(&r, "grid_spacing", "%g m is wider than the snow itself (%g m across at its narrowest): it would "
                      "be a particle or two the grid cannot resolve; use at most %g (a scene's snow objects share it)",
                      (double)d->grid_spacing, width, fits);
  if (from >= 0)
    return fl_jr_fail(&r, "grid_spacing", "%g m, which every snow object shares, is wider than objects[%u] \"%s\" "
                      "(%g m across at its narrowest): it would be a particle or two the grid cannot resolve; use at "
                      "most %g", (double)d->grid_spacing, i, o->name, width, fits);
  return fl_jr_fail(&r, "grid_spacing", "not written, and the default for sim.domain (%g m) is wider than the snow "
                    "itself (%g m across at its narrowest): it would be a particle or two the grid cannot resolve; "
                    "write one of at most %g (a scene's snow objects share it)", (double)d->grid_spacing, width, fits);
}

double fl_scene_box_outside(const fl_sim_desc *sim, const double lo[3], const double hi[3], int *axis, int *upper)
{
  const float *dl = sim->domain_min, *dh = sim->domain_max;
  double out = 0.0;
  for (int a = 0; a < 3; a++) {
    double below = (double)dl[a] - lo[a], above = hi[a] - dh[a], reach = fmax(fabs(lo[a]), fabs(hi[a]));
    if (below > out && below > 1e-6 * (1.0 + fmax(reach, fabs((double)dl[a])))) out = below, *axis = a, *upper = 0;
    if (above > out && above > 1e-6 * (1.0 + fmax(reach, fabs((double)dh[a])))) out = above, *axis = a, *upper = 1;
  }
  return out;
}

/* How far a snow sphere or box (half-widths e about c, floats as the scene stores them) sticks out of
 * sim.domain (fl_scene_box_outside). */
static double snow_out(const fl_scene *s, const float c[3], const float e[3], int *axis, int *upper)
{
  double lo[3], hi[3];
  for (int a = 0; a < 3; a++) lo[a] = (double)c[a] - e[a], hi[a] = (double)c[a] + e[a];
  return fl_scene_box_outside(&s->sim, lo, hi, axis, upper);
}

/* Appends a suggested shape, the center (with_c) and/or the size (with_e) of c and e, to out: each
 * number with the fewest significant digits, 6 to 9, whose floats still pass both snow checks when
 * written back (inside sim.domain, at least grid_spacing h across). False, with nothing written,
 * when none does. */
static bool suggest_shape(char *out, size_t size, const fl_scene *s, bool sphere, double h, const double c[3],
                          const double e[3], bool with_c, bool with_e)
{
  for (int digits = 6; digits <= 9; digits++) {
    double pc[3], pe[3];
    float fc[3], fe[3];
    for (int a = 0; a < 3; a++) {
      pc[a] = with_c ? fl_suggest_round(c[a], digits) : c[a];
      pe[a] = with_e ? fl_suggest_round(e[a], digits) : e[a];
      fc[a] = (float)pc[a], fe[a] = (float)pe[a];
    }
    int axis, upper;
    if (snow_out(s, fc, fe, &axis, &upper) > 0.0 || h > 2.0 * fmin(fe[0], fmin(fe[1], fe[2]))) continue;
    size_t n = 0;
    if (with_c) n = (size_t)snprintf(out, size, "center [%.*g, %.*g, %.*g]%s", digits, pc[0], digits, pc[1], digits,
                                     pc[2], with_e ? " with " : "");
    if (with_e && sphere) snprintf(out + n, size - n, "radius %.*g", digits, pe[0]);
    else if (with_e) snprintf(out + n, size - n, "half_extents [%.*g, %.*g, %.*g]", digits, pe[0], digits, pe[1],
                              digits, pe[2]);
    return true;
  }
  return false;
}

/* Snow is sampled only inside sim.domain (sim/mpm/snow_build.c clips its shape to it) and clamped into
 * it every step (sim/mpm/snow_spec.h, G2P), so a shape past a wall lost the snow beyond it in silence,
 * where every other material's object refuses to start outside (sim/common/placement.h). A shape may
 * touch a wall (a block flush on the ground), give or take float rounding, not more. Meshes are
 * checked where their file is read (sim/mpm/snow_build.c, snow_mesh_inside). */
static bool check_snow_inside(const fl_jr *objects, const fl_scene *s, uint32_t i)
{
  const fl_scene_object *o = &s->objects[i];
  if (o->type != FL_OBJECT_SNOW || o->snow.shape == FL_SNOW_SHAPE_MESH) return true;
  const fl_snow_desc *d = &o->snow;
  const float *lo = s->sim.domain_min, *hi = s->sim.domain_max;
  bool sphere = d->shape == FL_SNOW_SHAPE_SPHERE;
  float e[3];
  for (int a = 0; a < 3; a++) e[a] = sphere ? d->radius : d->half_extents[a];
  int axis = 0, upper = 0;
  double out = snow_out(s, d->center, e, &axis, &upper);
  if (!(out > 0.0)) return true;
  /* What works: the shape moved inside the domain; or shrunk about its center, if it stays at least
   * grid_spacing across (check_snow_size); else, when it is too big to move, both: as large as the
   * domain allows (a sphere: its narrowest side), moved in. */
  double c[3], size[3], moved[3], shrunk[3], fit[3], centred[3], room = INFINITY, side = INFINITY;
  bool movable = true;
  for (int a = 0; a < 3; a++) {
    c[a] = d->center[a], size[a] = e[a];
    double half = 0.5 * ((double)hi[a] - lo[a]);
    movable &= size[a] <= half;
    moved[a] = fmin(fmax(c[a], lo[a] + size[a]), hi[a] - size[a]);
    shrunk[a] = fmin(size[a], fmin(c[a] - lo[a], hi[a] - c[a]));
    room = fmin(room, shrunk[a]);
    side = fmin(side, half);
  }
  for (int a = 0; a < 3; a++) {
    if (sphere) shrunk[a] = room;
    fit[a] = fmin(size[a], sphere ? side : 0.5 * ((double)hi[a] - lo[a]));
    centred[a] = fmin(fmax(c[a], lo[a] + fit[a]), hi[a] - fit[a]);
  }
  char fixes[256] = "", one[160];
  size_t n = 0;
  double h = d->grid_spacing;
  if (movable && suggest_shape(one, sizeof one, s, sphere, h, moved, size, true, false))
    n += (size_t)snprintf(fixes + n, sizeof fixes - n, "%s, ", one);
  if (suggest_shape(one, sizeof one, s, sphere, h, c, shrunk, false, true))
    n += (size_t)snprintf(fixes + n, sizeof fixes - n, "%s, ", one);
  else if (!movable && suggest_shape(one, sizeof one, s, sphere, h, centred, fit, true, true))
    n += (size_t)snprintf(fixes + n, sizeof fixes - n, "%s, ", one);
  char shape[96]; /* as written, to the float's 7 digits: %g's 6 may hide what sticks out */
  if (sphere) snprintf(shape, sizeof shape, "radius %.7g", (double)d->radius);
  else snprintf(shape, sizeof shape, "half_extents [%.7g, %.7g, %.7g]", (double)e[0], (double)e[1], (double)e[2]);
  fl_jr r = fl_jr_index(objects, (int)i);
  return fl_jr_fail(&r, "center", "snow \"%s\" starts outside sim.domain: its %s about center [%.7g, %.7g, %.7g] "
                    "sticks out by %g m past sim.domain.%s[%d] = %g, and the snow beyond it would be lost (it is "
                    "seeded and kept only inside); %s%s%sgrow sim.domain", o->name, shape, (double)d->center[0],
                    (double)d->center[1], (double)d->center[2], out, upper ? "max" : "min", axis,
                    (double)(upper ? hi[axis] : lo[axis]), n ? "use " : "", fixes, n ? "or " : "");
}

/* A particle box adds velocity_jitter x [-1, 1) to each component of v: at worst each adds to |v_a|. */
typedef struct {
  const float *v;
  double max;
} jitter_limit;
static double jitter_worst(const float v[3], double j)
{
  double worst = 0.0;
  for (int a = 0; a < 3; a++) worst += (fabs((double)v[a]) + j) * (fabs((double)v[a]) + j);
  return sqrt(worst);
}
static bool jitter_fits(float j, const void *limit)
{
  const jitter_limit *l = limit;
  return !(jitter_worst(l->v, j) > l->max);
}

/* An initial velocity above sim.max_speed is a blow-up by the health watch's own measure, and one
 * that the walls may stop within the first substep, unseen (a soft ball thrown at 1400 m/s was
 * crushed flat into a corner with exit 0). */
static bool check_velocity(const fl_jr *objects, const fl_scene *s, uint32_t i)
{
  const fl_scene_object *o = &s->objects[i];
  const float *v = o->type == FL_OBJECT_PARTICLES ? o->particles.velocity
                   : o->type == FL_OBJECT_SOFTBODY ? o->softbody.common.velocity
                   : o->type == FL_OBJECT_BALLOON  ? o->balloon.common.velocity
                   : o->type == FL_OBJECT_SNOW     ? o->snow.velocity
                                                   : NULL;
  if (!v) return true;
  double speed = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
  fl_jr r = fl_jr_index(objects, (int)i);
  double max = s->sim.max_speed;
  if (speed > max)
    return fl_jr_fail(&r, "velocity", "%g m/s is faster than sim.max_speed (%g m/s), the speed the health watch takes "
                      "for a blow-up; lower it or raise sim.max_speed", speed, max);
  double j = o->type == FL_OBJECT_PARTICLES ? o->particles.velocity_jitter : 0.0, sum = 0.0;
  double worst = jitter_worst(v, j);
  if (!(worst > max)) return true;
  /* the largest jitter with sum over a of (|v_a| + j)^2 <= max^2, rounded down to what passes */
  for (int a = 0; a < 3; a++) sum += fabs((double)v[a]);
  double fits = (sqrt(sum * sum - 3.0 * (speed * speed - max * max)) - sum) / 3.0;
  jitter_limit limit = {v, max};
  return fl_jr_fail(&r, "velocity_jitter", "%g m/s per component on a velocity of %g m/s starts particles at up to %g "
                    "m/s, faster than sim.max_speed (%g m/s), the speed the health watch takes for a blow-up; use at "
                    "most %.4g or raise sim.max_speed", j, speed, worst, max,
                    fl_suggest_at_most(fits, 4, jitter_fits, &limit));
}

bool fl_scene_check(const fl_jr *top, const cJSON *root, const fl_scene *s)
{
  if (!check_sweeps(top, s)) return false;
  fl_jr objects = fl_jr_child(top, "objects");
  for (uint32_t i = 0; i < s->object_count; i++)
    if (!check_thickness(&objects, s, i) || !check_snow_size(&objects, root, s, i) ||
        !check_snow_inside(&objects, s, i) || !check_velocity(&objects, s, i))
      return false;
  return true;
}
