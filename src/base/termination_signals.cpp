// SIGINT and SIGTERM handled for a while (termination_signals.hpp).
#include "fmwork/base/termination_signals.hpp"

namespace fmwork {

TerminationHandlers::TerminationHandlers(void (*handler)(int)) {
  for (size_t i = 0; i < 2; ++i) {
    struct sigaction action {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    if (::sigaction(kTerminationSignals[i], nullptr, &previous_[i]) != 0) continue;
    if (previous_[i].sa_handler == SIG_IGN) continue;  // nohup's choice stands
    installed_[i] = ::sigaction(kTerminationSignals[i], &action, nullptr) == 0;
  }
}

TerminationHandlers::~TerminationHandlers() {
  for (size_t i = 0; i < 2; ++i)
    if (installed_[i]) ::sigaction(kTerminationSignals[i], &previous_[i], nullptr);
}

}  // namespace fmwork
