// The host's side of the plugin C interface (see plugin_abi.hpp).
#include "fmwork/platform/plugin/plugin_abi.hpp"

namespace fmwork {
namespace {

void set_message(fmwork_message* self, const char* text) {
  if (self && self->host) static_cast<MessageBuffer*>(self->host)->text = text ? text : "";
}

}  // namespace

MessageBuffer::MessageBuffer() {
  message.host = this;
  message.set = &set_message;
}

std::string MessageBuffer::or_default(const std::string& fallback) const {
  return text.empty() ? fallback : one_line(text);
}

Error status_error(fmwork_status status, const std::string& prefix, const MessageBuffer& buffer) {
  std::string message = prefix + buffer.or_default("the plugin failed without saying why");
  return status == FMWORK_USAGE_ERROR ? usage_error(message) : runtime_error(message);
}

}  // namespace fmwork
