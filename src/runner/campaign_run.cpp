// One run of a campaign as a driver process, its log streamed and renamed into place (see campaign_run.hpp).
#include "fmwork/runner/campaign_run.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include "fmwork/base/error.hpp"
#include "fmwork/cli/cuda_name.hpp"
#include "fmwork/base/subprocess.hpp"
#include "fmwork/base/text_format.hpp"

namespace fmwork {

namespace {

// Makes room for a run's new log or .err file at `path`. What a killed runner or a user left there (a
// symbolic link to a file elsewhere, a FIFO) is removed first: opened as it was, the run's output went
// through the link into a file the campaign does not own. A folder in its place is an error naming it.
void make_room(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;  // nothing there
  if (S_ISDIR(st.st_mode))
    throw runtime_error(path + " is a folder; a run's log goes there: move the folder away, then resume");
  if (::unlink(path.c_str()) != 0)
    throw runtime_error(path + ": cannot remove what is in the way of the run's log (" + std::strerror(errno) + ")");
}

}  // namespace

RunEnd execute_run(const PlannedRun& run, const std::string& device, const std::string& logs,
                   const std::string& program) {
  const std::string log = logs + "/" + run.id + ".log";
  make_room(log + ".partial");
  make_room(logs + "/" + run.id + ".err");
  std::ofstream out(log + ".partial", std::ios::binary | std::ios::trunc);
  std::ofstream err(logs + "/" + run.id + ".err", std::ios::binary | std::ios::trunc);
  if (!out || !err) throw runtime_error(log + ": cannot write the run's log (" + std::strerror(errno) + ")");
  int write_errno = 0;  // the first failed write's reason (a full disk: ENOSPC), for the one line
  const auto note = [&](std::ostream& stream) {
    if (!stream && write_errno == 0) write_errno = errno ? errno : EIO;
  };
  RunEnd end;
  StreamHandlers handlers;
  handlers.out_line = [&](std::string_view line, bool terminated) {
    out << line;
    if (terminated) out << '\n';
  };
  handlers.err_line = [&](std::string_view line, bool) {
    err << line << '\n';
    if (!line.empty()) end.last_error = std::string(line);
  };
  handlers.after_read = [&] {
    errno = 0;
    out.flush();
    note(out);
    err.flush();
    note(err);
  };
  std::vector<std::string> argv = {executable_path(program)};
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  const SlotLaunch launch = slot_launch(device, visible ? std::optional<std::string>(visible) : std::nullopt);
  const std::vector<std::string> options = device.empty() ? run.argv : with_platform(run.argv, launch.platform);
  argv.insert(argv.end(), options.begin(), options.end());
  const ChildExit exit = run_streaming(program, argv, launch.env, handlers);
  errno = 0;
  out.close();
  note(out);
  err.close();
  if (!out) throw runtime_error(log + ": cannot write the run's log (" + std::strerror(write_errno) + ")");
  if (std::rename((log + ".partial").c_str(), log.c_str()) != 0)
    throw runtime_error(log + ": cannot rename into place (" + std::strerror(errno) + ")");
  end.status = exit.signal ? 128 + exit.signal : exit.exit_code;
  // A run killed by a signal says nothing itself: "exit status 137: " ended the line. The signal, its likely
  // cause and the peak memory, then what the run last said, if anything.
  if (exit.signal)
    end.last_error = killed_by_text(exit.signal, exit.peak_rss_bytes) +
                     (end.last_error.empty() ? "" : "; its last line on stderr: " + end.last_error);
  return end;
}

SlotLaunch slot_launch(const std::string& device, const std::optional<std::string>& visible) {
  const std::optional<CudaName> cuda = read_cuda_name(device);
  // "cuda" is the current device already; a bad cuda:N the driver refuses, in its own words.
  if (!cuda || !cuda->index) return {device, {}};
  const auto index = static_cast<size_t>(*cuda->index);
  if (!visible || visible->empty()) return {"cuda", {"CUDA_VISIBLE_DEVICES=" + std::to_string(index)}};
  // Already narrowed (Slurm, the user): cuda:N is the N-th device of that list, as it would be in the driver.
  const std::vector<std::string_view> listed = split(*visible, ',');
  if (index >= listed.size()) return {device, {}};  // the driver says how many devices there are
  return {"cuda", {"CUDA_VISIBLE_DEVICES=" + std::string(listed[index])}};
}

std::vector<std::string> with_platform(std::vector<std::string> argv, const std::string& device) {
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "--platform") {
      argv[i + 1] = device;
      return argv;
    }
  }
  // after a serve run's first word, which names the driver's command (experiment.hpp)
  const auto at = argv.begin() + (!argv.empty() && argv[0] == "serve" ? 1 : 0);
  argv.insert(at, {"--platform", device});
  return argv;
}

}  // namespace fmwork
