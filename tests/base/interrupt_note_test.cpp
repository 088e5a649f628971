// Tests of base/interrupt_note's InterruptWatch, each in a process of its own (gtest's death tests): a first
// SIGINT or SIGTERM is noted and said, a second ends the process at once, the signal reaches the child doing the
// work, and end_by_signal ends the process as the signal would have.
#include "fmwork/base/interrupt_note.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

// What a watched loop does, step by step; a step that goes wrong exits with its own status.
void noted_then_ended_at_once() {
  InterruptWatch watch("stopping at the next rep");
  int ready[2];
  if (::pipe(ready) != 0) std::_Exit(2);
  const pid_t child = ::fork();
  if (child == 0) {  // a worker as an exec'd child is: the default action for SIGINT
    ::signal(SIGINT, SIG_DFL);
    ::close(ready[0]);
    ::close(ready[1]);  // the parent's read ends: it is ready
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char byte = 0;
  while (::read(ready[0], &byte, 1) < 0) {
  }
  InterruptWatch::forward_to(child);
  ::raise(SIGINT);
  if (InterruptWatch::seen() != SIGINT) std::_Exit(3);
  try {
    InterruptWatch::throw_if_interrupted();
    std::_Exit(4);
  } catch (const Interrupted& stop) {
    if (stop.signal != SIGINT) std::_Exit(5);
  }
  int status = 0;
  if (::waitpid(child, &status, 0) != child || !WIFSIGNALED(status) || WTERMSIG(status) != SIGINT) std::_Exit(6);
  ::raise(SIGTERM);  // the second: at once, as without the watch
  std::_Exit(7);
}

TEST(InterruptWatch, AFirstSignalIsNotedAndPassedOnASecondEndsAtOnce) {
  EXPECT_EXIT(noted_then_ended_at_once(), ::testing::KilledBySignal(SIGTERM), "stopping at the next rep");
}

TEST(InterruptWatch, EndBySignalEndsAsTheSignalWould) {
  EXPECT_EXIT(
      {
        InterruptWatch watch("x");
        ::raise(SIGTERM);
        InterruptWatch::end_by_signal(InterruptWatch::seen());
      },
      ::testing::KilledBySignal(SIGTERM), "");
}

TEST(InterruptWatch, NothingSeenNothingThrownAndOneAtATime) {
  {
    InterruptWatch watch("x");
    EXPECT_EQ(InterruptWatch::seen(), 0);
    EXPECT_NO_THROW(InterruptWatch::throw_if_interrupted());
    EXPECT_THROW(InterruptNote("y"), Error);
  }
  EXPECT_EQ(InterruptWatch::seen(), 0);
  EXPECT_NO_THROW(InterruptNote("y")) << "the watch gone, a note may be made";
  EXPECT_EQ(InterruptWatch::signal_name(SIGINT), "SIGINT");
  EXPECT_EQ(InterruptWatch::signal_name(SIGTERM), "SIGTERM");
}

}  // namespace
}  // namespace fmwork
