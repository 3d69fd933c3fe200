/* tests/scenes/check_outside_mesh.c: the mesh-collider invariant from a --dump
 * (issue 17): no particle of any object is inside a closed mesh by more than
 * that object's tolerance. Each particle's signed distance to the mesh is exact
 * (closest triangle point, winding-number inside test: sim/common/mesh_sdf.h),
 * independent of the baked grid the simulation used.
 * usage: check_outside_mesh DUMP.csv MESH.obj SCALE CX CY CZ NAME TOL NEAR [NAME TOL NEAR]...
 * Every object named must appear in the dump; TOL (m) is how deep its particles
 * may be inside, and its closest particle must be within NEAR (m) of the surface
 * (it rests on the mesh: the check is not passed by missing it). Prints each
 * object's count, closest and deepest particle. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "sim/common/mesh_cpu.h"
#include "sim/common/mesh_sdf.h"

#define MAX_OBJECTS 16

int main(int argc, char **argv)
{
  if (argc < 10 || (argc - 7) % 3 != 0) {
    fprintf(stderr, "usage: check_outside_mesh DUMP.csv MESH.obj SCALE CX CY CZ NAME TOL NEAR [NAME TOL NEAR]...\n");
    return 2;
  }
  float center[3] = {(float)atof(argv[4]), (float)atof(argv[5]), (float)atof(argv[6])};
  fl_cpu_mesh mesh = {0};
  if (!fl_obj_load_placed(argv[2], (float)atof(argv[3]), center, &mesh)) {
    fprintf(stderr, "check_outside_mesh: %s\n", fl_error_message());
    return 1;
  }
  int objects = (argc - 7) / 3;
  if (objects > MAX_OBJECTS) objects = MAX_OBJECTS;
  const char *names[MAX_OBJECTS];
  double tol[MAX_OBJECTS], near[MAX_OBJECTS], closest[MAX_OBJECTS], deepest[MAX_OBJECTS];
  long count[MAX_OBJECTS], beyond[MAX_OBJECTS];
  for (int k = 0; k < objects; k++) {
    names[k] = argv[7 + 3 * k];
    tol[k] = atof(argv[8 + 3 * k]);
    near[k] = atof(argv[9 + 3 * k]);
    closest[k] = INFINITY, deepest[k] = 0, count[k] = beyond[k] = 0;
  }
  FILE *f = fopen(argv[1], "r");
  if (!f) {
    fprintf(stderr, "check_outside_mesh: cannot open %s\n", argv[1]);
    return 1;
  }
  char line[512];
  while (fgets(line, sizeof line, f)) {
    char *comma = strchr(line, ',');
    if (!comma) continue;
    *comma = 0;
    int k = 0;
    while (k < objects && strcmp(names[k], line) != 0) k++;
    int index;
    double p[3];
    if (k == objects || sscanf(comma + 1, "%d,%lf,%lf,%lf", &index, &p[0], &p[1], &p[2]) != 4) continue;
    double d = fl_mesh_sdf_exact(&mesh, p);
    count[k]++;
    closest[k] = fmin(closest[k], d);
    if (d < -tol[k]) beyond[k]++;
    if (d < 0) deepest[k] = fmax(deepest[k], -d);
  }
  fclose(f);
  int failed = 0;
  for (int k = 0; k < objects; k++) {
    printf("%s: %ld particles, closest %.4f m from the mesh, deepest inside %.4f m (tolerance %.4f m), %ld beyond it\n",
           names[k], count[k], closest[k], deepest[k], tol[k], beyond[k]);
    if (count[k] == 0) fprintf(stderr, "FAIL: no particles of %s in %s\n", names[k], argv[1]);
    if (beyond[k]) fprintf(stderr, "FAIL: %ld particles of %s inside the mesh by more than %g m\n", beyond[k], names[k], tol[k]);
    if (count[k] && !(closest[k] <= near[k]))
      fprintf(stderr, "FAIL: %s does not touch the mesh: its closest particle is %.4f m away (limit %g m)\n", names[k],
              closest[k], near[k]);
    failed |= count[k] == 0 || beyond[k] != 0 || !(closest[k] <= near[k]);
  }
  fl_cpu_mesh_free(&mesh);
  return failed;
}
