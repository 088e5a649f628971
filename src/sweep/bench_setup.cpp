// What a benchmark needs before its first combination or load level (see bench_setup.hpp).
#include "fmwork/sweep/bench_setup.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "fmwork/base/error.hpp"
#include "fmwork/base/progress.hpp"
#include "fmwork/cli/option_sets.hpp"
#include "fmwork/cli/platform_rules.hpp"
#include "fmwork/compile/compile_model.hpp"
#include "fmwork/loaders/model_loader.hpp"
#include "fmwork/platform/platform_registry.hpp"
#include "fmwork/runtime/exception_cause.hpp"
#include "fmwork/runtime/torch_settings.hpp"
#include "fmwork/sweep/fed_shapes.hpp"

namespace fmwork {
namespace {

// --save_outputs and --profile make their folders before anything is loaded: one that cannot be made is found
// before a combination has run, not after each one.
void make_output_folder(const char* option, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec))
    throw usage_error(fmt::format("--{} {}: a file of that name exists; name a folder (it is made when absent)",
                                  option, excerpt(path, 200)));
  std::filesystem::create_directories(path, ec);
  if (ec || !std::filesystem::is_directory(path))
    throw usage_error(fmt::format("--{} {}: cannot make the folder ({})", option, excerpt(path, 200),
                                  ec ? ec.message() : std::string("a file of that name exists")));
  // A folder we may not write into would be found only after the first combination had run: try a file now
  // (access() would not do: it says yes to root on a read-only mount).
  std::string probe = path + "/.fmwork-probe-XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0)
    throw usage_error(fmt::format("--{} {}: cannot write into the folder ({}); give a folder you can write", option,
                                  excerpt(path, 200), std::strerror(errno)));
  ::close(fd);
  ::unlink(probe.c_str());
}

// --save_outputs and --profile make their folders; --check_outputs must name an existing one; the tolerances
// need the folder.
void check_output_folders(const DriverOptions& o) {
  const FixedArgs& a = o.command_line.args;
  check_tuned_options(o.command_line);
  std::error_code ec;  // a name the system refuses (too long) is no folder either, not a filesystem_error
  if (a.check_outputs && !std::filesystem::is_directory(*a.check_outputs, ec))
    throw usage_error("--check_outputs " + excerpt(*a.check_outputs, 200) +
                      " is not a folder; give the folder --save_outputs wrote");
  if (a.save_outputs) make_output_folder("save_outputs", *a.save_outputs);
  if (a.profile) make_output_folder("profile", *a.profile);
  check_output_folders_differ(a);
}

void check_platform_rules(const Platform& platform, const CommandLine& command_line) {
  const PlatformFacts facts = platform.facts();
  const auto refusals = check_constraints(facts.name, facts.constraints, command_line);
  if (refusals.empty()) return;
  std::string message = fmt::format("--platform {} cannot run this command line:", facts.name);
  for (const auto& r : refusals) message += " " + r;
  throw usage_error(message);
}

// One line (or several, '\n' between them) of a section's free text, through log_text: the RUNTIME and MODEL
// sections quote a model's files, a plugin's strings and paths, none of which may write a line of its own.
void text_line(std::ostream& section, std::string_view text) { section << log_text(text) << "\n"; }

// The RUNTIME section (to `section`): applies the torch settings, then autograd as asked (after them, so
// that it holds); prints the platform, LibTorch and its libraries.
RuntimeInfo apply_runtime(const DriverOptions& o, const Platform& platform, bool grad, const std::string& revision,
                          std::ostream& section) {
  section << banner("RUNTIME");
  for (const auto& line : apply_torch_settings(o.calls, o.sets)) text_line(section, line);
  c10::GradMode::set_enabled(grad);
  text_line(section, grad ? "autograd: on (--torch.call:set_grad_enabled@ True)"
                          : "autograd: off (upstream leaves it on; --torch.call:set_grad_enabled@ True turns it on)");
  const PlatformFacts facts = platform.facts();  // after the torch settings: the cpu's description counts threads
  check_sdpa_kernels(facts.device, facts.name);
  text_line(section, fmt::format("platform: {} ({})", facts.name, facts.description));
  const RuntimeInfo runtime = runtime_info();
  text_line(section, fmt::format("LibTorch {}, driver {} ({})", runtime.torch_version, FMWORK_VERSION, revision));
  text_line(section, describe_runtime(runtime));
  section << std::flush;
  return runtime;
}

// The MODEL section (to `section`): loads and compiles the model; SETUP (to `log`, always) times it from
// the start of loading to ready.
// `runtime` is set to what runs the model (META runtime=).
std::unique_ptr<Model> load_and_compile(const DriverOptions& o, Platform& platform, std::ostream& section,
                                        std::ostream& log, std::string& runtime) {
  const FixedArgs& args = o.command_line.args;
  section << banner("MODEL") << std::flush;
  // On a terminal only: a log file gets no line for a load that takes a second (a compile step says its own).
  progress_live("loading " + args.model_path + (args.compile ? " and compiling it" : "") + " ...");
  const Nanos t0 = clock_now();
  auto model = load_model(LoadRequest{args.model_path, args.model_class, o.model, platform.facts().device,
                                      compiles_from_folder(args.compile, o.compile, platform)});
  if (args.eval) model->eval();
  const ModelSource source{args.model_path, args.model_class, o.command_line.subs.at("model")};
  Compiled compiled = compile_model(std::move(model), CompileRequest{args.compile, args.eval, o.compile, source},
                                    platform);
  model = std::move(compiled.model);
  runtime = compiled.runtime.empty() ? model->facts().runtime : compiled.runtime;
  platform.synchronize();
  const Nanos t1 = clock_now();

  text_line(section, model->facts().description);
  for (const auto& note : o.model.ignored) text_line(section, note);
  for (const auto& note : compiled.notes) text_line(section, note);
  if (compiled.compile_line) section << format_line(make_compile_line(*compiled.compile_line)) << "\n";
  section << "\n";
  log << format_line(SetupLine{static_cast<double>(t1 - t0) / 1e9}) << "\n";
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
    text_line(section, describe_gemm_rate(rate));
    if (!note.empty()) text_line(section, note);
    return rate;
  } catch (const std::exception& e) {
    text_line(section, "gemm rate: not measured (" + exception_cause(e) + "); STAT has no of_peak");
    return std::nullopt;
  }
}

// Why --batching unpadded cannot run `model` on `platform` (one line, naming the option), or "": the one rule
// behind check_batching's refusal and default_batching's choice.
std::string unpadded_refusal(const ModelFacts& model, const PlatformFacts& platform) {
  if (platform.constraints.single_input_size)
    return "--batching unpadded: --platform " + platform.name + " runs one shape per run; its batches are padded "
           "to the input size (--batching padded)";
  if (!model.runs_unpadded)
    return "--batching unpadded runs in the native encoders only (a Hugging Face folder run by the driver itself, "
           "without --compile); this model is fed padded batches: use --batching padded or sorted";
  return "";
}

// The sweep the command line asks for: its options as read, the batching the setup chose, what the platform implies.
SweepPlan plan_of(const DriverOptions& o, const Platform& platform, Batching batching) {
  SweepPlan plan;
  plan.args = o.command_line.args;
  plan.check = o.check;
  plan.cpu_reference = cpu_reference_of(o, platform);
  plan.batching = batching;
  plan.one_shape = platform.facts().constraints.single_input_size;
  return plan;
}

// META for the run.
MetaLine bench_meta(const FixedArgs& args, const BenchSetup& bench) {
  const RuntimeInfo& runtime = bench.runtime;
  const Platform& platform = *bench.platform;
  const Model& model = *bench.model;
  const bool grad = bench.grad;
  const std::optional<GemmRate>& rate = bench.rate;
  MetaFacts f;
  f.driver = FMWORK_VERSION;
  f.git = bench.revision;
  f.torch = runtime.torch_version;
  f.blas = to_log_token(runtime.blas);
  f.onednn = runtime.onednn;
  f.parallel = to_log_token(runtime.parallel);
  const PlatformFacts platform_facts = platform.facts();
  f.platform = platform_facts.name;
  f.device = to_log_token(platform_facts.description);
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
  if (args.lengths || args.batching) f.batching = batching_name(bench.batching);
  if (args.lengths) f.lengths = to_log_token(length_spec_text(*args.lengths));
  // What computation ran, where the model says: eager attention against sdpa, or the GELU epilogue on and off,
  // are different experiments, and --compare refuses to pair them (significant_meta_keys).
  f.attention = facts.attention;
  if (facts.gelu_epilogue) f.gelu_epilogue = *facts.gelu_epilogue ? "true" : "false";
  f.runtime = to_log_token(bench.model_runtime);
  if (rate) {
    f.gemm_gflops = rate->gflops;
    f.gemm_probe = rate->how();
  }
  return make_meta_line(f);
}

}  // namespace

std::optional<CpuReference> cpu_reference_of(const DriverOptions& o, const Platform& platform) {
  const FixedArgs& args = o.command_line.args;
  if (!holds_against_cpu(args.compile && !o.compile.disable, platform.facts().device, args.check_outputs.has_value(),
                         o.check))
    return std::nullopt;
  const LoadRequest request{args.model_path, args.model_class, o.model, torch::kCPU};
  return CpuReference{[request, eval = args.eval] {
    std::unique_ptr<Model> model = load_model(request);
    if (eval) model->eval();
    return model;
  }};
}

DriverOptions parse_driver_options(int argc, const char* const* argv, Command command) {
  DriverOptions o;
  o.command_line = parse_command_line(argc, argv, command);
  const auto& subs = o.command_line.subs;
  o.compile = compile_options_from(subs.at("compile"));
  o.model = model_options_from(subs.at("model"));
  o.calls = torch_calls_from(subs.at("torch.call"));
  o.sets = torch_sets_from(subs.at("torch.set"));
  if (auto it = subs.find("platform"); it != subs.end()) o.platform = platform_options_from(it->second);
  if (auto it = subs.find("check_outputs"); it != subs.end()) o.check = check_options_from(it->second);
  check_output_folders(o);
  return o;
}

std::unique_ptr<Platform> open_platform(const DriverOptions& o) {
  check_thread_environment([](const char* name) { return std::getenv(name); });
  const FixedArgs& args = o.command_line.args;
  auto platform = make_platform(args.platform, o.platform);
  check_platform_rules(*platform, o.command_line);
  check_compile_request(args.compile, o.compile, *platform);  // CUDA graphs off cuda: refused before loading
  // One rule for --input_sizes and --input_lengths: refused before the weights are read, not a FAIL line after.
  check_positions_before_loading(args, platform->facts().constraints.single_input_size);
  return platform;
}

BenchSetup load_bench(const DriverOptions& o, std::unique_ptr<Platform> platform, const std::string& revision,
                      std::ostream& section, std::ostream& log) {
  BenchSetup bench;
  bench.platform = std::move(platform);
  bench.revision = revision;
  bench.grad = grad_enabled_requested(o.calls);
  bench.runtime = apply_runtime(o, *bench.platform, bench.grad, revision, section);
  bench.model = load_and_compile(o, *bench.platform, section, log, bench.model_runtime);
  const FixedArgs& args = o.command_line.args;
  bench.batching = args.batching.value_or(
      default_batching(args.lengths.has_value(), bench.model->facts(), bench.platform->facts()));
  if (args.lengths && !args.batching)
    text_line(section, "batching: " + std::string(batching_name(bench.batching)) +
                           (bench.batching == Batching::unpadded
                                ? " (--batching not given: the default on mixed lengths where the model runs packed "
                                  "tokens; --batching padded or sorted for the others)"
                                : " (--batching not given: this model or platform runs padded batches only)"));
  return bench;
}

void finish_bench(const DriverOptions& o, BenchSetup& bench) {
  const FixedArgs& args = o.command_line.args;
  bench.platform->release_cached_memory();
  if (bench.platform->facts().device.is_cpu())
    bench.dtype_warning = native_dtype_warning(bench.model->facts().dtype_name, bench.runtime.isa);
  bench.meta = bench_meta(args, bench);
  bench.inputs.emplace(bench.model->facts().tokens, args.seed);
}

Batching default_batching(bool mixed_lengths, const ModelFacts& model, const PlatformFacts& platform) {
  return mixed_lengths && unpadded_refusal(model, platform).empty() ? Batching::unpadded : Batching::padded;
}

void check_batching(Batching batching, const BenchSetup& bench) {
  if (batching != Batching::unpadded) return;
  const std::string why = unpadded_refusal(bench.model->facts(), bench.platform->facts());
  if (!why.empty()) throw usage_error(why);
}

std::pair<BenchSetup, SweepPlan> sweep_setup(const DriverOptions& o, std::unique_ptr<Platform> platform,
                                             const std::string& revision, std::ostream& section, std::ostream& log) {
  BenchSetup bench = load_bench(o, std::move(platform), revision, section, log);
  SweepPlan plan = plan_of(o, *bench.platform, bench.batching);
  // What --input_lengths feeds a package built for some shapes: refused before the GEMM probe and META.
  check_sweep_shapes(plan, bench.model->facts());
  bench.rate = probe_gemm_rate(o.command_line.args, bench.runtime, *bench.platform, *bench.model, section);
  if (bench.rate) plan.peak_gflops = bench.rate->gflops;
  finish_bench(o, bench);
  return {std::move(bench), std::move(plan)};
}

}  // namespace fmwork
