// SIGINT and SIGTERM read as a request to stop at the next step (stop_request.hpp).
#include "fmwork/base/stop_request.hpp"

#include <signal.h>

#include <atomic>

#include "fmwork/base/error.hpp"
#include "fmwork/base/termination_signals.hpp"

namespace fmwork {
namespace {

// A lock-free int: the handler stores the signal's number, the loops read it.
std::atomic<int> g_requested{0};
std::atomic<bool> g_alive{false};

// The default action back for both signals: a second one, of either kind, ends the process at once.
void note_signal(int signal) {
  g_requested.store(signal);
  TerminationHandlers::default_both();
}

}  // namespace

struct StopRequest::Saved {
  TerminationHandlers handlers{note_signal};
};

StopRequest::StopRequest() {
  if (g_alive.exchange(true)) throw runtime_error("a stop request is already in place; one at a time");
  g_requested = 0;
  saved_ = std::make_unique<Saved>();
}

StopRequest::~StopRequest() {
  saved_.reset();
  g_alive = false;
}

bool StopRequest::requested() const { return g_requested.load() != 0; }

const char* StopRequest::signal_name() const {
  switch (g_requested.load()) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "";
  }
}

void StopRequest::end_by_signal() const {
  const int signal = g_requested.load();
  if (signal == 0) return;
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  ::sigaction(signal, &action, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(signal);
}

}  // namespace fmwork
