/* sim/xpbd/tri_contact_build: edges, owners and the hash cell of triangle contacts (see tri_contact_build.h). */
#include "sim/xpbd/tri_contact_build.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool fl_tri_object_collides(const fl_gpu_xpbd_object *o, bool any)
{
  return any && (o->body != 0 || o->self_collision == FL_SELF_TRIANGLES);
}

typedef struct {
  uint32_t a, b, t, k;
} edge_ref;

static int edge_ref_cmp(const void *pa, const void *pb)
{
  const edge_ref *x = pa, *y = pb;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  if (x->b != y->b) return x->b < y->b ? -1 : 1;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return (x->k > y->k) - (x->k < y->k);
}

/* The pair list's room per particle and per edge: FL_TRI_PAIRS_PER, times
 * 4 (radius / mean rest edge)^2 of the thickest "triangles" cloth relative
 * to its edges when that exceeds 1 (a particle has about 2 pi (thickness /
 * edge)^2 pairs within reach with its own sheet's triangles), at most 16 times;
 * the radius is the thickness, or FL_TRI_GUARD_LIST times it when the contact
 * guard lists pairs that far (its room up to 16 FL_TRI_GUARD_LIST^2 times). */
static uint32_t pairs_per(const fl_xpbd_build *b, const fl_tri_contacts *t)
{
  double list = t->guard > 0 ? FL_TRI_GUARD_LIST : 1.0, cap = 16.0 * list * list;
  double length[FL_SCENE_MAX_OBJECTS] = {0}, ratio = 1.0;
  uint32_t count[FL_SCENE_MAX_OBJECTS] = {0};
  for (uint32_t e = 0; e < t->edge_count; e++) {
    const float *p = b->positions[t->edges[e][0]], *q = b->positions[t->edges[e][1]];
    uint32_t o = b->particle_object[t->edges[e][0]];
    if (o >= FL_SCENE_MAX_OBJECTS) continue;
    length[o] += sqrt((double)(p[0] - q[0]) * (p[0] - q[0]) + (double)(p[1] - q[1]) * (p[1] - q[1]) +
                      (double)(p[2] - q[2]) * (p[2] - q[2]));
    count[o]++;
  }
  for (uint32_t o = 0; o < b->object_count && o < FL_SCENE_MAX_OBJECTS; o++) {
    const fl_gpu_xpbd_object *ob = &b->objects[o];
    if (ob->body != 0 || ob->self_collision != FL_SELF_TRIANGLES || !count[o] || !(length[o] > 0)) continue;
    double r = list * ob->thickness / (length[o] / count[o]);
    if (4.0 * r * r > ratio) ratio = 4.0 * r * r;
  }
  return (uint32_t)ceil(FL_TRI_PAIRS_PER * (ratio < cap ? ratio : cap));
}

/* The edges and owners of b's colliding triangles into t's arrays (room for 3
 * edges a triangle), with `refs` (3 per triangle) as scratch; e_max: the
 * longest edge of a colliding triangle in b->positions, when asked. */
static void build_edges(const fl_xpbd_build *b, fl_tri_contacts *t, edge_ref *refs, float *e_max)
{
  size_t n = 0;
  t->edge_count = 0;
  for (uint32_t tr = 0; tr < b->triangle_count; tr++) {
    t->owned[tr] = 0;
    if (!fl_tri_object_collides(&b->objects[b->triangle_object[tr]], true)) continue;
    const uint32_t *v = b->triangles + 3 * (size_t)tr;
    t->owned[tr] = FL_TRI_COLLIDES;
    for (int k = 0; e_max && k < 3; k++) { /* the longest edge bounds the box's extent on every axis, turned any way */
      const float *p = b->positions[v[k]], *q = b->positions[v[(k + 1) % 3]];
      *e_max = fmaxf(*e_max, sqrtf((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                                   (p[2] - q[2]) * (p[2] - q[2])));
    }
    for (uint32_t k = 0; k < 3; k++) {
      uint32_t c = v[k], d = v[(k + 1) % 3];
      refs[n++] = (edge_ref){c < d ? c : d, c < d ? d : c, tr, k};
    }
  }
  qsort(refs, n, sizeof *refs, edge_ref_cmp);
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && refs[i].a == refs[i - 1].a && refs[i].b == refs[i - 1].b) continue;
    t->owned[refs[i].t] |= 1u << refs[i].k;
    t->edges[t->edge_count][0] = refs[i].a;
    t->edges[t->edge_count][1] = refs[i].b;
    t->edge_count++;
  }
}

bool fl_tri_contacts_create(const fl_xpbd_build *b, fl_tri_contacts *out)
{
  memset(out, 0, sizeof *out);
  for (uint32_t o = 0; o < b->object_count; o++)
    out->any |= b->objects[o].body == 0 && b->objects[o].self_collision == FL_SELF_TRIANGLES;
  if (!out->any) return true;
  size_t t_count = b->triangle_count;
  out->refs = malloc((t_count ? t_count : 1) * 3 * sizeof(edge_ref));
  out->owned = calloc(t_count ? t_count : 1, sizeof *out->owned);
  out->edges = calloc((t_count ? t_count : 1) * 3, sizeof *out->edges);
  if (!out->refs || !out->owned || !out->edges) {
    fl_tri_contacts_destroy(out);
    return fl_error_set("triangle contacts: out of host memory for %zu triangles", t_count);
  }
  float e_max = 0, reach_max = 0, reach_min = INFINITY;
  bool guard = false; /* some "triangles" cloth asks for the contact guard (sim.contact_guard copied to each) */
  for (uint32_t o = 0; o < b->object_count; o++) {
    const fl_gpu_xpbd_object *ob = &b->objects[o];
    if (!fl_tri_object_collides(ob, true)) continue;
    reach_max = fmaxf(reach_max, ob->thickness);
    reach_min = fminf(reach_min, ob->thickness);
    guard |= ob->body == 0 && ob->contact_guard != 0;
  }
  /* A pair left out of the list was FL_TRI_GUARD_LIST reach >= FL_TRI_GUARD_LIST reach_min apart at the start. */
  out->guard = guard ? (float)(FL_TRI_GUARD_SHARE * FL_TRI_GUARD_LIST) * reach_min : 0.0f;
  build_edges(b, out, out->refs, &e_max);
  /* A tearing object's splits copy the edges along a cut: room for every colliding triangle's three. */
  out->edge_capacity = out->edge_count;
  for (uint32_t o = 0; o < b->object_count; o++)
    if (b->tear_strain[o] > 0 && fl_tri_object_collides(&b->objects[o], true)) {
      out->edge_capacity = 0;
      for (uint32_t t = 0; t < t_count; t++) out->edge_capacity += (out->owned[t] & FL_TRI_COLLIDES) ? 3u : 0u;
      break;
    }
  out->pairs_per = pairs_per(b, out);
  out->margin = (guard ? (float)FL_TRI_GUARD_LIST : 1.0f) * reach_max; /* the listing radius <= margin */
  out->cell_size = FL_TRI_STRETCH * e_max + 2.0f * out->margin;
  if (!(out->cell_size > 0)) out->cell_size = 1.0f;
  return true;
}

void fl_tri_contacts_rebuild(const fl_xpbd_build *b, fl_tri_contacts *t)
{
  if (t->any) build_edges(b, t, t->refs, NULL);
}

void fl_tri_contacts_destroy(fl_tri_contacts *t)
{
  free(t->edges);
  free(t->owned);
  free(t->refs);
  memset(t, 0, sizeof *t);
}
