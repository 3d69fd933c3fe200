/* tests/body_descs.h: soft body and balloon descriptions for the tests, every
 * field set: the scene defaults (docs/SCENES.md) but for what the arguments
 * name, a contact thickness of 0.04 m, and no opposite pairs (volume_beta 0). */
#pragma once
#include <string.h>

#include "scene/scene.h"

static inline fl_body_common_desc fl_test_body_common(float x, float y, float z, float radius, const float velocity[3],
                                                      fl_volume_conservation mode)
{
  fl_body_common_desc c;
  memset(&c, 0, sizeof c);
  c.center[0] = x, c.center[1] = y, c.center[2] = z;
  c.radius = radius;
  c.scale = 1.0f;
  memcpy(c.velocity, velocity, sizeof c.velocity);
  c.damping = 0.1f;
  c.thickness = 0.04f;
  c.friction[0] = 0.5f;
  c.friction[1] = 0.4f;
  c.volume_conservation = mode;
  c.volume_alpha = 0.25f;
  c.volume_pair_stiffness = 1.0f;
  c.measure_after = 0.0f;
  return c;
}

/* An icosphere balloon (mass 0.1 kg, isometric bending, a hard pressure constraint). */
static inline fl_balloon_desc fl_test_balloon(fl_body_common_desc common, uint32_t subdivisions, float pressure)
{
  fl_balloon_desc d;
  memset(&d, 0, sizeof d);
  d.common = common;
  d.shape = FL_BODY_ICOSPHERE;
  d.subdivisions = subdivisions;
  d.mass = 0.1f;
  d.stretch_compliance = 1e-4f;
  d.bend_compliance = 0.1f;
  d.bending = FL_BENDING_ISOMETRIC;
  d.pressure = pressure;
  d.pressure_compliance = 0.0f;
  return d;
}
