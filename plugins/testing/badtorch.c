/* A plugin that says it was built with another LibTorch: the loader must refuse it. */
#include "fmwork/platform/plugin/plugin_api.h"

static fmwork_status create(const fmwork_option* options, size_t count, void** instance, fmwork_message* error) {
  *instance = 0;
  return FMWORK_OK;
}
static fmwork_status device(void* instance, fmwork_device* device, fmwork_message* error) {
  device->type = "cpu";
  device->index = -1;
  return FMWORK_OK;
}
static fmwork_status synchronize(void* instance, fmwork_message* error) { return FMWORK_OK; }

static const fmwork_platform_plugin table = {
    FMWORK_PLUGIN_INTERFACE_VERSION, sizeof(fmwork_platform_plugin), "badtorch", "0.4.1", create, 0, device,
    synchronize};

FMWORK_PLUGIN_EXPORT const fmwork_platform_plugin* fmwork_platform_plugin_entry(void) { return &table; }
