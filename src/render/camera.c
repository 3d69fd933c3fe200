/* render/camera: orbit camera and Vulkan-convention matrices. */
#include "render/camera.h"

#include <math.h>

#define PITCH_LIMIT 1.5f

void fl_camera_look(fl_camera *cam, const float eye[3], const float target[3])
{
  float d[3] = {eye[0] - target[0], eye[1] - target[1], eye[2] - target[2]};
  float dist = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (dist < 1e-3f) {
    dist = 1.0f;
    d[0] = 0; d[1] = 0; d[2] = 1;
  }
  for (int i = 0; i < 3; i++) cam->target[i] = target[i];
  cam->distance = dist;
  cam->pitch = asinf(d[1] / dist);
  cam->yaw = atan2f(d[0], d[2]);
  cam->fov_y = 0.8f;
  cam->shift_x = 0.0f;
}

void fl_camera_orbit(fl_camera *cam, float dx, float dy)
{
  cam->yaw -= dx * 0.005f;
  cam->pitch += dy * 0.005f;
  if (cam->pitch > PITCH_LIMIT) cam->pitch = PITCH_LIMIT;
  if (cam->pitch < -PITCH_LIMIT) cam->pitch = -PITCH_LIMIT;
}

void fl_camera_zoom(fl_camera *cam, float steps)
{
  cam->distance *= powf(0.9f, steps);
  if (cam->distance < 0.1f) cam->distance = 0.1f;
  if (cam->distance > 500.0f) cam->distance = 500.0f;
}

void fl_camera_eye(const fl_camera *cam, float eye[3])
{
  eye[0] = cam->target[0] + cam->distance * cosf(cam->pitch) * sinf(cam->yaw);
  eye[1] = cam->target[1] + cam->distance * sinf(cam->pitch);
  eye[2] = cam->target[2] + cam->distance * cosf(cam->pitch) * cosf(cam->yaw);
}

void fl_camera_matrices(const fl_camera *cam, float aspect, mat4 view, mat4 proj)
{
  vec3 eye, target = {cam->target[0], cam->target[1], cam->target[2]}, up = {0, 1, 0};
  fl_camera_eye(cam, eye);
  glm_lookat(eye, target, up, view);
  /* Right-handed perspective with depth in [0, 1] and y pointing down (Vulkan clip space). */
  float f = 1.0f / tanf(cam->fov_y * 0.5f), n = 0.02f, far = 1000.0f;
  glm_mat4_zero(proj);
  proj[0][0] = f / aspect;
  proj[1][1] = -f;
  proj[2][0] = -cam->shift_x; /* x_ndc = f x / (aspect (-z)) + shift_x: an off-centre frustum */
  proj[2][2] = far / (n - far);
  proj[2][3] = -1.0f;
  proj[3][2] = far * n / (n - far);
}

void fl_camera_ray(const fl_camera *cam, float x, float y, float width, float height, float dir[3])
{
  mat4 view, proj, vp, inv;
  fl_camera_matrices(cam, width / height, view, proj);
  glm_mat4_mul(proj, view, vp);
  glm_mat4_inv(vp, inv);
  vec4 ndc = {2.0f * x / width - 1.0f, 2.0f * y / height - 1.0f, 1.0f, 1.0f}, far;
  glm_mat4_mulv(inv, ndc, far);
  float eye[3];
  fl_camera_eye(cam, eye);
  vec3 d = {far[0] / far[3] - eye[0], far[1] / far[3] - eye[1], far[2] / far[3] - eye[2]};
  glm_vec3_normalize(d);
  for (int i = 0; i < 3; i++) dir[i] = d[i];
}
