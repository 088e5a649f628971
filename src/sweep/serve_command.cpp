// `driver serve ...` (see serve_command.hpp).
#include "fmwork/sweep/serve_command.hpp"

#include <algorithm>
#include <utility>

#include "fmwork/base/error.hpp"
#include "fmwork/base/progress.hpp"
#include "fmwork/cli/args_section.hpp"
#include "fmwork/cli/serve_options.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/model/inputs.hpp"
#include "fmwork/sweep/bench_setup.hpp"
#include "fmwork/sweep/fed_shapes.hpp"
#include "fmwork/sweep/serve_run.hpp"
#include "fmwork/sweep/admission.hpp"

namespace fmwork {
namespace {

// serve's command line: the serve options, then the sweep's without --reps (and without its sweep-only
// options), --batch_sizes and --input_sizes of one size each; what they set checked together.
std::pair<DriverOptions, ServeSetup> parse_serve(const std::vector<std::string>& words_in) {
  std::vector<std::string> words = words_in;
  ServeSetup setup;
  setup.args = take_serve_options(words);
  std::vector<const char*> argv = {"driver"};
  for (const auto& w : words) argv.push_back(w.c_str());
  DriverOptions o = parse_driver_options(static_cast<int>(argv.size()), argv.data(), serve_not_required());
  FixedArgs& args = o.command_line.args;
  const ServeShape shape = serve_shape(args, setup.args);
  setup.max_batch = shape.max_batch;
  setup.lengths = shape.lengths;
  setup.seed = args.seed;
  return {std::move(o), std::move(setup)};
}

}  // namespace

int run_serve_command(const std::vector<std::string>& words_in, const std::string& revision, std::ostream& out) {
  auto [o, setup] = parse_serve(words_in);
  FixedArgs& args = o.command_line.args;
  auto platform = open_platform(o);
  set_progress_mode(progress_mode_for(args.quiet));
  CommandLine echoed = o.command_line;
  for (const auto& w : setup.args.arg_words) echoed.arg_words.push_back(w);
  std::sort(echoed.arg_words.begin(), echoed.arg_words.end());
  out << banner("ARGS") << format_args_section(echoed);
  flush_or_throw(out, "the log to standard output");
  BenchSetup bench = prepare_bench(o, std::move(platform), revision, BenchFor::serve, out, out);
  Model& model = *bench.model;
  const ModelFacts facts = model.facts();
  setup.batching = bench.batching;
  check_batching(setup.batching, bench);
  // What the batcher feeds a package built for some shapes, before its package is built (prepare).
  check_serve_shapes(setup, bench.platform->facts().constraints, facts);
  // A query longer than the model's position table is refused now, before any level runs.
  if (facts.activation_bytes) facts.activation_bytes(setup.max_batch, setup.lengths.max);
  // The largest batch the batcher can form must fit, as each of the sweep's combinations must: refused now in one
  // line, not by the allocator halfway through a level.
  // (--max_tokens caps a batch of the longest queries below --batch_sizes: the largest such batch is checked).
  const int64_t largest = setup.args.max_tokens > 0 ? std::min(setup.max_batch, std::max<int64_t>(1, setup.args.max_tokens / setup.lengths.max))
                                                    : setup.max_batch;
  admit(largest, setup.lengths.max, model, *bench.platform);
  if (const std::optional<CompileFacts> compiled = model.prepare(setup.max_batch, setup.lengths.max))
    out << format_line(make_compile_line(*compiled)) << "\n";
  out << format_line(bench.meta) << "\n";  // run_serve writes the SERVE banner once a Ctrl-C can end it cleanly
  const int status = run_serve(setup, model, *bench.platform, *bench.inputs, out);
  out << "\n";
  flush_or_throw(out, "the log to standard output");
  return status;
}

}  // namespace fmwork
