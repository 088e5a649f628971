// Whether this process got the CPU it asked for over an interval (a combination's timed reps, the GEMM
// probe): two samples of the kernel's counters, taken outside any timed region, and the shares they give.
// A neighbour holding a core gives stable, wrong times (with N OpenMP threads on N cores each parallel region
// waits for the thread that lost its core), which the spread of the reps alone cannot show.
#pragma once

#include <time.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

namespace fmwork {

// A clock's reading in nanoseconds (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, ...): the sweep's timestamps
// and these samples read clocks through it. Inline: it runs inside every timed rep.
inline int64_t clock_ns(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// The counters at one moment; each optional one is nullopt where the kernel does not give it.
struct CpuSample {
  int64_t wall_ns = 0;         // CLOCK_MONOTONIC
  int64_t process_cpu_ns = 0;  // CLOCK_PROCESS_CPUTIME_ID: every thread's user and system time
  // Per thread of this process (/proc/self/task/<tid>/schedstat, its second field): nanoseconds spent
  // runnable but waiting for a CPU. Per thread, not summed, so that a thread started or ended between two
  // samples counts only for what it waited in between.
  std::optional<std::map<int64_t, int64_t>> run_wait_ns;
  std::optional<int64_t> pressure_some_us;   // /proc/pressure/cpu, "some" total: any task waiting for a CPU
  std::optional<int64_t> steal_ticks, all_ticks;  // /proc/stat's cpu line: steal, and every field summed
};

// Reads the counters now. Costs a few file reads (one per thread of the process): call it outside timed regions.
CpuSample sample_cpu();

// The shares of an interval, each a fraction (nullopt where a sample lacks its counter):
struct CpuUse {
  // the process's CPU time over wall x threads: 1 when every thread it asked for ran all the time. Low also
  // for work that does not keep its threads busy (a tiny model, batch 1), so by itself no proof of contention.
  std::optional<double> cpu_share;
  // the time its threads waited on a run queue over wall x threads: the direct measure of CPU it was refused.
  std::optional<double> wait_share;
  // the part of the interval in which some task of the machine waited for a CPU (PSI's "some").
  std::optional<double> pressure;
  // the part of the machine's CPU time its hypervisor gave to other guests (steal, on a VM).
  std::optional<double> steal_share;
  // the threads asked for, and the CPUs the process may run on (sched_getaffinity; 0: unknown): more threads
  // than CPUs wait for each other, which is the run's own doing, not other work's.
  int64_t threads = 0, cpus = 0;
  bool oversubscribed() const { return cpus > 0 && threads > cpus; }
};

// The shares between two samples, for a process that asked for `threads` threads (at least 1 is assumed).
// An interval of no time gives no share.
CpuUse cpu_use(const CpuSample& before, const CpuSample& after, int64_t threads);

// The parts, for tests: the "some" total of a /proc/pressure/cpu text, the steal and all ticks of a /proc/stat
// text's first line, the wait (second field) of a schedstat text.
std::optional<int64_t> pressure_some_total(std::string_view text);
std::optional<std::pair<int64_t, int64_t>> steal_and_all_ticks(std::string_view text);
std::optional<int64_t> schedstat_wait(std::string_view text);

}  // namespace fmwork
