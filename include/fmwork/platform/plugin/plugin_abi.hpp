// The host's side of the plugin C interface (plugin_api.h), shared by the loader, the platform and the
// compiled model: the message buffer a plugin writes its errors into, the Error a status becomes, and the
// plugin instance whose lifetime the platform and its compiled models share.
#pragma once

#include <string>

#include "fmwork/base/error.hpp"
#include "fmwork/platform/plugin/plugin_api.h"

namespace fmwork {

// The host side of fmwork_message: keeps what the plugin set. Not copyable (the plugin gets &message).
class MessageBuffer {
 public:
  MessageBuffer();
  MessageBuffer(const MessageBuffer&) = delete;
  MessageBuffer& operator=(const MessageBuffer&) = delete;

  fmwork_message message{};
  std::string text;

  // What the plugin said (one line), or `fallback` when it said nothing.
  std::string or_default(const std::string& fallback) const;
};

// The Error for a failed call: usage for FMWORK_USAGE_ERROR, runtime otherwise; `prefix` + the message.
Error status_error(fmwork_status status, const std::string& prefix, const MessageBuffer& buffer);

// The instance a plugin created; destroyed when the platform and every model compiled by it are gone.
struct PluginInstance {
  std::string name;
  std::string path;
  const fmwork_platform_plugin* table = nullptr;
  void* handle = nullptr;

  PluginInstance() = default;
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;
  ~PluginInstance() {
    if (table && table->destroy) table->destroy(handle);
  }
};

}  // namespace fmwork
