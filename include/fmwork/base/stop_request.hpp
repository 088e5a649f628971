// A stop the user asked for (Ctrl-C, or SIGTERM from kill or a batch system) that a long command finishes
// its output after instead of dying mid-line: `driver serve`'s capacity search writes the bracket it found so
// far (CAPACITY result=partial) before the process ends. Unlike InterruptNote (interrupt_note.hpp), which
// ends the process in the handler, this one only sets a flag that the command's loops read between their
// steps; the command then ends by the same signal (end_by_signal), so the shell still sees 130 or 143.
#pragma once

#include <memory>

namespace fmwork {

// While alive, the first SIGINT or SIGTERM sets a flag instead of ending the process; a second one ends it at
// once by the default action (the user who presses Ctrl-C twice means it). A signal that was ignored when it
// was made (nohup, a shell's `&` without job control) stays ignored. One at a time: a second one alive at once
// is refused with a runtime Error; the previous handling comes back when it dies.
class StopRequest {
 public:
  StopRequest();
  ~StopRequest();
  StopRequest(const StopRequest&) = delete;
  StopRequest& operator=(const StopRequest&) = delete;

  // Whether a stop was asked for since it was made (async-signal-safe to set, cheap to read: a loop reads it
  // between batches).
  bool requested() const;
  // "SIGINT" or "SIGTERM" once requested; "" before.
  const char* signal_name() const;
  // Ends the process by the signal that was asked for, with its default action (exit status 128 + N to the
  // shell). Does nothing when none was.
  void end_by_signal() const;

 private:
  struct Saved;
  std::unique_ptr<Saved> saved_;
};

}  // namespace fmwork
