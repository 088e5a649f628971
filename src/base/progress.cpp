// Progress on stderr (see include/fmwork/base/progress.hpp).
#include "fmwork/base/progress.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>

namespace fmwork {
namespace {

std::atomic<ProgressMode> g_mode{ProgressMode::off};
std::atomic<bool> g_live_shown{false};

// Whole text to stderr, retried on EINTR and short writes; a stderr that is gone loses only the progress.
void write_to_stderr(const std::string& text) {
  std::fflush(stderr);  // what stdio holds for stderr goes first
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

constexpr const char* kClearLine = "\r\033[K";

}  // namespace

void set_progress_mode(ProgressMode mode) { g_mode = mode; }
ProgressMode progress_mode() { return g_mode; }
ProgressMode progress_mode_for(bool quiet) {
  return quiet ? ProgressMode::off : ::isatty(STDERR_FILENO) ? ProgressMode::live : ProgressMode::lines;
}

void progress_line(const std::string& text) {
  const ProgressMode mode = g_mode;
  if (mode == ProgressMode::off) return;
  write_to_stderr((mode == ProgressMode::live && g_live_shown.exchange(false) ? kClearLine : "") + text + "\n");
}

void notice_line(const std::string& text) {
  write_to_stderr((g_mode == ProgressMode::live && g_live_shown.exchange(false) ? kClearLine : "") + text + "\n");
}

void progress_live(const std::string& text) {
  if (g_mode != ProgressMode::live) return;
  g_live_shown = true;
  write_to_stderr(kClearLine + text);
}

void progress_clear() {
  if (g_mode == ProgressMode::live && g_live_shown.exchange(false)) write_to_stderr(kClearLine);
}

std::string duration_text(double seconds) {
  char buf[64];
  if (!(seconds >= 0) || std::isinf(seconds)) return "?";
  if (seconds < 1) {  // 3 significant digits: a rep of 3.71 ms reads as such
    const double ms = seconds * 1000;
    std::snprintf(buf, sizeof buf, ms < 10 ? "%.2f ms" : ms < 100 ? "%.1f ms" : "%.0f ms", ms);
  } else if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%.1f s", seconds);
  } else if (seconds < 3600) {
    const long s = std::lround(seconds);
    std::snprintf(buf, sizeof buf, "%ld min %02ld s", s / 60, s % 60);
  } else {
    const long m = std::lround(seconds / 60);
    std::snprintf(buf, sizeof buf, "%ld h %02ld min", m / 60, m % 60);
  }
  return buf;
}

}  // namespace fmwork
