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
#include "fmwork/sweep/serve_run.hpp"
#include "fmwork/sweep/admission.hpp"

namespace fmwork {
namespace {

// serve's command line, read by the one tokenizer as serve's (the rows serve takes): --batch_sizes and
// --input_sizes of one size each; what they set checked together.
std::pair<DriverOptions, ServeSetup> parse_serve(const std::vector<std::string>& words_in) {
  std::vector<const char*> argv = {"driver"};
  for (const auto& w : words_in) argv.push_back(w.c_str());
  DriverOptions o = parse_driver_options(static_cast<int>(argv.size()), argv.data(), Command::serve);
  ServeSetup setup;
  setup.args = o.command_line.serve;
  FixedArgs& args = o.command_line.args;
  const ServeShape shape = serve_shape(args, setup.args);
  setup.max_batch = shape.max_batch;
  setup.lengths = shape.lengths;
  setup.seed = args.seed;
  return {std::move(o), std::move(setup)};
}

// A serve run that is not CPU eager is held against the CPU once, before its levels, as the sweep's first
// combination is (cpu_reference.hpp): its largest batch of its longest queries through the model, its first row
// or two through the same model eager on the CPU, in one CHECK line. Outputs judged wrong end the run before any level:
// the latency of a model that computes wrong is not a capacity. The ids come from a generator of their own, so
// that the levels' queries are the same with the check and without it.
void check_against_cpu(const DriverOptions& o, BenchSetup& bench, const ServeSetup& setup, std::ostream& out) {
  std::optional<CpuReference> reference = cpu_reference_of(o, *bench.platform);
  if (!reference) return;
  Model& model = *bench.model;
  CpuReferenceCheck check(std::move(reference), o.check);
  out << "cpu reference: before the levels, the largest batch of the longest queries runs through the model, its first "
      << std::min(kCpuReferenceRows, setup.max_batch)
      << " rows again through it eager on the CPU, compared in one FMWORK CHECK line (--check_outputs:cpu@ False: not "
         "checked)\n";
  // The batch of the shape prepare() readied (a package built for one shape takes no other); the CPU runs its
  // first rows only.
  InputGenerator ids(model.facts().tokens, setup.seed + 1);
  const Batch batch = ids.make(setup.max_batch, setup.lengths.max, bench.platform->facts().device);
  const torch::IValue outputs = model.forward(model.stage(batch));
  bench.platform->synchronize();
  const CpuCheck judged = check.after_reps(setup.lengths.max, setup.max_batch, model, batch, outputs);
  if (judged.line) out << format_line(*judged.line) << "\n";
  if (!judged.note.empty()) out << judged.note << "\n";
  flush_or_throw(out, "the log to standard output");
  if (!judged.pass)
    throw runtime_error("serve: " + judged.failure + "; no level is run for a model whose outputs are wrong "
                        "(--check_outputs:cpu@ False runs them anyway)");
}

}  // namespace

int run_serve_command(const std::vector<std::string>& words_in, const std::string& revision, std::ostream& out) {
  auto [o, setup] = parse_serve(words_in);
  FixedArgs& args = o.command_line.args;
  auto platform = open_platform(o);
  set_progress_mode(progress_mode_for(args.quiet));
  out << banner("ARGS") << format_args_section(o.command_line);
  flush_or_throw(out, "the log to standard output");
  BenchSetup bench = load_bench(o, std::move(platform), revision, out, out);
  finish_bench(o, bench);
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
  check_against_cpu(o, bench, setup, out);
  out << format_line(bench.meta) << "\n";  // run_serve writes the SERVE banner once a Ctrl-C can end it cleanly
  const int status = run_serve(setup, model, *bench.platform, *bench.inputs, out);
  out << "\n";
  flush_or_throw(out, "the log to standard output");
  return status;
}

}  // namespace fmwork
