// Whether a campaign's run is complete (see run_complete.hpp).
#include "fmwork/runner/run_complete.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <set>
#include <utility>

#include "fmwork/base/error.hpp"
#include "fmwork/base/regular_file.hpp"
#include "fmwork/cli/cli.hpp"
#include "fmwork/cli/serve_options.hpp"
#include "fmwork/log/log_records.hpp"
#include "fmwork/log/log_schema.hpp"

namespace fmwork {
namespace {

// The batch x input sizes of a run's command line.
FixedArgs fixed_args_of(const std::string& path, const std::vector<std::string>& argv) {
  try {
    return parse_command_line(argv, Command::sweep).args;
  } catch (const Error& e) {
    throw with_context(path + ": cannot tell whether the run is complete: its command line", e);
  }
}

// A serve run's log is complete with a SERVE line for each level its command line asks for (each --rates rate,
// the --users level) and, with --latency_bound, the search's CAPACITY line, which it writes last.
bool serve_log_complete(const std::string& path, const std::vector<std::string>& argv, const ParsedLog& log) {
  ServeArgs serve;
  try {
    serve = parse_command_line(std::vector<std::string>(argv.begin() + 1, argv.end()), Command::serve).serve;
  } catch (const Error& e) {
    throw with_context(path + ": cannot tell whether the run is complete: its command line", e);
  }
  const size_t levels = serve.rates.size() + (serve.users ? 1 : 0);
  // Only the levels asked for count: the search's levels (phase=search) stood in for missing ones.
  const auto asked = std::count_if(log.serve.begin(), log.serve.end(), [](const ServeLine& line) {
    const std::string* phase = line.fields.find(serve_key::phase);
    return phase && *phase == "levels";
  });
  return static_cast<size_t>(asked) >= levels && (!serve.bound || !log.capacity.empty());
}

}  // namespace

bool run_log_complete(const std::string& path, const std::vector<std::string>& argv) {
  const bool serve = !argv.empty() && argv[0] == "serve";
  const FixedArgs args = serve ? FixedArgs() : fixed_args_of(path, argv);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) return false;  // not run (yet)
  // What the runner writes there is a regular file: a FIFO would block the resume, a link to /dev/zero
  // would be read as long as its bound allows.
  refuse_special_file(path);
  // Read in pieces, as process reads it. A file that exists but cannot be read is the Error (not "run it
  // again"); a malformed line, or a log past LogLimits, is the one outcome that means
  // "incomplete", told apart by where it is thrown.
  struct Malformed {};
  LogStreamParser parser(path);
  try {
    read_file_pieces(path, [&](std::string_view piece) {
      try {
        parser.feed(piece);
      } catch (const Error&) {
        throw Malformed{};
      }
    });
  } catch (const Malformed&) {
    return false;
  }
  std::optional<ParsedLog> log;
  try {
    log = parser.finish();
  } catch (const Error&) {
    return false;
  }
  if (serve) return serve_log_complete(path, argv, *log);
  std::set<std::pair<int64_t, int64_t>> seen;
  for (const auto& r : log->results) seen.emplace(r.res.batch, r.res.input);
  for (const auto& f : log->failures) {
    const std::optional<int64_t> batch = f.fields.get_int(fail_key::batch), input = f.fields.get_int(fail_key::input);
    if (batch && input) seen.emplace(*batch, *input);
  }
  for (int64_t b : args.batch_sizes)
    for (int64_t i : args.input_sizes)
      if (!seen.count({b, i})) return false;
  return true;
}

size_t count_complete(const std::string& dir, const Plan& plan, const std::vector<size_t>& indices) {
  return static_cast<size_t>(std::count_if(indices.begin(), indices.end(), [&](size_t i) {
    return run_log_complete(dir + "/logs/" + plan.runs[i].id + ".log", plan.runs[i].argv);
  }));
}

}  // namespace fmwork
