// Running another program and capturing what it says: the driver runs the Python exporter of the inductor
// backend this way and, with --isolate, itself once per combination (streaming); the tests run the built
// executables.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fmwork {

struct SubprocessResult {
  int exit_code = -1;  // the exit status; 128 + the signal number when killed by a signal
  std::string out, err;
};

// Runs argv[0] (searched in PATH when it has no '/') with the arguments, no shell, stdin from /dev/null,
// the environment plus `extra_env` entries ("KEY=VALUE", which win over inherited ones), and waits for
// it, capturing stdout and stderr whole. The child leads a process group of its own and outlives nothing:
// a SIGTERM or SIGINT this process gets while it runs is sent on to its group (then this process dies of it
// as it would have), and the child gets SIGTERM when this process dies, even by SIGKILL (a group leader that
// catches it ends its group: tools/aoti_export.py). Throws a runtime Error naming the program when it
// cannot be started (not found, not executable).
SubprocessResult run_subprocess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env = {});

// How a child killed by `signal` is told, on one line: "killed by SIGKILL (signal 9; peak memory 1.2 GiB): the
// kernel's OOM killer is the likely cause (or a kill -9)"; "peak memory unknown" for 0, and no cause for a signal
// without a likely one (SIGTERM: someone asked). What --isolate's FAIL lines and a campaign's failed runs say
// (an exit status of 137 alone said nothing).
std::string killed_by_text(int signal, int64_t peak_rss_bytes = 0);

// A child's peak memory (ChildExit::peak_rss_bytes) for a message: whole MiB under 1 GiB ("200 MiB"), GiB with
// one decimal above ("3.2 GiB"), "unknown" for 0 (wait4 knowing nothing).
std::string peak_memory_text(int64_t bytes);

// How a streamed child ended.
struct ChildExit {
  int exit_code = -1;          // the exit status when it exited, else -1
  int signal = 0;              // the signal that killed it, else 0
  int64_t peak_rss_bytes = 0;  // its peak resident memory (wait4's ru_maxrss), 0 when unknown
};

// What a streamed child's output is handed to, as it comes. A line is handed without its '\n';
// `terminated` is false only for a last piece the child left without one (it died mid-line, or never
// ended its last line). Every member may be empty.
struct StreamHandlers {
  std::function<void(pid_t pid)> started;
  std::function<void(std::string_view line, bool terminated)> out_line, err_line;
  std::function<void()> after_read;  // after each batch of lines: the moment to flush what they were written to
};

// Runs `program` (a path: no PATH search) with `argv` (argv[0] as the child sees it) and the environment
// plus `extra_env`, stdin from /dev/null, and hands its stdout and stderr lines to `handlers` while it runs.
// The child is killed (SIGKILL) when this process dies, so that no benchmark outlives its driver. Returns
// when both streams are closed and the child is reaped. Throws a runtime Error when it cannot be started.
ChildExit run_streaming(const std::string& program, const std::vector<std::string>& argv,
                        const std::vector<std::string>& extra_env, const StreamHandlers& handlers);

// This process's own executable: what the driver starts for --isolate children and campaign runs. A path
// to run, not to record (the kernel's link names whichever process reads it).
inline constexpr const char* kSelfExecutable = "/proc/self/exe";

// The file `program` names, for a record or a child's argv[0]: a symbolic link followed one step
// (kSelfExecutable: the driver's real path); `program` made absolute when it is no link or the link cannot
// be read. Throws nothing.
std::string executable_path(const std::string& program);

}  // namespace fmwork
