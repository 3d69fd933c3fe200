// xpbd/wind_faces.comp: step 1 of the substep: aerodynamic drag and lift per
// triangle from the relative wind u = mean vertex velocity - wind, the wind
// gusting at the triangle's mid at the substep's end (common/gust_shared.h):
//   f = -drag A (u.n) u - lift A (u.n) (n - (n.u^) u^),  n flipped so u.n >= 0.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "gust_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_VEL) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer Objects { fl_gpu_xpbd_object objects[]; };
layout(std430, binding = FL_XPBD_B_TRIANGLES) readonly buffer Triangles { uint tri[]; };
layout(std430, binding = FL_XPBD_B_TRI_OBJECT) readonly buffer TriObject { uint tri_object[]; };
layout(std430, binding = FL_XPBD_B_FACE_FORCE) writeonly buffer FaceForce { vec4 face_force[]; };

void main()
{
  uint t = fl_thread_index();
  if (t >= pc.count) return;
  uint a = tri[3u * t], b = tri[3u * t + 1u], c = tri[3u * t + 2u];
  fl_gpu_xpbd_object o = objects[tri_object[t]];
  vec3 mid = (pos[a].xyz + pos[b].xyz + pos[c].xyz) / 3.0;
  float wind_len = length(o.wind);
  float along = wind_len > 0.0 ? dot(mid, o.wind) / wind_len : 0.0;
  vec3 wind = o.wind * fl_gust_factor(along, mid.y, pc.time, o.gust, o.gust_inv_period, o.gust_inv_length);
  vec3 u = (vel[a].xyz + vel[b].xyz + vel[c].xyz) / 3.0 - wind;
  vec3 e = cross(pos[b].xyz - pos[a].xyz, pos[c].xyz - pos[a].xyz);
  float e_len = length(e), u_len = length(u);
  vec3 f = vec3(0.0);
  if (u_len >= 1e-9 && e_len > 0.0) {
    vec3 n = e / e_len;
    float area = 0.5 * e_len;
    float un = dot(u, n);
    if (un < 0.0) {
      n = -n;
      un = -un;
    }
    vec3 uh = u / u_len;
    f = -o.drag * area * un * u - o.lift * area * un * (n - dot(n, uh) * uh);
  }
  face_force[t] = vec4(f, 0.0);
}
