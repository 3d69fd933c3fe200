# flurry_warnings: an INTERFACE target carrying the project's warning flags.
add_library(flurry_warnings INTERFACE)
target_compile_options(flurry_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow $<$<COMPILE_LANGUAGE:C>:-Wstrict-prototypes -Wmissing-prototypes>
  -Wno-unused-parameter -Wvla -Wformat=2)
if(FLURRY_WERROR)
  target_compile_options(flurry_warnings INTERFACE -Werror)
endif()
