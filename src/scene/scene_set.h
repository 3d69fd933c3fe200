/* scene/scene_set: the --set KEY=VALUE overrides, applied to a scene's parsed
 * JSON tree before it is validated. */
#pragma once
#include <cjson/cJSON.h>
#include <stdbool.h>

/* Applies each "KEY=VALUE" override to `root` in order. KEY is a dotted path
 * (sim.substeps, sim.domain.min, camera.eye.1, objects.NAME.radius) where NAME is
 * an object's name; VALUE is JSON, or else a string. A missing key is created when
 * it is valid for its section or object. Returns false with
 * "SOURCE: --set KEY=VALUE: reason" recorded when a path does not exist. */
bool fl_scene_apply_sets(cJSON *root, const char *source, const char *const *overrides,
                         int count);
