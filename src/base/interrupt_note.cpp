// SIGINT and SIGTERM said in one line before the process ends by them (see interrupt_note.hpp).
#include "fmwork/base/interrupt_note.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "fmwork/base/error.hpp"
#include "fmwork/base/termination_signals.hpp"

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

}  // namespace

struct InterruptNote::Saved {
  explicit Saved(void (*handler)(int)) : handlers(handler) {}
  TerminationHandlers handlers;
};

InterruptNote::InterruptNote(const std::string& line) {
  if (g_note_alive.exchange(true)) throw runtime_error("an interrupt note is already in place; one at a time");
  g_note_text = (::isatty(STDERR_FILENO) ? "\n" : "") + line + "\n";
  saved_ = std::make_unique<Saved>(say_and_die);
}

InterruptNote::~InterruptNote() {
  saved_.reset();
  g_note_alive = false;
}

}  // namespace fmwork
