/* A plugin whose table lacks the required functions: the loader must refuse it. */
#include "fmwork/platform/plugin/plugin_api.h"

static const fmwork_platform_plugin table = {FMWORK_PLUGIN_INTERFACE_VERSION, sizeof(fmwork_platform_plugin),
                                             "incomplete", 0};

FMWORK_PLUGIN_EXPORT const fmwork_platform_plugin* fmwork_platform_plugin_entry(void) { return &table; }
