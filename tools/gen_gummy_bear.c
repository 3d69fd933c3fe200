/*
 * gen_gummy_bear.c - procedurally generates the gummy bear mesh used by the
 * soft-body demo (assets/meshes/gummy_bear.obj).
 *
 * The bear is a signed distance field: a polynomial smooth union of ellipsoids
 * (body, head, snout, legs), spheres (ears) and capsules (arms). The field is
 * sampled on a regular grid and polygonized with marching tetrahedra (each
 * cube split into the 6 Kuhn tetrahedra around its main diagonal, which tile
 * space consistently, so there are no ambiguous cases). Surface vertices are
 * shared by grid edge key, so the mesh is closed; each vertex is then moved a
 * few Newton steps onto the zero level set. Finally the mesh is scaled to
 * 1.0 m tall (y up, facing +z) with its bounding box centred at the origin.
 *
 * Build and run (only libc + libm):
 *   cc -O2 -o /tmp/gen tools/gen_gummy_bear.c -lm && /tmp/gen assets/meshes/gummy_bear.obj
 * An optional second argument sets the number of grid cells along the height.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CELLS_ALONG_HEIGHT 26 /* ~6500 triangles */
#define TARGET_HEIGHT_M 1.0
#define NEWTON_STEPS 4
#define MIN_EDGE_FRACTION 0.08 /* keep crossings away from grid nodes */
#define RELAX_ITERATIONS 10
#define RELAX_STEP 0.5

typedef struct { double x, y, z; } Vec3;

static Vec3 v3(double x, double y, double z) { Vec3 r = {x, y, z}; return r; }
static Vec3 add(Vec3 a, Vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static Vec3 sub(Vec3 a, Vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static Vec3 scale(Vec3 a, double s) { return v3(a.x * s, a.y * s, a.z * s); }
static double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static double length(Vec3 a) { return sqrt(dot(a, a)); }
static Vec3 cross(Vec3 a, Vec3 b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static Vec3 mirror_x(Vec3 a) { return v3(-a.x, a.y, a.z); }

/* ---- signed distance primitives -------------------------------------- */

static double sd_sphere(Vec3 p, Vec3 centre, double radius)
{
    return length(sub(p, centre)) - radius;
}

/* Ellipsoid bound (Quilez): exact on the surface, a close estimate off it. */
static double sd_ellipsoid(Vec3 p, Vec3 centre, Vec3 radii)
{
    Vec3 q = sub(p, centre);
    double k0 = length(v3(q.x / radii.x, q.y / radii.y, q.z / radii.z));
    double k1 = length(v3(q.x / (radii.x * radii.x), q.y / (radii.y * radii.y),
                          q.z / (radii.z * radii.z)));
    if (k1 < 1e-12)
        return -fmin(radii.x, fmin(radii.y, radii.z));
    return k0 * (k0 - 1.0) / k1;
}

static double sd_capsule(Vec3 p, Vec3 a, Vec3 b, double radius)
{
    Vec3 pa = sub(p, a), ba = sub(b, a);
    double h = dot(pa, ba) / dot(ba, ba);
    h = fmax(0.0, fmin(1.0, h));
    return length(sub(pa, scale(ba, h))) - radius;
}

/* Polynomial smooth minimum; k is the blend width. */
static double smin(double a, double b, double k)
{
    double h = fmax(k - fabs(a - b), 0.0) / k;
    return fmin(a, b) - h * h * k * 0.25;
}

/* ---- the bear (model units, y up, facing +z) ------------------------- */

static double sd_head(Vec3 p)
{
    double head = sd_ellipsoid(p, v3(0.0, 0.50, 0.0), v3(0.25, 0.22, 0.21));
    double snout = sd_ellipsoid(p, v3(0.0, 0.44, 0.18), v3(0.11, 0.08, 0.09));
    double ear_l = sd_sphere(p, v3(0.19, 0.68, -0.02), 0.085);
    double ear_r = sd_sphere(p, mirror_x(v3(0.19, 0.68, -0.02)), 0.085);
    double d = smin(head, snout, 0.06);
    d = smin(d, ear_l, 0.04);
    return smin(d, ear_r, 0.04);
}

static double sd_limbs(Vec3 p)
{
    Vec3 shoulder = v3(0.20, 0.22, 0.02), hand = v3(0.33, 0.06, 0.10);
    Vec3 leg_centre = v3(0.15, -0.36, 0.05), leg_radii = v3(0.115, 0.13, 0.14);
    double arms = fmin(sd_capsule(p, shoulder, hand, 0.08),
                       sd_capsule(p, mirror_x(shoulder), mirror_x(hand), 0.08));
    double legs = fmin(sd_ellipsoid(p, leg_centre, leg_radii),
                       sd_ellipsoid(p, mirror_x(leg_centre), leg_radii));
    return fmin(arms, legs);
}

static double sd_bear(Vec3 p)
{
    double body = sd_ellipsoid(p, v3(0.0, -0.02, 0.0), v3(0.26, 0.33, 0.22));
    double d = smin(body, sd_head(p), 0.10);
    return smin(d, sd_limbs(p), 0.07);
}

static Vec3 gradient(Vec3 p)
{
    const double e = 1e-5;
    return v3((sd_bear(add(p, v3(e, 0, 0))) - sd_bear(sub(p, v3(e, 0, 0)))) / (2 * e),
              (sd_bear(add(p, v3(0, e, 0))) - sd_bear(sub(p, v3(0, e, 0)))) / (2 * e),
              (sd_bear(add(p, v3(0, 0, e))) - sd_bear(sub(p, v3(0, 0, e)))) / (2 * e));
}

/* ---- growable arrays ------------------------------------------------- */

typedef struct { Vec3 *data; size_t count, capacity; } VertexList;
typedef struct { uint32_t (*data)[3]; size_t count, capacity; } TriangleList;

static void *grow(void *data, size_t *capacity, size_t count, size_t elem)
{
    if (count < *capacity)
        return data;
    *capacity = *capacity ? *capacity * 2 : 1024;
    data = realloc(data, *capacity * elem);
    if (!data) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return data;
}

static uint32_t push_vertex(VertexList *list, Vec3 p)
{
    list->data = grow(list->data, &list->capacity, list->count, sizeof *list->data);
    list->data[list->count] = p;
    return (uint32_t)list->count++;
}

static void push_triangle(TriangleList *list, uint32_t a, uint32_t b, uint32_t c)
{
    list->data = grow(list->data, &list->capacity, list->count, sizeof *list->data);
    list->data[list->count][0] = a;
    list->data[list->count][1] = b;
    list->data[list->count][2] = c;
    list->count++;
}

/* ---- sampling grid --------------------------------------------------- */

typedef struct {
    int nx, ny, nz;      /* node counts */
    Vec3 origin;
    double cell;
    double *value;       /* field at each node */
} Grid;

static size_t node_index(const Grid *g, int i, int j, int k)
{
    return ((size_t)k * (size_t)g->ny + (size_t)j) * (size_t)g->nx + (size_t)i;
}

static Vec3 node_position(const Grid *g, size_t n)
{
    size_t i = n % (size_t)g->nx, j = (n / (size_t)g->nx) % (size_t)g->ny;
    size_t k = n / ((size_t)g->nx * (size_t)g->ny);
    return add(g->origin, v3((double)i * g->cell, (double)j * g->cell, (double)k * g->cell));
}

/* Model-space box that encloses the bear with a margin. */
static void bear_bounds(Vec3 *lo, Vec3 *hi)
{
    *lo = v3(-0.50, -0.56, -0.34);
    *hi = v3(0.50, 0.82, 0.36);
}

static Grid sample_grid(int cells_along_height)
{
    Vec3 lo, hi;
    bear_bounds(&lo, &hi);
    Grid g;
    g.cell = (hi.y - lo.y) / cells_along_height;
    g.origin = lo;
    g.nx = (int)ceil((hi.x - lo.x) / g.cell) + 1;
    g.ny = cells_along_height + 1;
    g.nz = (int)ceil((hi.z - lo.z) / g.cell) + 1;
    size_t n = (size_t)g.nx * (size_t)g.ny * (size_t)g.nz;
    g.value = malloc(n * sizeof *g.value);
    if (!g.value) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        double d = sd_bear(node_position(&g, i));
        /* No node may lie exactly on the surface: treat zero as outside. */
        g.value[i] = d == 0.0 ? 1e-9 : d;
    }
    return g;
}

/* The surface is closed only if the whole grid boundary lies outside the bear. */
static int boundary_is_outside(const Grid *g)
{
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                int on_boundary = i == 0 || j == 0 || k == 0 || i == g->nx - 1 ||
                                  j == g->ny - 1 || k == g->nz - 1;
                if (on_boundary && g->value[node_index(g, i, j, k)] < 0.0)
                    return 0;
            }
    return 1;
}

/* ---- edge -> vertex map (open addressing) ---------------------------- */

typedef struct { uint64_t *key; uint32_t *vertex; size_t capacity, count; } EdgeMap;

static EdgeMap edge_map_create(size_t capacity)
{
    EdgeMap m;
    m.count = 0;
    m.capacity = 1;
    while (m.capacity < capacity * 2)
        m.capacity <<= 1;
    m.key = malloc(m.capacity * sizeof *m.key);
    m.vertex = malloc(m.capacity * sizeof *m.vertex);
    if (!m.key || !m.vertex) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    memset(m.key, 0xff, m.capacity * sizeof *m.key);
    return m;
}

/* Returns the slot for key; an empty slot holds UINT64_MAX. */
static size_t edge_map_slot(const EdgeMap *m, uint64_t key)
{
    size_t s = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (m->capacity - 1);
    while (m->key[s] != key && m->key[s] != UINT64_MAX)
        s = (s + 1) & (m->capacity - 1);
    return s;
}

/* The surface vertex on grid edge (a, b), created on first use. */
static uint32_t edge_vertex(EdgeMap *m, VertexList *verts, const Grid *g, size_t a, size_t b)
{
    if (a > b) {
        size_t t = a; a = b; b = t;
    }
    uint64_t key = ((uint64_t)a << 32) | (uint64_t)b;
    size_t s = edge_map_slot(m, key);
    if (m->key[s] == key)
        return m->vertex[s];
    double fa = g->value[a], fb = g->value[b];
    double t = fa / (fa - fb);
    t = fmax(MIN_EDGE_FRACTION, fmin(1.0 - MIN_EDGE_FRACTION, t));
    Vec3 pa = node_position(g, a), pb = node_position(g, b);
    if (++m->count > m->capacity / 2) {
        fprintf(stderr, "edge map full\n");
        exit(1);
    }
    m->key[s] = key;
    m->vertex[s] = push_vertex(verts, add(pa, scale(sub(pb, pa), t)));
    return m->vertex[s];
}

/* ---- marching tetrahedra --------------------------------------------- */

/* Adds triangle (a, b, c) turned so its normal points along outward. */
static void emit_oriented(TriangleList *tris, const VertexList *verts, uint32_t a,
                          uint32_t b, uint32_t c, Vec3 outward)
{
    Vec3 n = cross(sub(verts->data[b], verts->data[a]), sub(verts->data[c], verts->data[a]));
    if (dot(n, outward) >= 0.0)
        push_triangle(tris, a, b, c);
    else
        push_triangle(tris, a, c, b);
}

static void polygonize_tet(const size_t node[4], const Grid *g, EdgeMap *map,
                           VertexList *verts, TriangleList *tris)
{
    size_t in[4], out[4];
    int n_in = 0, n_out = 0;
    for (int i = 0; i < 4; i++) {
        if (g->value[node[i]] < 0.0)
            in[n_in++] = node[i];
        else
            out[n_out++] = node[i];
    }
    if (n_in == 0 || n_out == 0)
        return;
    /* Outward direction: from the inside nodes' centroid to the outside ones'. */
    Vec3 cin = v3(0, 0, 0), cout = v3(0, 0, 0);
    for (int i = 0; i < n_in; i++)
        cin = add(cin, scale(node_position(g, in[i]), 1.0 / n_in));
    for (int i = 0; i < n_out; i++)
        cout = add(cout, scale(node_position(g, out[i]), 1.0 / n_out));
    Vec3 outward = sub(cout, cin);

    if (n_in == 1 || n_out == 1) {
        size_t lone = n_in == 1 ? in[0] : out[0];
        const size_t *others = n_in == 1 ? out : in;
        uint32_t a = edge_vertex(map, verts, g, lone, others[0]);
        uint32_t b = edge_vertex(map, verts, g, lone, others[1]);
        uint32_t c = edge_vertex(map, verts, g, lone, others[2]);
        emit_oriented(tris, verts, a, b, c, outward);
    } else {
        /* Quad in0-out0, in0-out1, in1-out1, in1-out0 (a cycle), split in two. */
        uint32_t a = edge_vertex(map, verts, g, in[0], out[0]);
        uint32_t b = edge_vertex(map, verts, g, in[0], out[1]);
        uint32_t c = edge_vertex(map, verts, g, in[1], out[1]);
        uint32_t d = edge_vertex(map, verts, g, in[1], out[0]);
        emit_oriented(tris, verts, a, b, c, outward);
        emit_oriented(tris, verts, a, c, d, outward);
    }
}

/* Six Kuhn tetrahedra: the monotone paths from corner (0,0,0) to (1,1,1). */
static void polygonize_cube(const Grid *g, int i, int j, int k, EdgeMap *map,
                            VertexList *verts, TriangleList *tris)
{
    static const int axis_orders[6][3] = {
        {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int t = 0; t < 6; t++) {
        int c[3] = {i, j, k};
        size_t node[4];
        node[0] = node_index(g, c[0], c[1], c[2]);
        for (int s = 0; s < 3; s++) {
            c[axis_orders[t][s]]++;
            node[s + 1] = node_index(g, c[0], c[1], c[2]);
        }
        polygonize_tet(node, g, map, verts, tris);
    }
}

static void polygonize(const Grid *g, VertexList *verts, TriangleList *tris)
{
    size_t nodes = (size_t)g->nx * (size_t)g->ny * (size_t)g->nz;
    EdgeMap map = edge_map_create(nodes); /* generous: surface edges << nodes */
    for (int k = 0; k + 1 < g->nz; k++)
        for (int j = 0; j + 1 < g->ny; j++)
            for (int i = 0; i + 1 < g->nx; i++)
                polygonize_cube(g, i, j, k, &map, verts, tris);
    free(map.key);
    free(map.vertex);
}

/* ---- post-processing ------------------------------------------------- */

static void project_onto_surface(VertexList *verts)
{
    for (size_t v = 0; v < verts->count; v++) {
        Vec3 p = verts->data[v];
        for (int step = 0; step < NEWTON_STEPS; step++) {
            Vec3 grad = gradient(p);
            double g2 = dot(grad, grad);
            if (g2 < 1e-12)
                break;
            p = sub(p, scale(grad, sd_bear(p) / g2));
        }
        verts->data[v] = p;
    }
}

/*
 * Tangential relaxation: moves each vertex toward the average of its
 * neighbours within the surface's tangent plane, then back onto the surface.
 * Evens out the slivers that marching tetrahedra leaves without changing the
 * connectivity or the shape.
 */
static void relax(VertexList *verts, const TriangleList *tris, int iterations)
{
    Vec3 *sum = malloc(verts->count * sizeof *sum);
    int *count = malloc(verts->count * sizeof *count);
    if (!sum || !count) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (int it = 0; it < iterations; it++) {
        memset(sum, 0, verts->count * sizeof *sum);
        memset(count, 0, verts->count * sizeof *count);
        for (size_t t = 0; t < tris->count; t++)
            for (int k = 0; k < 3; k++) {
                uint32_t v = tris->data[t][k], w = tris->data[t][(k + 1) % 3];
                sum[v] = add(sum[v], verts->data[w]);
                count[v]++;
            }
        for (size_t v = 0; v < verts->count; v++) {
            Vec3 p = verts->data[v];
            Vec3 move = sub(scale(sum[v], 1.0 / count[v]), p);
            Vec3 n = gradient(p);
            double n2 = dot(n, n);
            if (n2 > 1e-12)
                move = sub(move, scale(n, dot(move, n) / n2));
            verts->data[v] = add(p, scale(move, RELAX_STEP));
        }
        project_onto_surface(verts);
    }
    free(sum);
    free(count);
}

/* Counts triangles whose normal disagrees with the field gradient. */
static size_t count_flipped(const VertexList *verts, const TriangleList *tris)
{
    size_t flipped = 0;
    for (size_t t = 0; t < tris->count; t++) {
        Vec3 a = verts->data[tris->data[t][0]], b = verts->data[tris->data[t][1]];
        Vec3 c = verts->data[tris->data[t][2]];
        Vec3 n = cross(sub(b, a), sub(c, a));
        Vec3 centroid = scale(add(add(a, b), c), 1.0 / 3.0);
        if (dot(n, gradient(centroid)) <= 0.0)
            flipped++;
    }
    return flipped;
}

/* Uniform scale to the target height, bounding box centred at the origin. */
static void normalize_size(VertexList *verts)
{
    Vec3 lo = verts->data[0], hi = verts->data[0];
    for (size_t v = 1; v < verts->count; v++) {
        Vec3 p = verts->data[v];
        lo = v3(fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z));
        hi = v3(fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z));
    }
    Vec3 centre = scale(add(lo, hi), 0.5);
    double s = TARGET_HEIGHT_M / (hi.y - lo.y);
    for (size_t v = 0; v < verts->count; v++)
        verts->data[v] = scale(sub(verts->data[v], centre), s);
}

static int write_obj(const char *path, const VertexList *verts, const TriangleList *tris,
                     int cells)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 0;
    }
    fprintf(f, "# gummy_bear.obj - a gummy bear (the candy) for the soft-body demo.\n"
               "# 1.0 m tall, y up, facing +z, bounding box centred at the origin.\n"
               "# Closed, consistently oriented (counter-clockwise seen from outside).\n"
               "# %zu vertices, %zu triangles.\n"
               "# Smooth union of ellipsoid/sphere/capsule SDFs, marching tetrahedra on a\n"
               "# grid of %d cells along the height, vertices welded by grid edge,\n"
               "# projected onto the zero level set with Newton steps and relaxed\n"
               "# tangentially to even out the triangles.\n"
               "# generated by tools/gen_gummy_bear.c; regenerate with:\n"
               "#   cc -O2 -o /tmp/gen tools/gen_gummy_bear.c -lm && "
               "/tmp/gen assets/meshes/gummy_bear.obj\n",
            verts->count, tris->count, cells);
    for (size_t v = 0; v < verts->count; v++)
        fprintf(f, "v %.5f %.5f %.5f\n", verts->data[v].x, verts->data[v].y, verts->data[v].z);
    for (size_t t = 0; t < tris->count; t++)
        fprintf(f, "f %u %u %u\n", tris->data[t][0] + 1, tris->data[t][1] + 1,
                tris->data[t][2] + 1);
    if (fclose(f) != 0) {
        perror(path);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s OUTPUT.obj [CELLS_ALONG_HEIGHT]\n", argv[0]);
        return 2;
    }
    int cells = argc == 3 ? atoi(argv[2]) : DEFAULT_CELLS_ALONG_HEIGHT;
    if (cells < 8 || cells > 512) {
        fprintf(stderr, "cells along height must be in [8, 512]\n");
        return 2;
    }
    Grid grid = sample_grid(cells);
    if (!boundary_is_outside(&grid)) {
        fprintf(stderr, "the bear pokes out of the sampling box\n");
        return 1;
    }
    VertexList verts = {0};
    TriangleList tris = {0};
    polygonize(&grid, &verts, &tris);
    project_onto_surface(&verts);
    relax(&verts, &tris, RELAX_ITERATIONS);
    size_t flipped = count_flipped(&verts, &tris);
    if (flipped) {
        fprintf(stderr, "%zu triangles face against the field gradient\n", flipped);
        return 1;
    }
    normalize_size(&verts);
    if (!write_obj(argv[1], &verts, &tris, cells))
        return 1;
    printf("%s: %zu vertices, %zu triangles (%d cells along height)\n", argv[1],
           verts.count, tris.count, cells);
    free(grid.value);
    free(verts.data);
    free(tris.data);
    return 0;
}
