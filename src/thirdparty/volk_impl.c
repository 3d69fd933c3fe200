/* thirdparty/volk_impl.c: compiles Debian's volk.c (the Vulkan meta-loader) into the program. */
#include <volk.c>
