// Progress for the person watching a run: on stderr, never on stdout (stdout is the log). One process-wide
// setting, made once by the executable (driver: --quiet, and whether stderr is a terminal); the sweep, the
// loaders and the compile backends report through it without knowing where it goes.
#pragma once

#include <string>

namespace fmwork {

enum class ProgressMode {
  off,    // nothing (--quiet; the default until an executable chooses)
  lines,  // stderr is no terminal (a log file, a CI job): one line per step, never a rewritten one
  live,   // stderr is a terminal: steps as lines, and one live line rewritten in place between them
};

void set_progress_mode(ProgressMode mode);
ProgressMode progress_mode();
// The mode a command takes: off when `quiet` (--quiet, or an --isolate child), live on a terminal's stderr,
// lines otherwise.
ProgressMode progress_mode_for(bool quiet);

// A step, one line: "combination 3 of 8: input 128, batch 4", "building the AOTInductor package for 8x128 ...".
// In live mode the live line is cleared first. Written with one write() so that lines of processes that
// share stderr (--isolate's children) do not interleave. Nothing in off mode.
void progress_line(const std::string& text);

// A notice the person must see even with --quiet, one line on stderr in every mode: what a command is about to
// spend much longer on than asked ("this level ... schedules 6000 queries over 10 min 00 s"). Not for progress.
void notice_line(const std::string& text);

// The live line, rewritten in place ("\r" + text + erase to the end of the line), in live mode only: for
// what changes many times a second (rep i of N). The caller limits how often it calls (the sweep: at most
// every 100 ms).
void progress_live(const std::string& text);

// Ends the live line (clears it) so that what follows on the terminal starts at a fresh line.
void progress_clear();

// A duration for progress text: "3.71 ms", "12.3 ms", "850 ms", "12.4 s", "3 min 05 s", "1 h 02 min"; "?" for a
// negative or infinite one.
std::string duration_text(double seconds);

}  // namespace fmwork
