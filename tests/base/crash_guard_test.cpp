// Tests of the crash guard: a real fault (a store through a null pointer) inside the body is a runtime
// Error naming the signal; the handlers in place before are back afterwards; a plain exception passes.
#include "fmwork/base/crash_guard.hpp"

#include <signal.h>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

volatile int* volatile nowhere = nullptr;  // volatile twice: the compiler may neither drop nor fold the store

struct sigaction current(int signal) {
  struct sigaction now {};
  ::sigaction(signal, nullptr, &now);
  return now;
}

TEST(CrashGuard, AFaultInTheBodyIsAnErrorAndTheOldHandlersAreBack) {
  const struct sigaction before = current(SIGSEGV);
  try {
    run_guarding_crashes([] { *nowhere = 1; }, "p.pt2", "build it again");
    FAIL() << "the body returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_EQ(std::string(e.what()), "p.pt2: crashed (SIGSEGV); build it again");
  }
  EXPECT_TRUE(crash_guard_tripped());
  EXPECT_EQ(current(SIGSEGV).sa_handler, before.sa_handler);
  // A second use works (the guard was released), and what the body throws passes unchanged.
  EXPECT_THROW(run_guarding_crashes([] { throw std::logic_error("x"); }, "p", "a"), std::logic_error);
  int ran = 0;
  run_guarding_crashes([&] { ++ran; }, "p", "a");
  EXPECT_EQ(ran, 1);
}

}  // namespace
}  // namespace fmwork
