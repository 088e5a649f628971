// The crash guard (see crash_guard.hpp): sigsetjmp before the body, siglongjmp from the handler when the
// fault is the guarded thread's. Jumping out skips whatever the crashed code would have released: the
// Error that follows is the end of that code's use.
#include "fmwork/base/crash_guard.hpp"

#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include <array>
#include <atomic>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

constexpr std::array<int, 3> kCrashSignals = {SIGSEGV, SIGILL, SIGFPE};

thread_local sigjmp_buf* guarded_jump = nullptr;
std::atomic<bool> guard_in_use{false};
std::atomic<bool> guard_tripped{false};
std::array<struct sigaction, 3> saved_crash_actions{};

void on_crash(int signal, siginfo_t* info, void* context) {
  if (guarded_jump != nullptr) siglongjmp(*guarded_jump, signal);  // the guarded thread: back to the guard
  for (size_t i = 0; i < kCrashSignals.size(); ++i) {  // another thread: as without the guard
    if (kCrashSignals[i] != signal) continue;
    const struct sigaction& old = saved_crash_actions[i];
    if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction) return old.sa_sigaction(signal, info, context);
    if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN && old.sa_handler) return old.sa_handler(signal);
  }
  ::signal(signal, SIG_DFL);  // returning re-runs the faulting instruction: the default action ends the process
}

}  // namespace

bool crash_guard_tripped() { return guard_tripped.load(); }

void run_guarding_crashes(const std::function<void()>& body, const std::string& what, const std::string& advice) {
  if (guard_in_use.exchange(true)) throw runtime_error(what + ": a crash guard is already in use");
  struct sigaction action {};
  action.sa_sigaction = on_crash;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < kCrashSignals.size(); ++i) ::sigaction(kCrashSignals[i], &action, &saved_crash_actions[i]);
  const auto restore = [] {
    guarded_jump = nullptr;
    for (size_t i = 0; i < kCrashSignals.size(); ++i) ::sigaction(kCrashSignals[i], &saved_crash_actions[i], nullptr);
    guard_in_use.store(false);
  };
  sigjmp_buf jump;
  const int crashed = sigsetjmp(jump, /*savemask=*/1);
  if (crashed != 0) {
    guard_tripped.store(true);
    restore();
    throw runtime_error(what + ": crashed (SIG" + sigabbrev_np(crashed) + "); " + advice);
  }
  guarded_jump = &jump;
  try {
    body();
  } catch (...) {
    restore();
    throw;
  }
  restore();
}

}  // namespace fmwork
