/* tools/gen_plow_blade.c: writes assets/meshes/plow_blade.obj, the curved blade
 * of the snowplow scene: a crescent (an arc of inner radius R and thickness T,
 * concave towards +x) in the x-y plane, extruded along z over the width W;
 * bounding box centred at the origin, counter-clockwise seen from outside.
 * Usage: gen_plow_blade OUT.obj. libc + libm only; deterministic. */
#include <math.h>
#include <stdio.h>

#define N 12           /* segments along the arc */
#define R 0.16         /* inner (front) radius (m) */
#define T 0.06         /* thickness (m) */
#define W 0.5          /* width along z (m) */
#define HALF_ANGLE 0.9 /* the arc spans pi +- this (rad) */
#define P (2 * (N + 1)) /* polygon points */

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: gen_plow_blade OUT.obj\n");
    return 2;
  }
  double poly[P][2], lo[2] = {1e9, 1e9}, hi[2] = {-1e9, -1e9};
  for (int k = 0; k <= N; k++) { /* front arc k, then the back arc in reverse: a closed outline */
    double th = M_PI - HALF_ANGLE + 2.0 * HALF_ANGLE * k / N;
    poly[k][0] = R * cos(th), poly[k][1] = R * sin(th);
    poly[P - 1 - k][0] = (R + T) * cos(th), poly[P - 1 - k][1] = (R + T) * sin(th);
  }
  double area = 0;
  for (int i = 0; i < P; i++) {
    const double *a = poly[i], *b = poly[(i + 1) % P];
    area += a[0] * b[1] - b[0] * a[1];
    for (int c = 0; c < 2; c++) lo[c] = fmin(lo[c], a[c]), hi[c] = fmax(hi[c], a[c]);
  }
  int ccw = area > 0; /* walk the outline counter-clockwise seen from +z */
  FILE *f = fopen(argv[1], "w");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  fprintf(f, "# plow_blade.obj - the curved blade of the snowplow scene (tools/gen_plow_blade.c).\n"
             "# A crescent in x-y (inner radius %g m, thickness %g m, concave towards +x) extruded %g m along z;\n"
             "# bounding box centred at the origin; closed, counter-clockwise seen from outside.\n",
          R, T, W);
  for (int side = 0; side < 2; side++)
    for (int i = 0; i < P; i++) {
      const double *p = poly[ccw ? i : P - 1 - i];
      fprintf(f, "v %.6f %.6f %.6f\n", p[0] - 0.5 * (lo[0] + hi[0]), p[1] - 0.5 * (lo[1] + hi[1]),
              side ? 0.5 * W : -0.5 * W);
    }
  /* Walls: edge i -> i+1 of the outline, from z = -W/2 (vertices 1..P) to +W/2 (P+1..2P). */
  for (int i = 0; i < P; i++) {
    int a0 = i + 1, b0 = (i + 1) % P + 1, a1 = a0 + P, b1 = b0 + P;
    fprintf(f, "f %d %d %d\nf %d %d %d\n", a0, b0, b1, a0, b1, a1);
  }
  /* Caps: the quads between the front and back arcs; the outline runs front k = 0..N then back N..0. */
  for (int k = 0; k < N; k++) {
    int fk = ccw ? k : P - 1 - k, fk1 = ccw ? k + 1 : P - 2 - k; /* outline indices after reordering */
    int bk = P - 1 - fk, bk1 = P - 1 - fk1;
    /* In the written order the outline is counter-clockwise: +z cap keeps it, -z cap reverses it. */
    int q[4] = {fk, fk1, bk1, bk};
    double cross = 0;
    for (int j = 0; j < 4; j++) {
      const double *a = poly[ccw ? q[j] : P - 1 - q[j]], *b = poly[ccw ? q[(j + 1) % 4] : P - 1 - q[(j + 1) % 4]];
      cross += a[0] * b[1] - b[0] * a[1];
    }
    if (cross < 0) {
      int t = q[1];
      q[1] = q[3], q[3] = t;
    }
    fprintf(f, "f %d %d %d\nf %d %d %d\n", q[0] + 1 + P, q[1] + 1 + P, q[2] + 1 + P, q[0] + 1 + P, q[2] + 1 + P,
            q[3] + 1 + P);
    fprintf(f, "f %d %d %d\nf %d %d %d\n", q[0] + 1, q[2] + 1, q[1] + 1, q[0] + 1, q[3] + 1, q[2] + 1);
  }
  return fclose(f) == 0 ? 0 : 1;
}
