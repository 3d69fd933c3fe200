// common/health.glsl: the health test of one particle (src/sim/common/health.h):
// which FL_HEALTH_* bits its position and velocity set.
#ifndef FL_HEALTH_GLSL
#define FL_HEALTH_GLSL

uint fl_health_bits(vec3 x, vec3 v, float max_speed)
{
  if (any(isnan(x)) || any(isinf(x)) || any(isnan(v)) || any(isinf(v))) return FL_HEALTH_NOT_FINITE;
  return dot(v, v) > max_speed * max_speed ? FL_HEALTH_TOO_FAST : 0u;
}

#endif
