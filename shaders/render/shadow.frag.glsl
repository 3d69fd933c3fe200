// render/shadow.frag: the shadow pass writes depth only; its colour attachment
// is a placeholder (the pipelines have one colour attachment), cleared to 0.
#version 450
layout(location = 0) out vec4 out_color;
void main() { out_color = vec4(0.0); }
