/* app/quality: --quality low|medium|high|auto, sizes that fit the device. The
 * shipped scenes are sized for a CPU driver (low). medium and high multiply the
 * resolution of what is simulated by f = 2 and 4: cloth sheets get f times the
 * particles along each side (a 48x48 flag becomes 192x192 at high), particle
 * boxes f^2 times the particles, snow a grid spacing f times finer (f^3 times
 * the particles: snow-drop's block goes from 1536 to 98 304). Mass-spring
 * sheets, soft bodies and balloons keep their sizes: their scenes reproduce
 * published experiments at those sizes. auto picks from the device type: CPU
 * -> low, integrated or virtual GPU -> medium, discrete GPU -> high. */
#pragma once
#include <volk.h>

#include "scene/scene.h"

typedef enum { FL_QUALITY_AUTO, FL_QUALITY_LOW, FL_QUALITY_MEDIUM, FL_QUALITY_HIGH } fl_quality;

/* Parses "low", "medium", "high" or "auto"; false (nothing recorded) otherwise. */
bool fl_quality_parse(const char *text, fl_quality *out);
const char *fl_quality_name(fl_quality q);
/* What auto means on a device of this type (never FL_QUALITY_AUTO). */
fl_quality fl_quality_for_device(VkPhysicalDeviceType type);
/* Scales the scene's sizes for `q` (low: unchanged), clamped to each key's range. */
void fl_quality_apply(fl_quality q, fl_scene *scene);
