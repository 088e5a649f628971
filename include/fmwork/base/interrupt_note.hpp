// A line said when the user stops a long command (Ctrl-C, or SIGTERM from kill or a batch system): what
// `driver run` needs to say how to go on ("resume with: driver run --resume DIR"). The process still ends by
// the signal, as it would have without the note: the shell sees 130 or 143, and a caller's `wait` a signal.
// And InterruptWatch, for a loop that says in its own output where it stopped before it ends so.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

namespace fmwork {

// While alive, a SIGINT or SIGTERM writes `line` and a newline to stderr (with one newline before it when
// stderr is a terminal, past the "^C" it echoes), then ends the process by that signal. A signal that was
// ignored when the note was made (nohup, a shell's `&` without job control) stays ignored. One note at a
// time: a second one alive at once is refused with a runtime Error. The previous handling comes back when
// it dies.
class InterruptNote {
 public:
  explicit InterruptNote(const std::string& line);
  ~InterruptNote();
  InterruptNote(const InterruptNote&) = delete;
  InterruptNote& operator=(const InterruptNote&) = delete;

 private:
  struct Saved;
  std::unique_ptr<Saved> saved_;
};

// What InterruptWatch::throw_if_interrupted throws: the signal seen. No std::exception, so that no handler
// that makes a failure of what it catches (a FAIL line) takes it.
struct Interrupted {
  int signal = 0;
};

// While alive, a first SIGINT or SIGTERM is noted, not obeyed at once: `line` (and a newline; one before it
// on a terminal) goes to stderr, a child process doing the work (forward_to) gets the signal too, and the
// process goes on to its next safe point (throw_if_interrupted), where it says what it stopped and ends by the
// signal (end_by_signal): the shell sees 130 or 143 as before. A second signal ends it at once. A signal that
// was ignored when the watch was made (nohup) stays ignored. One watch or note at a time: a second one alive at
// once is refused with a runtime Error. The previous handling comes back when it dies.
class InterruptWatch {
 public:
  explicit InterruptWatch(const std::string& line);
  ~InterruptWatch();
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

  // The signal seen, 0 while none (or no watch is alive).
  static int seen();
  // The first signal any watch of this process saw, kept after the watch is gone (0: none): for main's last
  // word, when the log's reader went with the same Ctrl-C (`driver | tee`: the signal reaches both) and the
  // write that would have said where the run stopped failed.
  static int seen_in_process();
  // Throws Interrupted{seen()} once a signal has been seen; nothing before.
  static void throw_if_interrupted();
  // The process that does the work now, to be sent the signal seen (0: none).
  static void forward_to(pid_t pid);
  // "SIGINT", "SIGTERM", else "signal N".
  static std::string signal_name(int signal);
  // Ends this process by `signal`, its default action put back first.
  [[noreturn]] static void end_by_signal(int signal);

 private:
  struct Saved;
  std::unique_ptr<Saved> saved_;
};

}  // namespace fmwork
