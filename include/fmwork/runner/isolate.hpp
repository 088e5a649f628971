// --isolate: each (batch, input) combination of the sweep runs in a child process of the driver, which
// loads the model itself. A combination that kills its process (the OOM killer, a crash in a plugin)
// costs that combination only: it becomes a FAIL line and the sweep goes on. A platform that takes one
// shape per process (Spyre) gets whole sweeps. The price is a model load per combination.
//
// The parent checks the command line and prints ARGS, then runs, for each combination in the sweep's order
// (batch sizes outer, input sizes inner), the same executable with the same arguments and the variable
// kIsolatedChildVariable naming the combination, and forwards the child's stdout and stderr line by line as
// they come. The first child prints RUNTIME, MODEL, SETUP and META as a normal run does, then its RUN
// block; each later child prints its SETUP (its own load time, which `process` gives the combination's
// record) and its RUN block. The log therefore reads as one run: the same RUN / REP / RES / STAT / MEM /
// CHECK / FAIL lines per combination, one META.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace fmwork {

struct FixedArgs;  // cli.hpp

// Set by the parent in each child's environment: "batch=B input=I sections=all parent=PID" (or
// "sections=run"), PID being the parent's process id: the handshake that tells a child from a top-level run
// that found the variable left in its environment.
inline constexpr const char* kIsolatedChildVariable = "FMWORK_ISOLATED_CHILD";

// The one combination an isolated child runs. `sections`: it prints RUNTIME, MODEL and META (no child
// has yet got them into the log), else only its SETUP line and its RUN block. `parent`: the pid of the
// driver that started it.
struct IsolatedChild {
  int64_t batch = 0, input = 0;
  bool sections = true;
  int64_t parent = 0;
};

// The variable's value for `child`, and back. parse_isolated_child throws a usage Error on anything else
// than what isolated_child_spec writes.
std::string isolated_child_spec(const IsolatedChild& child);
IsolatedChild parse_isolated_child(std::string_view spec);

// In the driver: the combination this process runs as an isolated child, when --isolate is given and
// kIsolatedChildVariable is set by this process's parent (its parent= is getppid()); nullopt otherwise. The
// variable alone does nothing; one that does not parse or names another parent (left in the environment of
// a top-level run) is ignored with a note on `err`: "note: FMWORK_ISOLATED_CHILD='...' was not set by this
// process's parent ...". Throws a usage Error when the parent's variable names a combination that the
// command line does not hold.
std::optional<IsolatedChild> isolated_child(const FixedArgs& args, std::ostream& err);

// The FAIL text of a combination whose process was killed by `signal`: the signal's name and number, the
// process's peak resident memory and the likely cause, on one line.
std::string killed_child_error(int signal, int64_t peak_rss_bytes);

// In the parent: runs every combination of `args` in a child `program` (the driver itself) started with
// `argv` (the parent's own arguments) and the variable set; writes the children's stdout lines to `out` and
// their stderr lines to `err` as they come. A combination whose child ends without its RES or FAIL line
// gets its FAIL line from the parent: a child killed by a signal, killed_child_error(); a child that exits
// with an error, the child's last stderr line (which the parent then does not forward). Each failed
// combination is handed to `report` as run_sweep hands its failures ("combination input 512 / batch 256
// failed: ...; the sweep goes on"). Returns the number of failed combinations. Throws a usage Error (the
// child's message) when a child exits with status 2 before its combination ran: the command line, not the
// combination, is at fault, and every child would say the same.
int run_isolated_sweep(const FixedArgs& args, const std::string& program, const std::vector<std::string>& argv,
                       std::ostream& out, std::ostream& err, const std::function<void(const std::string&)>& report);

}  // namespace fmwork
