// render/snow.vert: snow particles as sphere impostors (render/impostor.glsl),
// from the MPM snapshot: xyz position, w the grid density there. Loose snow
// is drawn smaller than packed snow. With pc.loose_q > 0 (under the surface
// look, render/snow_surface) only the particles looser than that are drawn:
// the spray the iso-surface leaves out.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "impostor.glsl"
#include "snow.glsl"

layout(std430, binding = 1) readonly buffer Snapshot { vec4 snap[]; };  // xyz, w: density (kg/m^3)
layout(push_constant) uniform Push { fl_snow_push pc; };

layout(location = 0) out vec2 v_corner;
layout(location = 1) out vec3 v_center_view;
layout(location = 2) out float v_q;       // density / rest density
layout(location = 3) out float v_radius;
layout(location = 4) out float v_grain;   // per particle brightness jitter

void main()
{
  uint p = uint(gl_VertexIndex) / 6u;
  vec4 s = snap[p];
  v_q = max(s.w, 0.0) / pc.rest_density;
  if (pc.loose_q > 0.0 && v_q >= pc.loose_q) { // part of the surface: a degenerate, clipped quad
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    return;
  }
  v_radius = pc.radius * mix(1.0, 0.7, fl_snow_looseness(v_q));
  gl_Position = fl_impostor_vertex(gl_VertexIndex, s.xyz + pc.offset, v_radius, v_corner, v_center_view);
  v_grain = float(fl_snow_hash(p)) * (1.0 / 4294967296.0);
}
