// base/progress: what reaches stderr in each mode, captured from the real descriptor, and durations as text.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "fmwork/base/progress.hpp"
#include "support/temp_dir.hpp"

namespace {

using fmwork::ProgressMode;

// What the body writes to file descriptor 2.
template <class F>
std::string stderr_of(F&& body) {
  fmwork::TempDir dir;
  const std::string path = dir.file("err");
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  dup2(fd, STDERR_FILENO);
  close(fd);
  body();
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  std::string text;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
    std::fclose(f);
  }
  return text;
}

class Progress : public ::testing::Test {
 protected:
  ~Progress() override { fmwork::set_progress_mode(ProgressMode::off); }
};

// A step, a live line, a clear and a second step, in `mode`.
std::string steps_in(ProgressMode mode) {
  fmwork::set_progress_mode(mode);
  return stderr_of([] {
    fmwork::progress_line("combination 1 of 2");
    fmwork::progress_live("rep 1 of 5");
    fmwork::progress_clear();
    fmwork::progress_line("combination 2 of 2");
  });
}

TEST_F(Progress, OffWritesNothing) { EXPECT_EQ(steps_in(ProgressMode::off), ""); }

TEST_F(Progress, LinesModeWritesStepsOnlyNeverALiveLine) {
  EXPECT_EQ(steps_in(ProgressMode::lines), "combination 1 of 2\ncombination 2 of 2\n");
}

TEST_F(Progress, LiveModeRewritesOneLineAndClearsItBeforeASteps) {
  fmwork::set_progress_mode(ProgressMode::live);
  EXPECT_EQ(stderr_of([] {
              fmwork::progress_line("combination 1 of 2");
              fmwork::progress_live("rep 1 of 5");
              fmwork::progress_live("rep 2 of 5");
              fmwork::progress_line("combination 2 of 2");
              fmwork::progress_live("rep 1 of 5");
              fmwork::progress_clear();
              fmwork::progress_clear();  // nothing shown: nothing to clear
            }),
            "combination 1 of 2\n\r\033[Krep 1 of 5\r\033[Krep 2 of 5\r\033[Kcombination 2 of 2\n\r\033[Krep 1 of 5"
            "\r\033[K");
}

TEST(ProgressDuration, ReadsAtEachScale) {
  EXPECT_EQ(fmwork::duration_text(0.003712), "3.71 ms");
  EXPECT_EQ(fmwork::duration_text(0.0123), "12.3 ms");
  EXPECT_EQ(fmwork::duration_text(0.4567), "457 ms");
  EXPECT_EQ(fmwork::duration_text(12.44), "12.4 s");
  EXPECT_EQ(fmwork::duration_text(185), "3 min 05 s");
  EXPECT_EQ(fmwork::duration_text(3720), "1 h 02 min");
  EXPECT_EQ(fmwork::duration_text(-1), "?");
}

}  // namespace
