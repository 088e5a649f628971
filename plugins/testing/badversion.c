/* A plugin built against another interface version: the loader must refuse it before reading further. */
#include "fmwork/platform/plugin/plugin_api.h"

static const fmwork_platform_plugin table = {FMWORK_PLUGIN_INTERFACE_VERSION + 100u, sizeof(fmwork_platform_plugin),
                                             "badversion", 0};

FMWORK_PLUGIN_EXPORT const fmwork_platform_plugin* fmwork_platform_plugin_entry(void) { return &table; }
