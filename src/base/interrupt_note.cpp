// SIGINT and SIGTERM said in one line before the process ends by them (see interrupt_note.hpp).
#include "fmwork/base/interrupt_note.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

// The text the handler writes: set before the handlers are installed, left alone while they are, so the
// handler reads it without a lock (write() is async-signal-safe; nothing else it calls allocates).
std::string g_note_text;
std::atomic<bool> g_note_alive{false};

void say_and_die(int signal) {
  const char* p = g_note_text.data();
  size_t left = g_note_text.size();
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<size_t>(n);
  }
  // SA_RESETHAND put the default action back; the signal, blocked while this runs, is delivered on return.
  ::raise(signal);
}

constexpr int kSignals[] = {SIGINT, SIGTERM};

}  // namespace

struct InterruptNote::Saved {
  struct sigaction previous[2];
  bool installed[2] = {false, false};
};

InterruptNote::InterruptNote(const std::string& line) : saved_(std::make_unique<Saved>()) {
  if (g_note_alive.exchange(true)) throw runtime_error("an interrupt note is already in place; one at a time");
  g_note_text = (::isatty(STDERR_FILENO) ? "\n" : "") + line + "\n";
  for (size_t i = 0; i < 2; ++i) {
    struct sigaction action {};
    action.sa_handler = say_and_die;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    if (::sigaction(kSignals[i], nullptr, &saved_->previous[i]) != 0) continue;
    if (saved_->previous[i].sa_handler == SIG_IGN) continue;  // nohup's choice stands
    saved_->installed[i] = ::sigaction(kSignals[i], &action, nullptr) == 0;
  }
}

InterruptNote::~InterruptNote() {
  for (size_t i = 0; i < 2; ++i)
    if (saved_->installed[i]) ::sigaction(kSignals[i], &saved_->previous[i], nullptr);
  g_note_alive = false;
}

}  // namespace fmwork
