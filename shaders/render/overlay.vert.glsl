// render/overlay.vert: text quads from stb_easy_font, in pixels, to clip space.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "flurry_shared.h"
#include "frame.glsl"

layout(location = 0) in vec2 in_pos;
layout(location = 1) in vec4 in_color;
layout(location = 0) out vec4 v_color;

void main()
{
  vec2 ndc = in_pos / frame.viewport * 2.0 - 1.0;
  gl_Position = vec4(ndc, 0.0, 1.0);
  v_color = in_color;
}
