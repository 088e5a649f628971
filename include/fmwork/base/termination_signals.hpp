// The handling of SIGINT and SIGTERM that a long command puts in place for a while and then gives back: what
// InterruptNote (interrupt_note.hpp) and StopRequest (stop_request.hpp) share.
#pragma once

#include <signal.h>

namespace fmwork {

// SIGINT and SIGTERM, in the order TerminationHandlers keeps them.
inline constexpr int kTerminationSignals[2] = {SIGINT, SIGTERM};

// While alive, `handler` runs for SIGINT and SIGTERM once (SA_RESETHAND: the default action is back for a second
// one; interrupted system calls restart), except where the signal was ignored when it was made (nohup, a shell's `&` without job control): that
// choice stands. The handling before it comes back when it dies.
class TerminationHandlers {
 public:
  explicit TerminationHandlers(void (*handler)(int));
  ~TerminationHandlers();
  TerminationHandlers(const TerminationHandlers&) = delete;
  TerminationHandlers& operator=(const TerminationHandlers&) = delete;

  // For a handler: the default action back for both signals, so that a second one of either kind ends the
  // process (SA_RESETHAND resets only the one delivered). Async-signal-safe.
  static void default_both();

 private:
  struct sigaction previous_[2];
  bool installed_[2] = {false, false};
};

}  // namespace fmwork
