// A last line of defence around code from a file the user named that may crash the process: an
// AOTInductor package's shared object runs its own code as LibTorch loads it. A crash there (SIGSEGV,
// SIGILL, SIGFPE on the calling thread) killed the driver with no line; under the guard it becomes a
// runtime Error. The process goes on after it only to say so and end: what the crashed code held (memory,
// locks) is abandoned, so the caller must not run that code again.
#pragma once

#include <functional>
#include <string>

namespace fmwork {

// Runs `body` on this thread. When it raises SIGSEGV, SIGILL or SIGFPE on this thread, stops it there and
// throws a runtime Error "<what>: crashed (<signal name>); <advice>". Signals on other threads, and these
// signals outside `body`, keep their previous handling (restored on return). Not reentrant: a body that
// calls run_guarding_crashes again is refused with a runtime Error.
void run_guarding_crashes(const std::function<void()>& body, const std::string& what, const std::string& advice);

// Whether a guarded body crashed in this process: then exit with _Exit once the error is told, since
// destructors and exit handlers could wait for a lock the crashed code held.
bool crash_guard_tripped();

}  // namespace fmwork
