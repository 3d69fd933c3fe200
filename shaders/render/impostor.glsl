// render/impostor.glsl: camera-facing sphere impostors, 6 vertices per sphere
// pulled straight from a simulation buffer, ray-traced in the fragment stage
// with correct depth. Shared by render/particles and render/snow.
#ifndef FL_IMPOSTOR_GLSL
#define FL_IMPOSTOR_GLSL
#include "frame.glsl"

const vec2 fl_impostor_corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1),
                                           vec2(-1, 1));

// Vertex stage: the clip position of vertex `vertex` (gl_VertexIndex) of the quad
// around the sphere at `center` (world); its corner in [-1, 1]^2 and the centre
// in view space go to the fragment stage.
vec4 fl_impostor_vertex(int vertex, vec3 center, float radius, out vec2 corner, out vec3 center_view)
{
  corner = fl_impostor_corners[vertex % 6];
  vec4 c = frame.view * vec4(center, 1.0);
  center_view = c.xyz;
  return frame.proj * (c + vec4(corner * radius, 0.0, 0.0));
}

// Fragment stage: false outside the sphere's disc (the caller discards); else
// the world normal of the sphere point under the fragment, the unit direction
// from it to the eye, and its depth (for gl_FragDepth).
bool fl_impostor_hit(vec2 corner, vec3 center_view, float radius, out vec3 n_world, out vec3 view_dir,
                     out float depth)
{
  float r2 = dot(corner, corner);
  if (r2 > 1.0) return false;
  vec3 n_view = vec3(corner, sqrt(1.0 - r2));
  vec3 p_view = center_view + n_view * radius;
  vec4 clip = frame.proj * vec4(p_view, 1.0);
  depth = clip.z / clip.w;
  mat3 to_world = transpose(mat3(frame.view)); // the view's rotation is orthonormal
  n_world = normalize(to_world * n_view);
  view_dir = normalize(to_world * -p_view);
  return true;
}
#endif
