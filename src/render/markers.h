/* render/markers: what the 3D view marks besides the objects themselves, as
 * points in the world: a label over each object of a side-by-side row (the
 * mass-spring, snow and balloon objects of a scene that share a type:
 * integrators E, HO, JI, IM, HY; snow reference, wet, dry; balloons none,
 * global, local, once per group), at its starting place; every pinned particle
 * of cloth and mass-spring grids (at its rest position: pins do not move),
 * and the grab point while the mouse holds a particle. The overlay draws them
 * projected to the screen (fl_markers_project). */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "scene/scene.h"

#define FL_MARKERS_MAX 1024

typedef enum { FL_MARKER_LABEL, FL_MARKER_PIN, FL_MARKER_GRAB } fl_marker_kind;

typedef struct {
  fl_marker_kind kind;
  float position[3];
  char text[FL_SCENE_NAME_MAX]; /* labels: the object's name */
} fl_marker;

/* The labels and pins of a scene; returns how many were written (at most `max`). */
uint32_t fl_markers_from_scene(const fl_scene *scene, fl_marker *out, uint32_t max);
/* Projects a world point with a view-projection matrix (columns: view_proj[column][row]) to pixels of
 * a width x height viewport (origin top left); false when it is behind the eye. */
bool fl_markers_project(const float view_proj[4][4], float width, float height, const float p[3], float *x, float *y);
