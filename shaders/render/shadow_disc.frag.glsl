// render/shadow_disc.frag: a particle's disc in the shadow pass (depth only).
#version 450
layout(location = 0) in vec2 v_corner;
layout(location = 0) out vec4 out_color;
void main()
{
  if (dot(v_corner, v_corner) > 1.0) discard;
  out_color = vec4(0.0);
}
