/* sim/common/sheet_grid: where particle (i, j) of a particle sheet (cloth, mass_spring) starts, the one
 * formula the builders and the pin markers share. A flat sheet is a grid of size[0] x size[1] about its
 * center in the plane "xz" or "xy" (i along x). A sagging sheet (cloth "sag", docs/SCENES.md) is the same
 * sheet bent along x into a circular arc of the same length: its two x edges stay at the center's height
 * (xz; at its z for xy) and its middle hangs `sag` below it (-y for xz, -z for xy), so a sheet pinned at
 * those edges starts slack, at rest length, like a hammock. */
#pragma once
#include "scene/scene.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  double center[3], size[2];
  bool plane_xy;
  double sag;          /* metres, 0 (flat) .. FL_SHEET_MAX_SAG * size[0] (scene/scene.h) */
  uint32_t nx, ny;     /* particles per side, >= 2 */
} fl_sheet_grid;

/* Particle (i, j)'s starting position. */
void fl_sheet_grid_point(const fl_sheet_grid *g, uint32_t i, uint32_t j, double out[3]);

/* The grid of a cloth or a mass_spring desc (a mass_spring sheet is flat). */
fl_sheet_grid fl_sheet_grid_of_cloth(const fl_cloth_desc *d);
fl_sheet_grid fl_sheet_grid_of_mass_spring(const fl_mass_spring_desc *d);
