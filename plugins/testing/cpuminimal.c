/* The smallest working plugin, in C and without LibTorch: tensors stay on the CPU (as with torch_sendnn),
 * synchronize only counts, and the one option `note` ends up in the description. The tests use it to check
 * the host's side of the interface for a "cpu" device and for a plugin without optional functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmwork/platform/plugin/plugin_api.h"

typedef struct instance {
  char description[256];
  unsigned long syncs;
} instance;

static fmwork_status create(const fmwork_option* options, size_t count, void** out, fmwork_message* error) {
  const char* note = "none";
  size_t i;
  for (i = 0; i < count; ++i) {
    if (strcmp(options[i].key, "note") == 0) {
      note = options[i].value;
    } else {
      char text[256];
      snprintf(text, sizeof text, "--platform:%s is not a cpuminimal option; it accepts --platform:note TEXT",
               options[i].key);
      error->set(error, text);
      return FMWORK_USAGE_ERROR;
    }
  }
  instance* self = (instance*)calloc(1, sizeof(instance));
  if (!self) {
    error->set(error, "out of memory");
    return FMWORK_RUNTIME_ERROR;
  }
  snprintf(self->description, sizeof self->description, "cpuminimal (note: %s)", note);
  *out = self;
  return FMWORK_OK;
}

static void destroy(void* self) { free(self); }

static fmwork_status device(void* self, fmwork_device* device, fmwork_message* error) {
  device->type = "cpu";
  device->index = -1;
  return FMWORK_OK;
}

static fmwork_status synchronize(void* self, fmwork_message* error) {
  ((instance*)self)->syncs++;
  return FMWORK_OK;
}

static const char* description(void* self) { return ((instance*)self)->description; }

static const fmwork_platform_plugin table = {
    FMWORK_PLUGIN_INTERFACE_VERSION, sizeof(fmwork_platform_plugin), "cpuminimal", NULL, create, destroy,
    device, synchronize, description,
    /* reset_memory_peaks, memory_peaks, constraints, compile_backends, compile: not provided */
};

FMWORK_PLUGIN_EXPORT const fmwork_platform_plugin* fmwork_platform_plugin_entry(void) { return &table; }
