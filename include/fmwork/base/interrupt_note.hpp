// A line said when the user stops a long command (Ctrl-C, or SIGTERM from kill or a batch system): what
// `driver run` needs to say how to go on ("resume with: driver run --resume DIR"). The process still ends by
// the signal, as it would have without the note: the shell sees 130 or 143, and a caller's `wait` a signal.
#pragma once

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

}  // namespace fmwork
