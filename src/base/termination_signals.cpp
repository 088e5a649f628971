// SIGINT and SIGTERM handled for a while (termination_signals.hpp).
#include "fmwork/base/termination_signals.hpp"

namespace fmwork {

TerminationHandlers::TerminationHandlers(void (*handler)(int)) {
  for (size_t i = 0; i < 2; ++i) {
    struct sigaction action {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    // SA_RESTART: a write to a slow reader (a pipe) or a sleep goes on after the handler instead of failing
    // with EINTR, so a command that finishes its output after the signal can.
    action.sa_flags = SA_RESETHAND | SA_RESTART;
    if (::sigaction(kTerminationSignals[i], nullptr, &previous_[i]) != 0) continue;
    if (previous_[i].sa_handler == SIG_IGN) continue;  // nohup's choice stands
    installed_[i] = ::sigaction(kTerminationSignals[i], &action, nullptr) == 0;
  }
}

void TerminationHandlers::default_both() {
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  for (const int signal : kTerminationSignals) {
    struct sigaction current {};
    if (::sigaction(signal, nullptr, &current) == 0 && current.sa_handler != SIG_IGN)  // an ignored one stays so
      ::sigaction(signal, &action, nullptr);
  }
}

TerminationHandlers::~TerminationHandlers() {
  for (size_t i = 0; i < 2; ++i)
    if (installed_[i]) ::sigaction(kTerminationSignals[i], &previous_[i], nullptr);
}

}  // namespace fmwork
