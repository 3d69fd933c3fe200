/* render/snow_look: the names of the snow looks (render/snow_look.h). */
#include "render/snow_look.h"

#include <string.h>

static const char *const names[FL_SNOW_LOOK_COUNT] = {"surface", "particles", "volume"};

bool fl_snow_look_parse(const char *name, fl_snow_look *out)
{
  for (int i = 0; i < FL_SNOW_LOOK_COUNT; i++)
    if (name && strcmp(name, names[i]) == 0) {
      *out = (fl_snow_look)i;
      return true;
    }
  return false;
}

const char *fl_snow_look_name(fl_snow_look look)
{
  return (unsigned)look < FL_SNOW_LOOK_COUNT ? names[look] : "?";
}

fl_snow_look fl_snow_look_next(fl_snow_look look)
{
  return (fl_snow_look)(((unsigned)look + 1u) % FL_SNOW_LOOK_COUNT);
}
