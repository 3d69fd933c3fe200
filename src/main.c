/* main: flurry, a real-time GPU physics demo in C on Vulkan. See README.md. */
#include "app/app.h"
#include "app/kang.h"
#include "core/env.h"
#include "core/log.h"

#include <stdio.h>

int main(int argc, char **argv)
{
  fl_options options;
  /* Environment variables are checked like options: a bad one is a bad command line. */
  if (!fl_cli_parse(argc, argv, &options) || !fl_env_load()) {
    fl_error_print();
    return 2;
  }
  if (options.experiment && !options.help) return fl_kang_run(&options);
  return fl_app_run(&options);
}
