/* sim/common/grid_pins: pins on a particle grid (see grid_pins.h). */
#include "sim/common/grid_pins.h"

#include "core/log.h"

/* Resolves a pin coordinate: -1 is the last (n - 1). */
static int64_t pin_coord(int32_t v, uint32_t n) { return v == -1 ? (int64_t)n - 1 : (int64_t)v; }

bool fl_grid_pins_apply(const fl_cloth_pin *pins, uint32_t count, uint32_t nx, uint32_t ny, const char *what,
                        const char *name, fl_pin_visit visit, void *context)
{
  if (count > FL_CLOTH_MAX_PINS)
    return fl_error_set("%s \"%s\": %u pins, at most %d", what, name, (unsigned)count, FL_CLOTH_MAX_PINS);
  for (uint32_t p = 0; p < count; p++) {
    const fl_cloth_pin *pin = &pins[p];
    int64_t a, b = 0;
    bool ok;
    switch (pin->kind) {
    case FL_PIN_PARTICLE:
      a = pin_coord(pin->a, nx), b = pin_coord(pin->b, ny);
      ok = a >= 0 && a < nx && b >= 0 && b < ny;
      break;
    case FL_PIN_ROW: a = pin_coord(pin->a, ny), ok = a >= 0 && a < ny; break;
    case FL_PIN_COLUMN: a = pin_coord(pin->a, nx), ok = a >= 0 && a < nx; break;
    case FL_PIN_INDEX: a = pin->a, ok = a >= 0 && a < (int64_t)nx * ny; break;
    default: return fl_error_set("%s \"%s\": pin %u has an unknown kind", what, name, (unsigned)p);
    }
    if (!ok)
      return fl_error_set("%s \"%s\": pin %u (%d, %d) is outside the %ux%u grid", what, name, (unsigned)p,
                          (int)pin->a, (int)pin->b, (unsigned)nx, (unsigned)ny);
    if (!visit) continue;
    switch (pin->kind) {
    case FL_PIN_PARTICLE: visit(context, (uint32_t)(b * nx + a)); break;
    case FL_PIN_ROW:
      for (uint32_t i = 0; i < nx; i++) visit(context, (uint32_t)a * nx + i);
      break;
    case FL_PIN_COLUMN:
      for (uint32_t j = 0; j < ny; j++) visit(context, j * nx + (uint32_t)a);
      break;
    case FL_PIN_INDEX: visit(context, (uint32_t)a); break;
    }
  }
  return true;
}
