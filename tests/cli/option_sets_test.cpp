// Tests of the typed option sets built from the sub-option trees: values, unknown keys, wrong types.
#include "fmwork/cli/option_sets.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "fmwork/base/text_format.hpp"
#include "fmwork/cli/cli.hpp"
#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

// The sub-option tree of one set, as the command line builds it.
Value tree_of(const std::string& set, const std::vector<std::string>& subs) {
  std::vector<std::string> words = {"driver", "--platform", "cpu", "--model_name", "m", "--model_class", "B",
                                    "--input_sizes", "1", "--batch_sizes", "1", "--reps", "2"};
  words.insert(words.end(), subs.begin(), subs.end());
  std::vector<const char*> argv;
  for (const auto& w : words) argv.push_back(w.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data()).subs.at(set);
}

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    return e.what();
  }
  return "";
}

TEST(OptionSets, CompileDefaults) {
  const CompileOptions c = compile_options_from(Value::of_dict({}));
  EXPECT_EQ(c.backend, "inductor");
  EXPECT_FALSE(c.mode.has_value());
  EXPECT_FALSE(c.dynamic.has_value());
  EXPECT_FALSE(c.fullgraph);
  EXPECT_FALSE(c.disable);
  EXPECT_EQ(c.options, Value::of_dict({}));
  EXPECT_EQ(c.raw, Value::of_dict({}));
}

TEST(OptionSets, CompileFromCommandLine) {
  const Value tree = tree_of("compile", {"--compile:backend", "cudagraphs", "--compile:mode", "reduce-overhead",
                                         "--compile:dynamic@", "False", "--compile:fullgraph@", "True",
                                         "--compile:disable@", "False", "--compile:options:max_autotune@", "True",
                                         "--compile:options:level", "3"});
  const CompileOptions c = compile_options_from(tree);
  EXPECT_EQ(c.backend, "cudagraphs");
  EXPECT_EQ(c.mode, std::optional<std::string>("reduce-overhead"));
  EXPECT_EQ(c.dynamic, std::optional<bool>(false));
  EXPECT_TRUE(c.fullgraph);
  EXPECT_FALSE(c.disable);
  EXPECT_EQ(c.options,
            Value::of_dict({{"level", Value::of_string("3")}, {"max_autotune", Value::of_bool(true)}}));
  EXPECT_EQ(c.raw, tree);
  // dynamic=None is torch.compile's default, given explicitly.
  EXPECT_FALSE(compile_options_from(tree_of("compile", {"--compile:dynamic@", "None"})).dynamic.has_value());
  // A whole options dict given with '@'.
  EXPECT_EQ(compile_options_from(tree_of("compile", {"--compile:options@", "{'b': 1}"})).options,
            Value::of_dict({{"b", Value::of_int(1)}}));
}

TEST(OptionSets, CompileErrors) {
  EXPECT_EQ(error_of([] { compile_options_from(tree_of("compile", {"--compile:bakend", "inductor"})); }),
            "unknown option --compile:bakend; did you mean --compile:backend?; known --compile: keys are backend, "
            "disable, dynamic, fullgraph, mode, options");
  EXPECT_EQ(error_of([] { compile_options_from(tree_of("compile", {"--compile:dynamic", "True"})); }),
            "--compile:dynamic expects a bool (True or False) or None; got the string 'True' \u2014 add '@' to the "
            "key to pass a typed value: --compile:dynamic@ True");
  EXPECT_EQ(error_of([] { compile_options_from(tree_of("compile", {"--compile:dynamic@", "1"})); }),
            "--compile:dynamic expects a bool (True or False) or None; got the int 1");
  EXPECT_EQ(error_of([] { compile_options_from(tree_of("compile", {"--compile:fullgraph", "yes"})); }),
            "--compile:fullgraph expects a bool (True or False); got the string 'yes'");
  EXPECT_EQ(error_of([] { compile_options_from(tree_of("compile", {"--compile:disable", "False"})); }),
            "--compile:disable expects a bool (True or False); got the string 'False' \u2014 add '@' to the key to "
            "pass a typed value: --compile:disable@ False");
  EXPECT_EQ(error_of([] { compile_options_from(tree_of("compile", {"--compile:backend@", "None"})); }),
            "--compile:backend expects a string; got None");
  EXPECT_EQ(error_of([] { compile_options_from(tree_of("compile", {"--compile:mode:x", "1"})); }),
            "--compile:mode expects a string; got the dict {'x': '1'}");
  EXPECT_EQ(error_of([] { compile_options_from(tree_of("compile", {"--compile:options", "max_autotune"})); }),
            "--compile:options expects a dict (--compile:options:KEY VALUE, or a dict given with '@'); got the "
            "string 'max_autotune'");
  // A mode torch.compile does not know failed each combination in the exporter's argparse words ("argument
  // --mode: invalid choice: 'turbo'"), after the model had loaded; now one usage line first.
  EXPECT_EQ(error_of([] { compile_options_from(tree_of("compile", {"--compile:mode", "turbo"})); }),
            "--compile:mode expects one of default, max-autotune, max-autotune-no-cudagraphs, reduce-overhead; got "
            "'turbo'");
  EXPECT_EQ(error_of([] { compile_options_from(tree_of("compile", {"--compile:mode", "max_autotune"})); }),
            "--compile:mode expects one of default, max-autotune, max-autotune-no-cudagraphs, reduce-overhead; got "
            "'max_autotune'; did you mean max-autotune?");
  for (const char* mode : {"default", "max-autotune", "max-autotune-no-cudagraphs", "reduce-overhead"})
    EXPECT_EQ(compile_options_from(tree_of("compile", {"--compile:mode", mode})).mode, std::optional<std::string>(mode));
  EXPECT_EQ(error_of([] { compile_options_from(tree_of("compile", {"--compile:options", "{}"})); }),
            "--compile:options expects a dict (--compile:options:KEY VALUE, or a dict given with '@'); got the "
            "string '{}' \u2014 add '@' to the key to pass a typed value: --compile:options@ {}");
}

TEST(OptionSets, ModelFromCommandLine) {
  const ModelOptions m = model_options_from(
      tree_of("model", {"--model:torch_dtype@", "torch.half", "--model:attn_implementation", "sdpa",
                        "--model:add_pooling_layer@", "False", "--model:vocab_size@", "30522",
                        "--model:random_weights@", "True", "--model:random_weights_seed@", "7"}));
  EXPECT_EQ(m.dtype, std::optional<std::string>("float16"));
  EXPECT_EQ(m.attn_implementation, std::optional<std::string>("sdpa"));
  EXPECT_EQ(m.add_pooling_layer, std::optional<bool>(false));
  EXPECT_EQ(m.vocab_size, std::optional<int64_t>(30522));
  EXPECT_TRUE(m.random_weights);
  EXPECT_EQ(m.random_weights_seed, std::optional<int64_t>(7));

  const ModelOptions none = model_options_from(Value::of_dict({}));
  EXPECT_FALSE(none.dtype.has_value());
  EXPECT_FALSE(none.attn_implementation.has_value());
  EXPECT_FALSE(none.add_pooling_layer.has_value());
  EXPECT_FALSE(none.vocab_size.has_value());
  EXPECT_FALSE(none.random_weights);
  EXPECT_FALSE(none.random_weights_seed.has_value());
}

TEST(OptionSets, ModelDtypeForms) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--model:torch_dtype@", "torch.bfloat16"}, "bfloat16"},
      {{"--model:torch_dtype@", "torch.float"}, "float32"},
      {{"--model:torch_dtype", "float16"}, "float16"},
      {{"--model:torch_dtype", "torch.float16"}, "float16"},
      {{"--model:torch_dtype", "auto"}, "auto"},
      {{"--model:dtype", "bfloat16"}, "bfloat16"},
      {{"--model:dtype@", "'float32'"}, "float32"},
      {{"--model:dtype", "half"}, "float16"},
  };
  for (const auto& [words, expected] : cases) {
    SCOPED_TRACE(words[0] + " " + words[1]);
    EXPECT_EQ(model_options_from(tree_of("model", words)).dtype, std::optional<std::string>(expected));
  }
}

// Keywords from_pretrained takes that mean nothing for a local folder are accepted and listed as ignored;
// ones that would change the numbers stay refused, and the message lists both kinds.
TEST(OptionSets, HubOnlyModelKeysAreIgnoredWithAReason) {
  ModelOptions o = model_options_from(
      tree_of("model", {"--model:trust_remote_code@", "True", "--model:revision", "main", "--model:dtype", "bfloat16"}));
  EXPECT_EQ(o.dtype, std::optional<std::string>("bfloat16"));
  ASSERT_EQ(o.ignored.size(), 2u);
  EXPECT_EQ(o.ignored[0], "--model:revision 'main' ignored: it picks a Hub revision; a local folder is one revision");
  EXPECT_EQ(o.ignored[1], "--model:trust_remote_code True ignored: it allows a model's own Python code; the native "
                          "encoder and TorchScript run none");
}

// Defect: `--model:attn_implementation SDPA` was refused with no hint: a choice is offered whatever its case.
TEST(OptionSets, AChoiceInAnotherCaseIsOffered) {
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:attn_implementation", "SDPA"})); }),
            "--model:attn_implementation expects one of eager, sdpa; got 'SDPA'; did you mean sdpa?");
}

TEST(OptionSets, ModelErrors) {
  const std::string known =
      "; known --model: keys are add_pooling_layer, attn_implementation, dtype, gelu_epilogue, packed_gemm, random_weights, "
      "random_weights_seed, torch_dtype, vocab_size (accepted and ignored, as meaningless for a local folder: "
      "revision, trust_remote_code, local_files_only, force_download, resume_download, cache_dir, proxies, token, "
      "use_auth_token, low_cpu_mem_usage, use_safetensors, _fast_init)";
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:torch_dtyp", "bfloat16"})); }),
            "unknown option --model:torch_dtyp; did you mean --model:torch_dtype?" + known);
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:revison", "main"})); }),
            "unknown option --model:revison; did you mean --model:revision?" + known)
      << "the accepted-and-ignored keys are offered too";
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:variant", "fp16"})); }),
            "unknown option --model:variant; known --model: keys are add_pooling_layer, "
            "attn_implementation, dtype, gelu_epilogue, packed_gemm, random_weights, random_weights_seed, torch_dtype, vocab_size "
            "(accepted and "
            "ignored, as meaningless for a local folder: revision, trust_remote_code, local_files_only, "
            "force_download, resume_download, cache_dir, proxies, token, use_auth_token, low_cpu_mem_usage, "
            "use_safetensors, _fast_init)");
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:add_pooling_layer", "False"})); }),
            "--model:add_pooling_layer expects a bool (True or False); got the string 'False' \u2014 add '@' to the "
            "key to pass a typed value: --model:add_pooling_layer@ False");
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:vocab_size", "30522"})); }),
            "--model:vocab_size expects an int; got the string '30522' \u2014 add '@' to the key to pass a typed "
            "value: --model:vocab_size@ 30522");
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:vocab_size@", "True"})); }),
            "--model:vocab_size expects an int; got the bool True");
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:vocab_size@", "0"})); }),
            "--model:vocab_size must be a positive integer; got 0");
  // 2^62 reached the input generator, whose table of ids threw "vector::reserve".
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:vocab_size@", "4611686018427387904"})); }),
            "--model:vocab_size must be at most 16777216; got 4611686018427387904");
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:random_weights_seed@", "1.5"})); }),
            "--model:random_weights_seed expects an int; got the float 1.5");
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:attn_implementation", "flash"})); }),
            "--model:attn_implementation expects one of eager, sdpa; got 'flash'");
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:torch_dtype@", "torch.int8"})); }),
            "--model:torch_dtype expects torch.float32, torch.float16, torch.bfloat16, or one of the strings "
            "float32, float16, bfloat16, auto; got the torch.dtype torch.int8");
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:torch_dtype", "fp16"})); }),
            "--model:torch_dtype expects torch.float32, torch.float16, torch.bfloat16, or one of the strings "
            "float32, float16, bfloat16, auto; got the string 'fp16'; did you mean float16?");
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:torch_dtype", "bf16"})); }),
            "--model:torch_dtype expects torch.float32, torch.float16, torch.bfloat16, or one of the strings "
            "float32, float16, bfloat16, auto; got the string 'bf16'; did you mean bfloat16?");
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:dtype", "torch.bfloat"})); }),
            "--model:dtype expects torch.float32, torch.float16, torch.bfloat16, or one of the strings "
            "float32, float16, bfloat16, auto; got the string 'torch.bfloat'; did you mean bfloat16?");
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:torch_dtype", "int8"})); }),
            "--model:torch_dtype expects torch.float32, torch.float16, torch.bfloat16, or one of the strings "
            "float32, float16, bfloat16, auto; got the string 'int8'")
      << "nothing close: no guess";
  EXPECT_EQ(error_of([] { model_options_from(tree_of("model", {"--model:attn_implementation", "sdap"})); }),
            "--model:attn_implementation expects one of eager, sdpa; got 'sdap'; did you mean sdpa?");
  EXPECT_EQ(error_of([] {
              model_options_from(tree_of("model", {"--model:torch_dtype", "float16", "--model:dtype", "float16"}));
            }),
            "--model:dtype and --model:torch_dtype are both given; give one of them");
}

TEST(OptionSets, TorchCallsAndSetsInSortedOrder) {
  const TorchCalls calls = torch_calls_from(
      tree_of("torch.call", {"--torch.call:set_num_threads@", "2", "--torch.call:set_grad_enabled@", "False",
                             "--torch.call:manual_seed", "0"}));
  ASSERT_EQ(calls.calls.size(), 3u);
  EXPECT_EQ(calls.calls[0].first, "manual_seed");
  EXPECT_EQ(calls.calls[0].second, Value::of_int(0)) << "a plain value read as its name's type, as upstream's eval";
  EXPECT_EQ(calls.calls[1].first, "set_grad_enabled");
  EXPECT_EQ(calls.calls[1].second, Value::of_bool(false));
  EXPECT_EQ(calls.calls[2].first, "set_num_threads");
  EXPECT_EQ(calls.calls[2].second, Value::of_int(2));

  const TorchSets sets = torch_sets_from(tree_of(
      "torch.set", {"--torch.set:backends.cudnn.benchmark@", "True", "--torch.set:backends.cuda.matmul.allow_tf32@",
                    "False"}));
  ASSERT_EQ(sets.sets.size(), 2u);
  EXPECT_EQ(sets.sets[0].first, "backends.cuda.matmul.allow_tf32");
  EXPECT_EQ(sets.sets[1].first, "backends.cudnn.benchmark");
  EXPECT_EQ(sets.sets[1].second, Value::of_bool(true));

  // Built by hand in another order, they still come out sorted.
  const TorchCalls unsorted =
      torch_calls_from(Value::of_dict({{"set_num_threads", Value::of_int(1)}, {"manual_seed", Value::of_int(2)}}));
  EXPECT_EQ(unsorted.calls[0].first, "manual_seed");
  EXPECT_TRUE(torch_calls_from(Value::of_dict({})).calls.empty());
}

TEST(OptionSets, TorchCallsAndSetsRefuseNesting) {
  EXPECT_EQ(error_of([] { torch_calls_from(tree_of("torch.call", {"--torch.call:x:y", "1"})); }),
            "--torch.call:x cannot hold nested keys or a dict (--torch.call:x:y); write --torch.call:NAME VALUE");
  EXPECT_EQ(error_of([] { torch_sets_from(tree_of("torch.set", {"--torch.set:a@", "{}"})); }),
            "--torch.set:a cannot hold nested keys or a dict; write --torch.set:PATH VALUE (PATH with dots, like "
            "backends.cudnn.benchmark)");
}

// Defect: a misspelt --torch.call: or --torch.set: name passed the command line's checks (and an experiment's)
// and was refused by LibTorch's side at start-up, listing the names but not the one meant.
TEST(OptionSets, TorchNamesAreTheDocumentedOnesWithTheOneMeant) {
  const std::string calls = error_of([] { torch_calls_from(tree_of("torch.call", {"--torch.call:set_num_thread@", "2"})); });
  EXPECT_EQ(calls.rfind("unknown option --torch.call:set_num_thread; did you mean --torch.call:set_num_threads?; "
                        "known --torch.call: keys are ", 0), 0u) << calls;
  EXPECT_NE(calls.find("use_deterministic_algorithms"), std::string::npos) << calls;
  EXPECT_EQ(error_of([] { torch_sets_from(tree_of("torch.set", {"--torch.set:backends.cudnn.benchmarks@", "True"})); })
                .rfind("unknown option --torch.set:backends.cudnn.benchmarks; did you mean "
                       "--torch.set:backends.cudnn.benchmark?; known --torch.set: keys are ", 0),
            0u);
  // Each documented name takes its example (its value typed and checked: driver run refuses what the driver would).
  for (const OptionSetDoc& doc : torch_setting_docs())
    for (const OptionKeyDoc& key : doc.keys) {
      const size_t space = key.example.find(' ');
      const Value tree = tree_of(doc.set, {key.example.substr(0, space), key.example.substr(space + 1)});
      EXPECT_NO_THROW(doc.set == "torch.call" ? (void)torch_calls_from(tree) : (void)torch_sets_from(tree)) << key.key;
    }
  EXPECT_EQ(error_of([] { torch_calls_from(tree_of("torch.call", {"--torch.call:set_num_threads@", "True"})); }),
            "--torch.call:set_num_threads expects an int; got the bool True");
  EXPECT_EQ(error_of([] { torch_calls_from(tree_of("torch.call", {"--torch.call:set_num_threads", "two"})); }),
            "--torch.call:set_num_threads expects an int; got the string 'two'");
}

TEST(OptionSets, PlatformOptionsAsStrings) {
  const PlatformOptions p = platform_options_from(
      tree_of("platform", {"--platform:device@", "0", "--platform:mode", "fast", "--platform:sizes@", "[1, 2]",
                           "--platform:name@", "'x'"}));
  EXPECT_EQ(p.entries, (std::vector<std::pair<std::string, std::string>>{
                           {"device", "0"}, {"mode", "fast"}, {"name", "x"}, {"sizes", "[1, 2]"}}));
  EXPECT_EQ(error_of([] { platform_options_from(tree_of("platform", {"--platform:a:b", "1"})); }),
            "--platform:a cannot hold nested keys or a dict (--platform:a:b); write --platform:KEY VALUE");
}

// The builder of a tabled set, so that tests can walk option_set_docs().
void build(const std::string& set, const Value& tree) {
  if (set == "compile") compile_options_from(tree);
  else if (set == "model") model_options_from(tree);
  else if (set == "check_outputs") check_options_from(tree);
  else ADD_FAILURE() << "no builder for --" << set << ":";
}

// An option as typed, as two words: "--model:vocab_size@ 30522" -> {"--model:vocab_size@", "30522"}.
std::vector<std::string> words_of(const std::string& option) {
  const size_t space = option.find(' ');
  return {option.substr(0, space), space == std::string::npos ? "" : option.substr(space + 1)};
}

TEST(OptionSets, TheTabledSets) {
  std::vector<std::string> sets;
  for (const auto& doc : option_set_docs()) sets.push_back(doc.set);
  EXPECT_EQ(sets, (std::vector<std::string>{"compile", "model", "check_outputs"}));
}

// Each key of a table, and each alias in its place, is accepted with the table's example value, and a value
// of no kind at all (a list) is refused with the type the table names: the tables are the builders'.
TEST(OptionSets, EveryTableKeyIsAcceptedAndTyped) {
  for (const auto& doc : option_set_docs()) {
    for (const auto& key : doc.keys) {
      SCOPED_TRACE(key.example);
      const std::string option = "--" + doc.set + ":" + key.key;
      ASSERT_EQ(key.example.rfind(option, 0), 0u);
      ASSERT_NE(std::string("@ :").find(key.example.at(option.size())), std::string::npos);
      const std::string rest = key.example.substr(option.size());
      std::vector<std::string> spellings = key.aliases;
      spellings.insert(spellings.begin(), key.key);
      for (const auto& spelling : spellings) {
        const std::string typed = "--" + doc.set + ":" + spelling;
        EXPECT_EQ(error_of([&] { build(doc.set, tree_of(doc.set, words_of(typed + rest))); }), "") << spelling;
        EXPECT_EQ(error_of([&] { build(doc.set, tree_of(doc.set, {typed + "@", "[]"})); }),
                  typed + " expects " + key.type + "; got the list []");
      }
      EXPECT_FALSE(key.help.empty());
    }
  }
}

TEST(OptionSets, UnknownKeyListsExactlyTheTableKeys) {
  for (const auto& doc : option_set_docs()) {
    std::vector<std::string> known;
    for (const auto& key : doc.keys) {
      known.push_back(key.key);
      known.insert(known.end(), key.aliases.begin(), key.aliases.end());
    }
    std::sort(known.begin(), known.end());
    std::string expected = "unknown option --" + doc.set + ":no_such_key; known --" + doc.set + ": keys are " + joined(known);
    if (doc.set == "model") {
      std::vector<std::string> ignored;
      for (const auto& key : ignored_model_keys()) ignored.push_back(key.key);
      expected += " (accepted and ignored, as meaningless for a local folder: " + joined(ignored) + ")";
    }
    EXPECT_EQ(error_of([&] { build(doc.set, tree_of(doc.set, {"--" + doc.set + ":no_such_key", "1"})); }), expected);
  }
}

// The ignored keys are rows of the --model: table (option_set_docs()'s `ignored`): any value, its own example
// included, is taken and named in MODEL with the row's help as why.
TEST(OptionSets, EveryIgnoredModelKeyIsIgnoredWithItsReason) {
  const OptionSetDoc& model = option_set_docs().at(1);
  ASSERT_EQ(model.set, "model");
  std::vector<std::string> keys, secret;
  for (const auto& key : model.ignored) {
    keys.push_back(key.key);
    if (key.secret) secret.push_back(key.key);
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"revision", "trust_remote_code", "local_files_only", "force_download",
                                            "resume_download", "cache_dir", "proxies", "token", "use_auth_token",
                                            "low_cpu_mem_usage", "use_safetensors", "_fast_init"}));
  EXPECT_EQ(secret, (std::vector<std::string>{"proxies", "token", "use_auth_token"}));
  for (const auto& key : ignored_model_keys()) {
    for (const auto& words : {std::vector<std::string>{"--model:" + key.key, "x"}, words_of(key.example)}) {
      const ModelOptions o = model_options_from(tree_of("model", words));
      ASSERT_EQ(o.ignored.size(), 1u) << key.key;
      EXPECT_EQ(o.ignored[0].substr(o.ignored[0].size() - key.help.size() - 10), " ignored: " + key.help);
    }
  }
  // Credentials and proxy addresses stay out of the MODEL line.
  EXPECT_EQ(model_options_from(tree_of("model", {"--model:token", "hf_x"})).ignored[0],
            "--model:token <not shown> ignored: no Hub access is made");
}

// The secrets are the ignored keys' rows marked secret, the one table every writer asks (through
// is_secret_key; sub_options_test.cpp has the words).
TEST(OptionSets, SecretsAreTheRowsMarkedSecret) {
  std::vector<std::string> secret;
  for (const auto& key : ignored_model_keys())
    if (key.secret) secret.push_back(key.key);
  EXPECT_EQ(secret, (std::vector<std::string>{"proxies", "token", "use_auth_token"}));
  for (const auto& key : ignored_model_keys()) EXPECT_EQ(is_secret_key("model", key.key), key.secret) << key.key;
  EXPECT_FALSE(is_secret_key("compile", "token"));
  const Value tree = tree_without_secrets("model", tree_of("model", {"--model:token", "hf_x", "--model:proxies:a", "b",
                                                                     "--model:revision", "main"}));
  EXPECT_EQ(repr(tree), "{'proxies': '<not shown>', 'revision': 'main', 'token': '<not shown>'}");
  // A hidden value still reads: a line planned without its secrets runs as it would have.
  EXPECT_EQ(model_options_from(tree_of("model", {"--model:proxies@", "'<not shown>'"})).ignored.size(), 1u);
}

TEST(OptionSets, CheckOptionsRanges) {
  const CheckOptions c = check_options_from(
      tree_of("check_outputs", {"--check_outputs:atol@", "0", "--check_outputs:rtol@", "1e-3",
                                "--check_outputs:cosine@", "1"}));
  EXPECT_EQ(c.atol, std::optional<double>(0.0));
  EXPECT_EQ(c.rtol, std::optional<double>(1e-3));
  EXPECT_EQ(c.cosine, std::optional<double>(1.0));
  EXPECT_TRUE(c.cpu);  // held against the CPU unless told otherwise
  EXPECT_FALSE(check_options_from(tree_of("check_outputs", {"--check_outputs:cpu@", "False"})).cpu);
  const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
      {{"--check_outputs:atol@", "-1"}, "--check_outputs:atol must be a finite number >= 0; got -1"},
      // 1e999 reads as inf: a check that can never fail.
      {{"--check_outputs:atol@", "1e999"}, "--check_outputs:atol must be a finite number >= 0; got inf"},
      {{"--check_outputs:rtol@", "-1e999"}, "--check_outputs:rtol must be a finite number >= 0; got -inf"},
      {{"--check_outputs:cosine@", "1.5"}, "--check_outputs:cosine must be in [0, 1]; got 1.5"},
      {{"--check_outputs:rtol", "0.1"},
       "--check_outputs:rtol expects a number (an int or a float); got the string '0.1' \u2014 add '@' to the key to "
       "pass a typed value: --check_outputs:rtol@ 0.1"},
      {{"--check_outputs:cpu", "no"}, "--check_outputs:cpu expects a bool (True or False); got the string 'no'"},
  };
  for (const auto& [words, expected] : refused)
    EXPECT_EQ(error_of([&words = words] { check_options_from(tree_of("check_outputs", words)); }), expected);
}

}  // namespace
}  // namespace fmwork
