// The `process` command: its options, reading the files, and the format asked for.
#include "fmwork/process.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <map>
#include <utility>

#include <CLI/CLI.hpp>

#include "fmwork/error.hpp"
#include "fmwork/log_records.hpp"
#include "fmwork/process_report.hpp"
#include "fmwork/py_text.hpp"

namespace fmwork {

namespace {

std::string read_path(const std::string& path) {
  const std::string what = "--path " + path + ": ";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw runtime_error(what + "cannot open (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw runtime_error(what + "cannot open (" + std::strerror(EISDIR) + ")");
  }
  std::string contents;
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      throw runtime_error(what + "cannot read (" + std::strerror(err) + ")");
    }
    if (n == 0) break;
    contents.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return contents;
}

// The command line of `process`.
struct ProcessOptions {
  std::vector<std::string> paths;
  std::optional<std::string> metadata_id;
  std::string format = "json";
  bool upstream_only = false;
};

// The options, or nullopt after --help has been written to `out`.
std::optional<ProcessOptions> parse_options(int argc, const char* const* argv, std::ostream& out) {
  CLI::App app{
      "Turns fmwork driver logs into upstream's JSON (default), a CSV table or a readable summary.\n"
      "Reads FMWORK ARG / SETUP / REP / RES lines and the META / STAT / MEM / FAIL / CHECK extensions.",
      "process"};
  ProcessOptions options;
  std::string metadata_id;
  app.add_option("--path,paths", options.paths,
                 "Driver logs, read in the order given into one output; - is standard input.\n"
                 "--path may be repeated or left out.")
      ->type_name("FILE");
  auto* metadata_option =
      app.add_option("--metadata_id", metadata_id, "Written into each JSON record (null when not given).")
          ->type_name("ID");
  app.add_option("--format", options.format, "json: upstream's list of records; csv: one row per RES and FAIL line;\n"
                                             "summary: an aligned table per log.")
      ->check(CLI::IsMember({"json", "csv", "summary"}))
      ->type_name("FORMAT");
  app.add_flag("--upstream", options.upstream_only,
               "JSON exactly as upstream's process writes it: precision, warmup, setup null;\n"
               "engine fmwork/embed/tf.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw usage_error(std::string(e.what()) + " (see process --help)");
  }
  if (options.paths.empty()) throw usage_error("no log given: pass --path FILE (or FILE; - reads standard input)");
  if (metadata_option->count() > 0) options.metadata_id = metadata_id;
  return options;
}

}  // namespace

void run_process(int argc, const char* const* argv, std::istream& in, std::ostream& out) {
  const std::optional<ProcessOptions> options = parse_options(argc, argv, out);
  if (!options) return;
  // Every file is read before anything is written: a bad file leaves no partial output.
  std::vector<ParsedLog> logs;
  for (const std::string& path : options->paths) {
    logs.push_back(path == "-" ? parse_log(in, "-") : parse_log_text(read_path(path), path));
  }
  if (options->format == "csv") {
    out << to_csv(logs, options->metadata_id);
  } else if (options->format == "summary") {
    out << to_summary(logs);
  } else {
    out << python_json_dumps(to_upstream_json(logs, options->metadata_id, options->upstream_only), BadBytes::replace)
        << "\n";
  }
}

}  // namespace fmwork
