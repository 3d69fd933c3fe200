/*
 * check_mesh.c - checks that a triangle mesh in an OBJ file is a closed,
 * consistently oriented, outward-facing manifold surface.
 *
 * Reads "v x y z" and "f a b c" lines (1-based or negative indices; any
 * "/vt/vn" suffixes are ignored) and prints the vertex and triangle counts,
 * bounding box, surface area, signed volume and Euler characteristic. It
 * fails (exit 1) unless:
 *   - every face is a triangle with in-range, distinct indices and non-zero area;
 *   - every edge is shared by exactly two triangles that use it in opposite
 *     directions (closed, manifold, consistently oriented);
 *   - the signed volume sum((a x b) . c) / 6 is positive (normals point out).
 *
 * Build and run (only libc + libm):
 *   cc -O2 -o /tmp/check_mesh tools/check_mesh.c -lm && /tmp/check_mesh assets/meshes/gummy_bear.obj
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_TRIANGLE_AREA 1e-12 /* m^2; smaller counts as degenerate */

typedef struct { double x, y, z; } Vec3;
typedef struct {
    Vec3 *vertex;
    size_t vertex_count, vertex_capacity;
    uint32_t (*triangle)[3];
    size_t triangle_count, triangle_capacity;
} Mesh;

static Vec3 sub(Vec3 a, Vec3 b) { Vec3 r = {a.x - b.x, a.y - b.y, a.z - b.z}; return r; }
static double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static Vec3 cross(Vec3 a, Vec3 b)
{
    Vec3 r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return r;
}

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

/* ---- OBJ reading ----------------------------------------------------- */

/* Parses one face index token; returns 0-based index or -1 when invalid. */
static long parse_index(const char *token, size_t vertex_count)
{
    char *end;
    long i = strtol(token, &end, 10);
    if (end == token || (*end != '\0' && *end != '/'))
        return -1;
    if (i < 0)
        i += (long)vertex_count + 1; /* relative index */
    if (i < 1 || (size_t)i > vertex_count)
        return -1;
    return i - 1;
}

static int parse_face(char *rest, Mesh *m, int line)
{
    long idx[4];
    int n = 0;
    for (char *tok = strtok(rest, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
        if (n == 3) {
            fprintf(stderr, "line %d: face has more than 3 vertices\n", line);
            return 0;
        }
        idx[n] = parse_index(tok, m->vertex_count);
        if (idx[n] < 0) {
            fprintf(stderr, "line %d: bad or out-of-range index '%s'\n", line, tok);
            return 0;
        }
        n++;
    }
    if (n != 3) {
        fprintf(stderr, "line %d: face has %d vertices, expected 3\n", line, n);
        return 0;
    }
    m->triangle = grow(m->triangle, &m->triangle_capacity, m->triangle_count,
                       sizeof *m->triangle);
    for (int k = 0; k < 3; k++)
        m->triangle[m->triangle_count][k] = (uint32_t)idx[k];
    m->triangle_count++;
    return 1;
}

static int read_obj(const char *path, Mesh *m)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 0;
    }
    char buf[1024];
    int line = 0, ok = 1;
    while (ok && fgets(buf, sizeof buf, f)) {
        line++;
        if (buf[0] == 'v' && (buf[1] == ' ' || buf[1] == '\t')) {
            Vec3 p;
            if (sscanf(buf + 2, "%lf %lf %lf", &p.x, &p.y, &p.z) != 3) {
                fprintf(stderr, "line %d: bad vertex\n", line);
                ok = 0;
                break;
            }
            m->vertex = grow(m->vertex, &m->vertex_capacity, m->vertex_count, sizeof *m->vertex);
            m->vertex[m->vertex_count++] = p;
        } else if (buf[0] == 'f' && (buf[1] == ' ' || buf[1] == '\t')) {
            ok = parse_face(buf + 2, m, line);
        }
    }
    fclose(f);
    return ok;
}

/* ---- checks ---------------------------------------------------------- */

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int contains(const uint64_t *sorted, size_t n, uint64_t key)
{
    return bsearch(&key, sorted, n, sizeof key, compare_u64) != NULL;
}

/* Every directed edge once, and its reverse present: returns failure count. */
static size_t check_edges(const Mesh *m, size_t *undirected_edges)
{
    size_t n = m->triangle_count * 3, failures = 0;
    uint64_t *edge = malloc(n * sizeof *edge);
    if (!edge) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t t = 0; t < m->triangle_count; t++)
        for (int k = 0; k < 3; k++)
            edge[t * 3 + (size_t)k] = ((uint64_t)m->triangle[t][k] << 32) | m->triangle[t][(k + 1) % 3];
    qsort(edge, n, sizeof *edge, compare_u64);
    for (size_t i = 0; i < n; i++) {
        uint32_t a = (uint32_t)(edge[i] >> 32), b = (uint32_t)edge[i];
        uint64_t reverse = ((uint64_t)b << 32) | a;
        if (i + 1 < n && edge[i + 1] == edge[i]) {
            if (failures++ < 10)
                fprintf(stderr, "edge %u->%u used twice in the same direction\n", a + 1, b + 1);
        } else if (!contains(edge, n, reverse)) {
            if (failures++ < 10)
                fprintf(stderr, "edge %u->%u has no opposite (open boundary)\n", a + 1, b + 1);
        }
    }
    *undirected_edges = n / 2;
    free(edge);
    return failures;
}

static size_t check_triangles(const Mesh *m, double *area, double *volume)
{
    size_t failures = 0;
    *area = 0.0;
    *volume = 0.0;
    for (size_t t = 0; t < m->triangle_count; t++) {
        const uint32_t *tri = m->triangle[t];
        Vec3 a = m->vertex[tri[0]], b = m->vertex[tri[1]], c = m->vertex[tri[2]];
        Vec3 n = cross(sub(b, a), sub(c, a));
        double tri_area = 0.5 * sqrt(dot(n, n));
        if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] ||
            tri_area < MIN_TRIANGLE_AREA) {
            if (failures++ < 10)
                fprintf(stderr, "triangle %zu (%u %u %u) is degenerate (area %g)\n", t + 1,
                        tri[0] + 1, tri[1] + 1, tri[2] + 1, tri_area);
        }
        *area += tri_area;
        *volume += dot(cross(a, b), c) / 6.0;
    }
    return failures;
}

static double angle_between(Vec3 u, Vec3 v)
{
    double c = dot(u, v) / sqrt(dot(u, u) * dot(v, v));
    return acos(fmax(-1.0, fmin(1.0, c))) * 180.0 / 3.14159265358979323846;
}

/* Smallest interior angle (degrees) of any triangle, a mesh quality measure. */
static double min_angle(const Mesh *m)
{
    double worst = 180.0;
    for (size_t t = 0; t < m->triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            Vec3 a = m->vertex[m->triangle[t][k]];
            Vec3 b = m->vertex[m->triangle[t][(k + 1) % 3]];
            Vec3 c = m->vertex[m->triangle[t][(k + 2) % 3]];
            double angle = angle_between(sub(b, a), sub(c, a));
            if (angle == angle) /* skip NaN from degenerate triangles */
                worst = fmin(worst, angle);
        }
    return worst;
}

static void print_bounds(const Mesh *m)
{
    Vec3 lo = m->vertex[0], hi = m->vertex[0];
    for (size_t v = 1; v < m->vertex_count; v++) {
        Vec3 p = m->vertex[v];
        lo.x = fmin(lo.x, p.x); lo.y = fmin(lo.y, p.y); lo.z = fmin(lo.z, p.z);
        hi.x = fmax(hi.x, p.x); hi.y = fmax(hi.y, p.y); hi.z = fmax(hi.z, p.z);
    }
    printf("bounds:    [%.4f %.4f %.4f] .. [%.4f %.4f %.4f] (size %.4f x %.4f x %.4f)\n",
           lo.x, lo.y, lo.z, hi.x, hi.y, hi.z, hi.x - lo.x, hi.y - lo.y, hi.z - lo.z);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s MESH.obj\n", argv[0]);
        return 2;
    }
    Mesh m = {0};
    if (!read_obj(argv[1], &m))
        return 1;
    printf("vertices:  %zu\ntriangles: %zu\n", m.vertex_count, m.triangle_count);
    if (m.vertex_count == 0 || m.triangle_count == 0) {
        fprintf(stderr, "FAIL: empty mesh\n");
        return 1;
    }
    print_bounds(&m);
    size_t edges = 0;
    size_t edge_failures = check_edges(&m, &edges);
    double area, volume;
    size_t triangle_failures = check_triangles(&m, &area, &volume);
    long euler = (long)m.vertex_count - (long)edges + (long)m.triangle_count;
    printf("edges:     %zu\neuler:     %ld (2 for one closed genus-0 surface)\n", edges, euler);
    printf("area:      %.6f\nvolume:    %.6f (signed)\n", area, volume);
    printf("min angle: %.2f degrees\n", min_angle(&m));
    printf("edge problems: %zu, degenerate triangles: %zu\n", edge_failures, triangle_failures);
    int ok = edge_failures == 0 && triangle_failures == 0 && volume > 0.0;
    if (volume <= 0.0)
        fprintf(stderr, "signed volume is not positive: triangles face inward\n");
    printf("%s: %s\n", ok ? "PASS" : "FAIL",
           ok ? "closed, manifold, consistently oriented, outward-facing" : argv[1]);
    free(m.vertex);
    free(m.triangle);
    return ok ? 0 : 1;
}
