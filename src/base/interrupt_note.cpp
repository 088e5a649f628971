// SIGINT and SIGTERM said in one line before the process ends by them (see interrupt_note.hpp).
#include "fmwork/base/interrupt_note.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

// The text the handler writes: set before the handlers are installed, left alone while they are, so the
// handler reads it without a lock (write() is async-signal-safe; nothing else it calls allocates).
std::string g_note_text;
std::atomic<bool> g_note_alive{false};

// The note's text to stderr, from a handler: write() only, errno as it was.
void write_note() {
  const int saved_errno = errno;
  const char* p = g_note_text.data();
  size_t left = g_note_text.size();
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<size_t>(n);
  }
  errno = saved_errno;
}

void say_and_die(int signal) {
  write_note();
  // SA_RESETHAND put the default action back; the signal, blocked while this runs, is delivered on return.
  ::raise(signal);
}

constexpr int kSignals[] = {SIGINT, SIGTERM};

// The watch's state, read and written by its handler: lock-free atomics only.
std::atomic<int> g_seen{0};
std::atomic<int> g_seen_in_process{0};
std::atomic<pid_t> g_forward{0};

void note_and_go_on(int signal) {
  const pid_t child = g_forward.load();
  if (child > 0) ::kill(child, signal);
  int none = 0;
  int first = 0;
  g_seen_in_process.compare_exchange_strong(first, signal);
  if (!g_seen.compare_exchange_strong(none, signal)) {  // the second: at once, as without the watch
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    ::sigaction(signal, &fallback, nullptr);
    ::raise(signal);  // blocked while this runs: delivered on return
    return;
  }
  write_note();
}

}  // namespace

// SIGINT and SIGTERM taken by a note or a watch: what was there before, put back when it dies. One at a time.
// In a named namespace: the public classes' Saved derive from it, and a base from the anonymous one would give
// them internal linkage (GCC's -Wsubobject-linkage).
namespace interrupt_detail {
struct Held {
  struct sigaction previous[2];
  bool installed[2] = {false, false};

  // `handler` for both where they are not ignored, `line` its text.
  void take(const std::string& line, void (*handler)(int), int flags) {
    if (g_note_alive.exchange(true)) throw runtime_error("an interrupt note is already in place; one at a time");
    g_note_text = (::isatty(STDERR_FILENO) ? "\n" : "") + line + "\n";
    for (size_t i = 0; i < 2; ++i) {
      struct sigaction action {};
      action.sa_handler = handler;
      sigemptyset(&action.sa_mask);
      action.sa_flags = flags;
      if (::sigaction(kSignals[i], nullptr, &previous[i]) != 0) continue;
      if (previous[i].sa_handler == SIG_IGN) continue;  // nohup's choice stands
      installed[i] = ::sigaction(kSignals[i], &action, nullptr) == 0;
    }
  }
  void give_back() {
    for (size_t i = 0; i < 2; ++i)
      if (installed[i]) ::sigaction(kSignals[i], &previous[i], nullptr);
    g_note_alive = false;
  }
};
}  // namespace interrupt_detail

struct InterruptNote::Saved : interrupt_detail::Held {};

InterruptNote::InterruptNote(const std::string& line) : saved_(std::make_unique<Saved>()) {
  saved_->take(line, say_and_die, SA_RESETHAND);
}

InterruptNote::~InterruptNote() { saved_->give_back(); }

struct InterruptWatch::Saved : interrupt_detail::Held {};

InterruptWatch::InterruptWatch(const std::string& line) : saved_(std::make_unique<Saved>()) {
  g_seen = 0;
  g_forward = 0;
  saved_->take(line, note_and_go_on, SA_RESTART);  // SA_RESTART: no EINTR for the log's writes
}

InterruptWatch::~InterruptWatch() {
  saved_->give_back();
  g_forward = 0;
  g_seen = 0;
}

int InterruptWatch::seen() { return g_seen.load(); }

int InterruptWatch::seen_in_process() { return g_seen_in_process.load(); }

void InterruptWatch::throw_if_interrupted() {
  if (const int signal = g_seen.load()) throw Interrupted{signal};
}

void InterruptWatch::forward_to(pid_t pid) { g_forward = pid; }

std::string InterruptWatch::signal_name(int signal) {
  return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal " + std::to_string(signal);
}

void InterruptWatch::end_by_signal(int signal) {
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(signal, &fallback, nullptr);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal);
  ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
  ::raise(signal);
  std::_Exit(128 + signal);  // a signal that does not end a process by default: the shell's number all the same
}

}  // namespace fmwork
