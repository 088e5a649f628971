// driver: benchmarks an encoder model over batch x input sizes and prints upstream's FMWORK lines.
// Thin on purpose: parse, call the library, catch fmwork::Error once.
#include <c10/util/Exception.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <csignal>
#include <iostream>
#include <new>
#include <optional>

#include "fmwork/cache/cache_command.hpp"
#include "fmwork/runner/campaign.hpp"
#include "fmwork/cli/cli.hpp"
#include "fmwork/cli/usage.hpp"
#include "fmwork/base/version.hpp"
#include "fmwork/base/crash_guard.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/interrupt_note.hpp"
#include "fmwork/base/whole_lines.hpp"
#include "fmwork/git_revision.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/sweep/serve_command.hpp"
#include "fmwork/sweep/sweep_command.hpp"

namespace fmwork {
namespace {

// `driver ...`: the sweep (sweep/sweep_command.hpp).
int sweep(int argc, char** argv) {
  return run_sweep_command(std::vector<std::string>(argv, argv + argc), FMWORK_GIT_REVISION, "/proc/self/exe",
                           std::cout, std::cerr);
}

int print_help(const std::string& text) {
  std::cout << text;
  flush_or_throw(std::cout, "the help to standard output");
  return 0;
}

// `driver serve ...`: the serving scenario (sweep/serve_command.hpp).
int serve(const std::vector<std::string>& words) {
  if (asks_for_help(words)) return print_help(serve_usage());
  return run_serve_command(words, FMWORK_GIT_REVISION, std::cout);
}

// A subcommand, `driver NAME ARGS...`, picked by argv[1]: run gets the words after the name and returns the
// exit status. One without a help of its own answers `driver NAME --help` with its usage line and summary.
struct Subcommand {
  SubcommandDoc doc;
  bool own_help;
  int (*run)(const std::vector<std::string>& args);
};

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> table = {
      {{"run", command_synopsis(Command::run),
        "runs an experiment file's command lines as a campaign (driver run --help: its options)"},
       true,
       [](const std::vector<std::string>& args) {
         const int status = run_campaign_command(args, "/proc/self/exe", std::cout, std::cerr);
         flush_or_throw(std::cout, "the campaign's output to standard output");
         return status;
       }},
      {{"serve", "--platform P --model_class C --model_name N (--rates R[,R...] | --users N | --latency_bound pQ:MS) ...",
        "the serving scenario: arrivals, dynamic batching, latency under load, the capacity within a latency bound "
        "(driver serve --help: its options)"},
       true, serve},
      {{"--cache", command_synopsis(Command::cache),
        "lists, reports (a table) or clears the compiled packages kept in $FMWORK_CACHE"},
       false,
       [](const std::vector<std::string>& args) {
         std::cout << run_cache_command(parse_command_line(args, Command::cache).cache);
         flush_or_throw(std::cout, "the cache report to standard output");
         return 0;
       }},
  };
  return table;
}

std::vector<SubcommandDoc> subcommand_docs() {
  std::vector<SubcommandDoc> docs;
  for (const auto& subcommand : subcommands()) docs.push_back(subcommand.doc);
  return docs;
}

// A subcommand's, the help, or a benchmark run.
int dispatch(int argc, char** argv) {
  const std::vector<std::string> words(argv + 1, argv + argc);
  for (const auto& subcommand : subcommands()) {
    if (words.empty() || words[0] != subcommand.doc.name) continue;
    const std::vector<std::string> args(words.begin() + 1, words.end());
    if (!subcommand.own_help && asks_for_help(args)) return print_help(subcommand_usage(subcommand.doc));
    return subcommand.run(args);
  }
  refuse_misspelt_subcommand(words, subcommand_docs());  // "driver serv ..." is no sweep with a stray word
  if (asks_for_help(words)) return print_help(driver_usage(subcommand_docs()));
  if (words.size() == 1 && words[0] == "--version") {
    std::cout << version_text("driver", FMWORK_GIT_REVISION);
    flush_or_throw(std::cout, "the version to standard output");
    return 0;
  }
  return sweep(argc, argv);
}

}  // namespace
}  // namespace fmwork

namespace {

// Every way out of main: stdout flushed, and cut back to its last whole line when a write of it failed.
int leave(int status, std::optional<uint64_t> log_start) {
  std::cout.flush();
  errno = 0;
  const bool written = fmwork::finish_whole_lines(stdout, STDOUT_FILENO, log_start);
  if (fmwork::crash_guard_tripped()) std::_Exit(status != 0 ? status : 1);
  if (written || status != 0 || fmwork::reader_gone(STDOUT_FILENO)) return status;
  std::cerr << "error: cannot write the log to standard output (" << std::strerror(errno ? errno : EIO)
            << "): the disk may be full or the output closed" << std::endl;
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  // Into a file or a pipe, stdout is written in large blocks (the sweep flushes after each combination):
  // fewer write() calls between reps. A terminal keeps its line buffering.
  if (!isatty(STDOUT_FILENO)) setvbuf(stdout, nullptr, _IOFBF, 1 << 20);
  // A file size limit (ulimit -f) is a failed write with a reason (EFBIG), not a death by SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);
  // `driver ... | head` is reading what it wants: a write into a pipe with no reader fails (EPIPE) instead
  // of killing the driver (rc 141), and the run ends quietly with status 0 at its next flush.
  std::signal(SIGPIPE, SIG_IGN);
  const std::optional<uint64_t> log_start = fmwork::whole_lines_start(STDOUT_FILENO);
  try {
    return leave(fmwork::dispatch(argc, argv), log_start);
  } catch (const fmwork::Error& e) {
    if (std::cout.fail() && fmwork::reader_gone(STDOUT_FILENO)) {  // the log's reader left
      // With a Ctrl-C that reached it too (`driver | tee`), the run still ends by the signal, not with 0.
      if (const int signal = fmwork::InterruptWatch::seen_in_process()) fmwork::InterruptWatch::end_by_signal(signal);
      return leave(0, log_start);
    }
    std::cerr << "error: " << e.what() << std::endl;
    return leave(e.exit_code(), log_start);
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory while running (ulimit -v?); smaller batch or input sizes, or a smaller model, "
                 "need less"
              << std::endl;
    return leave(1, log_start);
  } catch (const c10::Error& e) {
    std::cerr << "error: " << fmwork::escape_controls(e.what_without_backtrace()) << std::endl;
    return leave(1, log_start);
  } catch (const std::exception& e) {
    std::cerr << "error: " << fmwork::escape_controls(e.what()) << std::endl;
    return leave(1, log_start);
  }
}
