// Running another program (see subprocess.hpp): two pipes drained together, so that a child writing much
// to stderr cannot block on a full pipe while we wait on stdout. Both fork and exec, because only a forked
// child can ask to die with its parent (prctl) or lead a process group of its own before it runs.
#include "fmwork/base/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <cstring>

#include "fmwork/base/error.hpp"
#include "fmwork/base/text_format.hpp"

extern char** environ;

namespace fmwork {
namespace {

// The inherited environment with `extra` entries replacing those of the same name.
std::vector<std::string> environment_with(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (const auto& x : extra) replaced = replaced || x.compare(0, name.size(), name) == 0;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

std::string signal_name(int signal) {
  const char* abbreviation = sigabbrev_np(signal);
  return abbreviation ? std::string("SIG") + abbreviation : "signal " + std::to_string(signal);
}

// Why a process dies of `signal`, where one cause is likely; nullptr otherwise.
const char* likely_cause(int signal) {
  switch (signal) {
    case SIGKILL: return "the kernel's OOM killer is the likely cause (or a kill -9)";
    case SIGSEGV:
    case SIGBUS: return "a crash in native code (the model's operators, LibTorch or a plugin)";
    case SIGABRT: return "an abort in native code (a failed assertion or an uncaught C++ exception)";
    case SIGFPE: return "an arithmetic fault in native code";
    case SIGILL: return "an instruction this CPU lacks, or a crash in native code";
    default: return nullptr;
  }
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The child's stdout and stderr pipes ([0] read, [1] write), close-on-exec on both ends.
struct Pipes {
  int out[2] = {-1, -1}, err[2] = {-1, -1};
};

Pipes open_pipes(const std::string& program) {
  Pipes p;
  if (pipe2(p.out, O_CLOEXEC) != 0) throw runtime_error("cannot run " + program + ": pipe: " + std::strerror(errno));
  if (pipe2(p.err, O_CLOEXEC) != 0) {
    const int e = errno;
    close(p.out[0]);
    close(p.out[1]);
    throw runtime_error("cannot run " + program + ": pipe: " + std::strerror(e));
  }
  return p;
}

// Reads both pipes until both are closed, handing each chunk read to `sink` (0: stdout, 1: stderr) and
// calling `after_read` after each poll round; closes the read ends, whatever happens.
using ChunkSink = std::function<void(int stream, const char* data, size_t size)>;
void drain(int out_fd, int err_fd, const ChunkSink& sink, const std::function<void()>& after_read = {}) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  struct Closer {  // also when a sink throws
    pollfd* fds;
    ~Closer() {
      for (int i = 0; i < 2; ++i)
        if (fds[i].fd >= 0) close(fds[i].fd);
    }
  } closer{fds};
  int open_fds = 2;
  char buffer[65536];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        sink(i, buffer, static_cast<size_t>(n));
      }
    }
    if (after_read) after_read();
  }
}

// Cuts a stream into lines for a handler; what is left without a '\n' waits for the next chunk or finish().
class LineSplitter {
 public:
  using Handler = std::function<void(std::string_view line, bool terminated)>;
  explicit LineSplitter(const Handler& handler) : handler_(handler) {}
  void feed(const char* data, size_t size) {
    pending_.append(data, size);
    size_t start = 0;
    for (size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1)
      if (handler_) handler_(std::string_view(pending_).substr(start, nl - start), true);
    pending_.erase(0, start);
  }
  void finish() {
    if (!pending_.empty() && handler_) handler_(pending_, false);
    pending_.clear();
  }

 private:
  const Handler& handler_;
  std::string pending_;
};

// In the forked child: only async-signal-safe calls until execve. An exec failure's errno goes to the
// parent through `status_fd` (closed by a successful exec).
// With `own_group`, the child leads a process group of its own, so that what it starts in turn (the
// exporter's compilers) can be signalled with it, and asks for SIGTERM rather than SIGKILL when we die: a
// group leader that catches it (tools/aoti_export.py) ends its whole group.
[[noreturn]] void exec_child(const char* program, char* const* argv, char* const* envp, const Pipes& p, int null_fd,
                             int status_fd, pid_t parent, bool own_group) {
  if (own_group) setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, own_group ? SIGTERM : SIGKILL);
  if (getppid() != parent) _exit(127);  // the parent died before prctl: nobody reads us
  if (dup2(null_fd, 0) < 0 || dup2(p.out[1], 1) < 0 || dup2(p.err[1], 2) < 0) _exit(127);
  execve(program, argv, envp);
  const int e = errno;
  ssize_t ignored = write(status_fd, &e, sizeof e);
  (void)ignored;
  _exit(127);
}

// Forks and execs; returns the child's pid once it runs `program`, or throws why it could not.
pid_t start_child(const std::string& program, char* const* argv, char* const* envp, const Pipes& p,
                  bool own_group = false) {
  int status[2];
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0 || pipe2(status, O_CLOEXEC) != 0) {
    const int e = errno;
    if (null_fd >= 0) close(null_fd);
    throw runtime_error("cannot run " + program + ": " + std::strerror(e));
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) exec_child(program.c_str(), argv, envp, p, null_fd, status[1], parent, own_group);
  if (pid > 0 && own_group) setpgid(pid, pid);  // also here: a signal may come before the child's own call
  const int fork_errno = errno;
  close(null_fd);
  close(status[1]);
  int exec_errno = 0;
  ssize_t got = 0;
  if (pid > 0)
    while ((got = read(status[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
    }
  close(status[0]);
  if (pid < 0) throw runtime_error("cannot run " + program + ": fork: " + std::strerror(fork_errno));
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    throw runtime_error("cannot run " + program + ": " + std::strerror(exec_errno));
  }
  return pid;
}

ChildExit reap(pid_t pid) {
  int status = 0;
  rusage usage{};
  while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  ChildExit exit;
  if (WIFEXITED(status)) exit.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) exit.signal = WTERMSIG(status);
  exit.peak_rss_bytes = static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux counts it in KiB
  return exit;
}

// The process group of the run_subprocess child now running (0: none), for the TERM and INT handlers: a
// driver stopped by Ctrl-C or `kill` takes the exporter and its compilers with it.
std::atomic<pid_t> running_group{0};

void forward_and_die(int signal) {
  const pid_t group = running_group.load();
  if (group > 0) killpg(group, SIGTERM);
  ::signal(signal, SIG_DFL);
  raise(signal);  // delivered when this handler returns: the default action, as if we had not caught it
}

// TERM and INT forwarded to the child's group while it runs; the previous dispositions back afterwards.
class ForwardSignals {
 public:
  explicit ForwardSignals(pid_t group) {
    running_group.store(group);
    struct sigaction action {};
    action.sa_handler = forward_and_die;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < 2; ++i) sigaction(kSignals[i], &action, &saved_[i]);
  }
  ~ForwardSignals() {
    for (size_t i = 0; i < 2; ++i) sigaction(kSignals[i], &saved_[i], nullptr);
    running_group.store(0);
  }
  ForwardSignals(const ForwardSignals&) = delete;
  ForwardSignals& operator=(const ForwardSignals&) = delete;

 private:
  static constexpr int kSignals[2] = {SIGTERM, SIGINT};
  struct sigaction saved_[2] {};
};

// argv[0] as posix_spawnp would find it: itself when it holds a '/', else the first executable in PATH.
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::string_view dir : split(dirs, ':')) {
    const std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return name;  // execve says "No such file or directory"
}

}  // namespace

SubprocessResult run_subprocess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env) {
  if (argv.empty()) throw runtime_error("run_subprocess: no program given");
  std::vector<std::string> env = environment_with(extra_env), args = argv;
  std::vector<char*> envp = pointers(env), argp = pointers(args);
  Pipes p = open_pipes(argv[0]);
  pid_t pid = -1;
  try {
    pid = start_child(find_program(argv[0]), argp.data(), envp.data(), p, /*own_group=*/true);
  } catch (...) {
    for (int fd : {p.out[0], p.out[1], p.err[0], p.err[1]}) close(fd);
    throw;
  }
  ForwardSignals forward(pid);
  close(p.out[1]);
  close(p.err[1]);
  SubprocessResult result;
  drain(p.out[0], p.err[0], [&](int stream, const char* data, size_t size) {
    (stream == 0 ? result.out : result.err).append(data, size);
  });
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

ChildExit run_streaming(const std::string& program, const std::vector<std::string>& argv,
                        const std::vector<std::string>& extra_env, const StreamHandlers& handlers) {
  if (argv.empty()) throw runtime_error("run_streaming: no arguments given (argv[0] at least)");
  std::vector<std::string> env = environment_with(extra_env), args = argv;
  std::vector<char*> envp = pointers(env), argp = pointers(args);
  Pipes p = open_pipes(program);
  pid_t pid = -1;
  try {
    pid = start_child(program, argp.data(), envp.data(), p);
  } catch (...) {
    for (int fd : {p.out[0], p.out[1], p.err[0], p.err[1]}) close(fd);
    throw;
  }
  close(p.out[1]);
  close(p.err[1]);
  LineSplitter out(handlers.out_line), err(handlers.err_line);
  try {
    if (handlers.started) handlers.started(pid);
    drain(p.out[0], p.err[0], [&](int stream, const char* data, size_t size) {
      (stream == 0 ? out : err).feed(data, size);
    }, handlers.after_read);
    out.finish();
    err.finish();
  } catch (...) {  // a handler failed: the child must not outlive the call
    kill(pid, SIGKILL);
    reap(pid);
    throw;
  }
  return reap(pid);
}

std::string executable_path(const std::string& program) {
  std::error_code ec;
  const std::filesystem::path target = std::filesystem::read_symlink(program, ec);
  if (!ec && !target.empty())  // a relative target is relative to the link's folder
    return target.is_absolute() ? target.string() : (std::filesystem::path(program).parent_path() / target).string();
  const std::filesystem::path absolute = std::filesystem::absolute(program, ec);
  return ec ? program : absolute.string();
}

std::string killed_by_text(int signal, int64_t peak_rss_bytes) {
  std::string text = "killed by " + signal_name(signal) + " (signal " + std::to_string(signal) + "; peak memory " +
                     peak_memory_text(peak_rss_bytes) + ")";
  if (const char* cause = likely_cause(signal)) text += std::string(": ") + cause;
  return text;
}

std::string peak_memory_text(int64_t bytes) {
  if (bytes <= 0) return "unknown";
  const auto b = static_cast<uint64_t>(bytes);
  return b >= (uint64_t{1} << 30) ? bytes_text(b, 1, ByteUnit::GiB) : bytes_text(b, 0, ByteUnit::MiB);
}

}  // namespace fmwork
