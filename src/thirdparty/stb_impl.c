/* thirdparty/stb_impl.c: the implementations of the stb single-file libraries we use. */
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
