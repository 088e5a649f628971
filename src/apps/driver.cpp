// driver: benchmarks an encoder model over batch x input sizes and prints upstream's FMWORK lines.
// Thin on purpose: parse, call the library, catch fmwork::Error once.
#include <torch/torch.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <csignal>
#include <iostream>
#include <new>
#include <optional>

#include <fmt/format.h>

#include "fmwork/cache/artifact_cache.hpp"
#include "fmwork/cache/cache_command.hpp"
#include "fmwork/runner/campaign.hpp"
#include "fmwork/cli/args_section.hpp"
#include "fmwork/cli/cli.hpp"
#include "fmwork/cli/usage.hpp"
#include "fmwork/base/progress.hpp"
#include "fmwork/base/version.hpp"
#include "fmwork/compile/compile_model.hpp"
#include "fmwork/base/crash_guard.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/whole_lines.hpp"
#include "fmwork/git_revision.hpp"
#include "fmwork/model/inputs.hpp"
#include "fmwork/runner/isolate.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/model/model.hpp"
#include "fmwork/loaders/model_loader.hpp"
#include "fmwork/cli/option_sets.hpp"
#include "fmwork/platform/platform_registry.hpp"
#include "fmwork/cli/platform_rules.hpp"
#include "fmwork/cli/serve_options.hpp"
#include "fmwork/runtime/runtime_info.hpp"
#include "fmwork/sweep/gemm_probe.hpp"
#include "fmwork/sweep/serve_run.hpp"
#include "fmwork/sweep/fed_shapes.hpp"
#include "fmwork/sweep/sweep.hpp"
#include "fmwork/runtime/exception_cause.hpp"
#include "fmwork/runtime/torch_settings.hpp"

namespace fmwork {
namespace {

bool asks_for_help(const std::vector<std::string>& words) {
  for (const auto& word : words)
    if (word == "--help" || word == "-h") return true;
  return false;
}

struct Options {
  CommandLine command_line;
  CompileOptions compile;
  ModelOptions model;
  TorchCalls calls;
  TorchSets sets;
  PlatformOptions platform;
  CheckOptions check;
};

// --save_outputs and --profile make their folders before anything is loaded: one that cannot be made is found
// before a combination has run, not after each one.
void make_output_folder(const char* option, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec))
    throw usage_error(fmt::format("--{} {}: a file of that name exists; name a folder (it is made when absent)",
                                  option, path));
  std::filesystem::create_directories(path, ec);
  if (ec || !std::filesystem::is_directory(path))
    throw usage_error(fmt::format("--{} {}: cannot make the folder ({})", option, path,
                                  ec ? ec.message() : std::string("a file of that name exists")));
  // A folder we may not write into would be found only after the first combination had run: try a file now
  // (access() would not do: it says yes to root on a read-only mount).
  std::string probe = path + "/.fmwork-probe-XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0)
    throw usage_error(fmt::format("--{} {}: cannot write into the folder ({}); give a folder you can write", option,
                                  path, std::strerror(errno)));
  ::close(fd);
  ::unlink(probe.c_str());
}

// --save_outputs and --profile make their folders; --check_outputs must name an existing one; the tolerances
// need the folder.
void check_output_folders(const Options& o) {
  const FixedArgs& a = o.command_line.args;
  if (o.command_line.subs.count("check_outputs") && !a.check_outputs)
    throw usage_error("--check_outputs:KEY sets tolerances of --check_outputs DIR, which is not given");
  if (a.check_outputs && !std::filesystem::is_directory(*a.check_outputs))
    throw usage_error("--check_outputs " + *a.check_outputs + " is not a folder; give the folder --save_outputs wrote");
  if (a.save_outputs) make_output_folder("save_outputs", *a.save_outputs);
  if (a.profile) make_output_folder("profile", *a.profile);
  std::error_code ec;
  if (a.save_outputs && a.check_outputs && std::filesystem::equivalent(*a.save_outputs, *a.check_outputs, ec))
    throw usage_error("--save_outputs and --check_outputs name the same folder; the check would read what it writes");
}

// Everything the user typed, parsed and validated before anything is loaded.
Options parse_and_validate(int argc, const char* const* argv, const std::vector<std::string>& not_required = {}) {
  Options o;
  o.command_line = parse_command_line(argc, argv, not_required);
  const auto& subs = o.command_line.subs;
  o.compile = compile_options_from(subs.at("compile"));
  o.model = model_options_from(subs.at("model"));
  o.calls = torch_calls_from(subs.at("torch.call"));
  o.sets = torch_sets_from(subs.at("torch.set"));
  if (auto it = subs.find("platform"); it != subs.end()) o.platform = platform_options_from(it->second);
  if (auto it = subs.find("check_outputs"); it != subs.end()) o.check = check_options_from(it->second);
  validate_torch_settings(o.calls, o.sets);
  check_output_folders(o);
  return o;
}

void check_platform_rules(const Platform& platform, const CommandLine& command_line) {
  const auto refusals = check_constraints(platform.name(), platform.constraints(), command_line);
  if (refusals.empty()) return;
  std::string message = fmt::format("--platform {} cannot run this command line:", platform.name());
  for (const auto& r : refusals) message += " " + r;
  throw usage_error(message);
}

// The RUNTIME section (to `section`): applies the torch settings, then autograd as asked (after them, so
// that it holds); prints the platform, LibTorch and its libraries.
RuntimeInfo apply_runtime(const Options& o, const Platform& platform, bool grad, std::ostream& section) {
  section << banner("RUNTIME");
  for (const auto& line : apply_torch_settings(o.calls, o.sets)) section << line << "\n";
  c10::GradMode::set_enabled(grad);
  section << (grad ? "autograd: on (--torch.call:set_grad_enabled@ True)\n"
                   : "autograd: off (upstream leaves it on; --torch.call:set_grad_enabled@ True turns it on)\n");
  section << fmt::format("platform: {} ({})\n", platform.name(), platform.description());
  const RuntimeInfo runtime = runtime_info();
  section << fmt::format("LibTorch {}, driver {} ({})\n", runtime.torch_version, FMWORK_VERSION,
                         FMWORK_GIT_REVISION);
  section << describe_runtime(runtime) << "\n" << std::flush;
  return runtime;
}

// The MODEL section (to `section`): loads and compiles the model; SETUP (to stdout, always) times it from
// the start of loading to ready.
std::unique_ptr<Model> load_and_compile(const Options& o, Platform& platform, std::ostream& section) {
  const FixedArgs& args = o.command_line.args;
  section << banner("MODEL") << std::flush;
  // On a terminal only: a log file gets no line for a load that takes a second (a compile step says its own).
  progress_live("loading " + args.model_path + (args.compile ? " and compiling it" : "") + " ...");
  const Nanos t0 = clock_now();
  auto model = load_model(LoadRequest{args.model_path, args.model_class, o.model, platform.device(),
                                      compiles_from_folder(args.compile, o.compile, platform)});
  if (args.eval) model->eval();
  const ModelSource source{args.model_path, args.model_class, o.command_line.subs.at("model")};
  Compiled compiled = compile_model(std::move(model), CompileRequest{args.compile, args.eval, o.compile, source},
                                    platform);
  model = std::move(compiled.model);
  platform.synchronize();
  const Nanos t1 = clock_now();

  section << model->facts().description << "\n";
  for (const auto& note : o.model.ignored) section << note << "\n";
  for (const auto& note : compiled.notes) section << note << "\n";
  section << "\n";
  std::cout << format_line(SetupLine{static_cast<double>(t1 - t0) / 1e9}) << "\n";
  return model;
}

// The machine's GEMM rate for STAT's of_peak, when a combination's FLOPs can be known (the model's formula, or
// the --profile rep's counter): read from the cache or measured, and said above META. A probe the device
// refuses costs only of_peak, with a line saying why.
std::optional<GemmRate> probe_gemm_rate(const FixedArgs& args, const RuntimeInfo& runtime, Platform& platform,
                                        const Model& model, std::ostream& section) {
  const ModelFacts facts = model.facts();
  if (!facts.forward_flops && !args.profile) return std::nullopt;
  const std::optional<c10::ScalarType> dtype = float_dtype_of(facts.dtype_name);
  if (!dtype) return std::nullopt;
  std::string note;
  try {
    const GemmRate rate = gemm_rate(*dtype, platform, runtime, &note);
    section << describe_gemm_rate(rate) << "\n";
    if (!note.empty()) section << note << "\n";
    return rate;
  } catch (const std::exception& e) {
    section << "gemm rate: not measured (" << exception_cause(e) << "); STAT has no of_peak\n";
    return std::nullopt;
  }
}

MetaLine meta_line(const FixedArgs& args, const RuntimeInfo& runtime, const Platform& platform, const Model& model,
                   bool grad, const std::optional<GemmRate>& rate) {
  MetaFacts f;
  f.driver = FMWORK_VERSION;
  f.git = FMWORK_GIT_REVISION;
  f.torch = runtime.torch_version;
  f.blas = to_log_token(runtime.blas);
  f.onednn = runtime.onednn;
  f.parallel = to_log_token(runtime.parallel);
  f.platform = platform.name();
  f.device = to_log_token(platform.description());
  f.threads = runtime.intra_op_threads;
  f.interop_threads = runtime.inter_op_threads;
  const ModelFacts facts = model.facts();
  f.dtype = facts.dtype_name;
  f.parameters = facts.parameter_count;
  f.weights = facts.weights_source;
  f.seed = std::to_string(args.seed);
  f.grad = grad ? "on" : "off";
  f.eval = args.eval ? "true" : "false";
  f.compile = args.compile ? "true" : "false";
  f.cpu = to_log_token(runtime.cpu);
  f.isa = runtime.isa;
  f.warmup = args.warmup ? std::to_string(*args.warmup) : std::string(kMetaWarmupUpstream);
  if (args.lengths || args.batching) f.batching = batching_name(args.batching.value_or(Batching::padded));
  if (args.lengths) f.lengths = to_log_token(length_spec_text(*args.lengths));
  if (rate) {
    f.gemm_gflops = rate->gflops;
    f.gemm_probe = rate->how();
  }
  return make_meta_line(f);
}

// --batching unpadded needs a model that runs packed tokens and a platform that takes more than one shape:
// refused before the sweep, in one line.
void check_batching(const SweepPlan& plan, const Model& model, const Platform& platform) {
  if (plan.batching != Batching::unpadded) return;
  if (plan.one_shape)
    throw usage_error("--batching unpadded: --platform " + platform.name() + " runs one shape per run; its batches are "
                      "padded to the input size (--batching padded)");
  if (!model.facts().runs_unpadded)
    throw usage_error("--batching unpadded runs in the native encoders only (a Hugging Face folder run by the driver "
                      "itself, without --compile); this model is fed padded batches: use --batching padded or sorted");
}

void report_failure(const std::string& message) { std::cerr << "error: " << escape_controls(message) << std::endl; }

// The run's end: the summary of failed combinations, and the exit status.
int finish(int failures, const FixedArgs& args) {
  std::cout << "\n";
  flush_or_throw(std::cout, "the log to standard output");
  if (failures == 0) return 0;
  std::cerr << fmt::format("error: {} of {} combinations failed (see the FMWORK FAIL and CHECK lines)", failures,
                           args.batch_sizes.size() * args.input_sizes.size())
            << std::endl;
  return 1;
}

// The sweep the command line asks for, field by field.
SweepPlan sweep_plan(const Options& o, const std::optional<GemmRate>& rate, const Platform& platform) {
  const FixedArgs& args = o.command_line.args;
  SweepPlan plan;
  plan.batch_sizes = args.batch_sizes, plan.input_sizes = args.input_sizes, plan.reps = args.reps;
  plan.model_name = args.model_name, plan.model_class = args.model_class;
  plan.save_outputs = args.save_outputs, plan.check_outputs = args.check_outputs, plan.check = o.check;
  plan.profile = args.profile;
  if (rate) plan.peak_gflops = rate->gflops;
  plan.warmup = args.warmup;
  plan.lengths = args.lengths;
  plan.batching = args.batching.value_or(Batching::padded);
  plan.sort_window = args.sort_window;
  plan.seed = args.seed;
  plan.one_shape = platform.constraints().single_input_size;
  return plan;
}

int run(int argc, char** argv) {
  Options o = parse_and_validate(argc, argv);
  check_thread_environment([](const char* name) { return std::getenv(name); });
  FixedArgs& args = o.command_line.args;
  auto platform = make_platform(args.platform, o.platform);
  check_platform_rules(*platform, o.command_line);
  check_compile_request(args.compile, o.compile, *platform);  // CUDA graphs off cuda: refused before loading
  check_lengths_before_loading(args.lengths, args.model_path);
  const std::optional<IsolatedChild> child = isolated_child(args, std::cerr);
  // Progress on stderr (never stdout: the log). An --isolate child says nothing: it would count its one
  // combination as "1 of 1"; its parent's lines and the FAIL lines say what happens.
  set_progress_mode(args.quiet || child    ? ProgressMode::off
                    : isatty(STDERR_FILENO) ? ProgressMode::live
                                            : ProgressMode::lines);
  if (!child) {
    std::cout << banner("ARGS") << format_args_section(o.command_line);
    flush_or_throw(std::cout, "the log to standard output");  // before anything is loaded: a lost log stops at once
  }
  if (args.isolate && !child) {
    platform.reset();  // each child makes its own: the parent holds no device while they run
    const std::vector<std::string> words(argv, argv + argc);
    return finish(run_isolated_sweep(args, "/proc/self/exe", words, std::cout, std::cerr, report_failure), args);
  }
  if (child) {  // one combination; the parent reports the run's failures
    args.batch_sizes = {child->batch};
    args.input_sizes = {child->input};
  }
  std::ostream discard(nullptr);  // a later isolated child's RUNTIME, MODEL and META: the first one printed them
  std::ostream& section = !child || child->sections ? std::cout : discard;

  const bool grad = grad_enabled_requested(o.calls);
  const RuntimeInfo runtime = apply_runtime(o, *platform, grad, section);
  auto model = load_and_compile(o, *platform, section);
  // What --input_lengths feeds a package built for some shapes: refused before the GEMM probe and META.
  check_sweep_shapes(sweep_plan(o, std::nullopt, *platform), model->facts());
  const std::optional<GemmRate> rate = probe_gemm_rate(args, runtime, *platform, *model, section);
  // The probe's operands (up to three 16384^2 matrices on a GPU) stay cached by the allocator otherwise: device
  // memory no combination could have, and in every reserved peak after.
  platform->release_cached_memory();
  section << format_line(meta_line(args, runtime, *platform, *model, grad, rate)) << "\n";
  flush_or_throw(std::cout, "the log to standard output");
  if (platform->device().is_cpu() && (!child || child->sections)) {
    const std::string warning = native_dtype_warning(model->facts().dtype_name, runtime.isa);
    if (!warning.empty()) std::cerr << "warning: " << warning << std::endl;
  }

  InputGenerator inputs(model->facts().tokens, args.seed);
  const SweepPlan plan = sweep_plan(o, rate, *platform);
  check_batching(plan, *model, *platform);
  const int failures = run_sweep(plan, *model, *platform, inputs, std::cout, report_failure);
  if (child) return failures > 0 ? 1 : 0;
  return finish(failures, args);
}

// serve's command line: the serve options, then the sweep's without --reps (and without its sweep-only
// options), --batch_sizes and --input_sizes of one size each; what they set checked together.
std::pair<Options, ServeSetup> parse_serve(const std::vector<std::string>& words_in) {
  std::vector<std::string> words = words_in;
  ServeSetup setup;
  setup.args = take_serve_options(words);
  std::vector<const char*> argv = {"driver"};
  for (const auto& w : words) argv.push_back(w.c_str());
  Options o = parse_and_validate(static_cast<int>(argv.size()), argv.data(), serve_not_required());
  FixedArgs& args = o.command_line.args;
  const ServeShape shape = serve_shape(args, setup.args);
  setup.max_batch = shape.max_batch;
  setup.lengths = shape.lengths;
  setup.batching = shape.batching;
  setup.seed = args.seed;
  return {std::move(o), std::move(setup)};
}

// `driver serve ...`: the serving scenario (serve_run.hpp) on the model the sweep's options name. The serve
// options are taken out first; the rest is the sweep's command line, without --reps, with --input_sizes and
// --batch_sizes of one size each (the query length, the largest batch).
int serve(const std::vector<std::string>& words_in) {
  if (asks_for_help(words_in)) {
    std::cout << serve_usage();
    flush_or_throw(std::cout, "the help to standard output");
    return 0;
  }
  auto [o, setup] = parse_serve(words_in);
  FixedArgs& args = o.command_line.args;
  check_thread_environment([](const char* name) { return std::getenv(name); });
  auto platform = make_platform(args.platform, o.platform);
  check_platform_rules(*platform, o.command_line);
  check_compile_request(args.compile, o.compile, *platform);
  check_lengths_before_loading(args.lengths, args.model_path);
  set_progress_mode(args.quiet ? ProgressMode::off : isatty(STDERR_FILENO) ? ProgressMode::live : ProgressMode::lines);
  CommandLine echoed = o.command_line;
  for (const auto& w : setup.args.arg_words) echoed.arg_words.push_back(w);
  std::sort(echoed.arg_words.begin(), echoed.arg_words.end());
  std::cout << banner("ARGS") << format_args_section(echoed);
  flush_or_throw(std::cout, "the log to standard output");
  const bool grad = grad_enabled_requested(o.calls);
  const RuntimeInfo runtime = apply_runtime(o, *platform, grad, std::cout);
  auto model = load_and_compile(o, *platform, std::cout);
  const ModelFacts facts = model->facts();
  if (setup.batching == Batching::unpadded && (!facts.runs_unpadded || platform->constraints().single_input_size))
    throw usage_error("--batching unpadded runs in the native encoders only, on a platform that takes more than one "
                      "shape; use --batching padded or sorted");
  // What the batcher feeds a package built for some shapes, before its package is built (prepare).
  check_serve_shapes(setup, platform->constraints(), facts);
  // A query longer than the model's position table is refused now, before any level runs.
  if (facts.activation_bytes) facts.activation_bytes(setup.max_batch, setup.lengths.max);
  if (const std::optional<CompileFacts> compiled = model->prepare(setup.max_batch, setup.lengths.max))
    std::cout << format_line(make_compile_line(*compiled)) << "\n";
  std::cout << format_line(meta_line(args, runtime, *platform, *model, grad, std::nullopt)) << "\n" << banner("SERVE");
  flush_or_throw(std::cout, "the log to standard output");
  InputGenerator inputs(facts.tokens, args.seed);
  const int status = run_serve(setup, *model, *platform, inputs, std::cout);
  std::cout << "\n";
  flush_or_throw(std::cout, "the log to standard output");
  return status;
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
      {{"run", "EXPERIMENT (--out ROOT | --list) [OPTIONS]",
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
      {{"--cache", "list|report|clear [--cache_dir DIR]",
        "lists, reports (a table) or clears the compiled packages kept in $FMWORK_CACHE"},
       false,
       [](const std::vector<std::string>& args) {
         std::cout << run_cache_command(args);
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

int print_help(const std::string& text) {
  std::cout << text;
  flush_or_throw(std::cout, "the help to standard output");
  return 0;
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
  if (asks_for_help(words)) return print_help(driver_usage(subcommand_docs()));
  if (words.size() == 1 && words[0] == "--version") {
    std::cout << version_text("driver", FMWORK_GIT_REVISION);
    flush_or_throw(std::cout, "the version to standard output");
    return 0;
  }
  return run(argc, argv);
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
    if (std::cout.fail() && fmwork::reader_gone(STDOUT_FILENO)) return leave(0, log_start);  // the log's reader left
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
