/* scene/scene_check.h: checks across keys of a parsed scene (scene_check.c). */
#pragma once

#include "scene/json_read.h"
#include "scene/scene.h"

/* False, with an error naming the key and a value that works, when values that are each in range
 * make no sense together (docs/SCENES.md, "Checks across keys"); `root` is the parsed document (which
 * keys were written). */
bool fl_scene_check(const fl_jr *top, const cJSON *root, const fl_scene *s);
