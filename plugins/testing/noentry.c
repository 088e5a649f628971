/* A shared library named like a platform plugin that exports no entry point: the loader must refuse it. */
#include "fmwork/platform/plugin/plugin_api.h"

FMWORK_PLUGIN_EXPORT int fmwork_platform_not_the_entry(void) { return 42; }
