// Tests of the crash guard: a real fault (a store into a page mapped with no access) inside the body is a runtime
// Error naming the signal; the handlers in place before are back afterwards; a plain exception passes.
#include "fmwork/base/crash_guard.hpp"

#include <signal.h>
#include <sys/mman.h>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

// A page that faults on any access. Not a null pointer: UBSan reports a store through null before it faults.
volatile int* forbidden_page() {
  void* page = ::mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return page == MAP_FAILED ? nullptr : static_cast<volatile int*>(page);
}

struct sigaction current(int signal) {
  struct sigaction now {};
  ::sigaction(signal, nullptr, &now);
  return now;
}

TEST(CrashGuard, AFaultInTheBodyIsAnErrorAndTheOldHandlersAreBack) {
  const struct sigaction before = current(SIGSEGV);
  volatile int* const nowhere = forbidden_page();
  ASSERT_NE(nowhere, nullptr) << "mmap of one PROT_NONE page failed";
  try {
    run_guarding_crashes([&] { *nowhere = 1; }, "p.pt2", "build it again");
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
  ::munmap(const_cast<int*>(nowhere), 4096);
}

}  // namespace
}  // namespace fmwork
