/* render/camera: an orbit camera (yaw, pitch, distance about a target) and its
 * Vulkan matrices (right-handed view, depth 0..1, y down in clip space). */
#pragma once
#include <cglm/cglm.h>

typedef struct {
  float target[3];
  float distance, yaw, pitch; /* radians */
  float fov_y;                /* radians */
  float shift_x;              /* lens shift: the target is drawn this far right of the middle, in
                               * clip units (2 = the width); 0 by default, the app's panel sets it */
} fl_camera;

/* Places the camera at `eye` looking at `target`, with no lens shift. */
void fl_camera_look(fl_camera *cam, const float eye[3], const float target[3]);
/* Orbits by pixel deltas (drag) and zooms by wheel steps. */
void fl_camera_orbit(fl_camera *cam, float dx_pixels, float dy_pixels);
void fl_camera_zoom(fl_camera *cam, float wheel_steps);
/* The eye position. */
void fl_camera_eye(const fl_camera *cam, float eye_out[3]);
/* The unit direction of the ray through pixel (x, y) of a width x height image. */
void fl_camera_ray(const fl_camera *cam, float x, float y, float width, float height, float dir_out[3]);
/* View and projection matrices for an aspect ratio (width / height). */
void fl_camera_matrices(const fl_camera *cam, float aspect, mat4 view, mat4 proj);
