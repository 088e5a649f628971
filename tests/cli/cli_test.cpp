// Tests of the command line: the parsed fields, the sub-option trees and every usage error. The fixed
// options' table: fixed_options_test.cpp; the ARGS section: args_section_test.cpp; the help: usage_test.cpp.
#include "fmwork/cli/cli.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "support/cli_fixtures.hpp"

namespace fmwork {
namespace {

using cli_fixtures::parse;

// The usage error a command line gives ("" when it parses).
std::string error_of(const std::vector<std::string>& words) {
  try {
    parse(words);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    return e.what();
  }
  return "";
}

std::vector<std::string> base_with(std::vector<std::string> extra) {
  std::vector<std::string> words = {"--platform", "cpu", "--model_name", "m", "--model_class", "BertModel",
                                    "--input_sizes", "16", "--batch_sizes", "2", "--reps", "2"};
  words.insert(words.end(), extra.begin(), extra.end());
  return words;
}

// The base command line with --input_sizes `inputs` and --batch_sizes `batches`.
std::vector<std::string> with_sizes(const std::string& inputs, const std::string& batches) {
  std::vector<std::string> words = base_with({});
  words[7] = inputs;
  words[9] = batches;
  return words;
}

// The base command line with --reps `reps`.
std::vector<std::string> with_reps(const std::string& reps) {
  std::vector<std::string> words = base_with({});
  words[11] = reps;
  return words;
}

TEST(Cli, ParsedFixedArguments) {
  const CommandLine cl = parse({"--platform", "cuda:1", "--model_root", "/models", "--model_name", "bert",
                                "--model_class", "BertModel", "--input_sizes", "64,128", "--batch_sizes", "1,4,8",
                                "--reps", "1_0", "--compile", "--seed", "42"});
  EXPECT_EQ(cl.args.platform, "cuda:1");
  EXPECT_EQ(cl.args.model_root, std::optional<std::string>("/models"));
  EXPECT_EQ(cl.args.model_path, "/models/bert");
  EXPECT_EQ(cl.args.input_sizes, (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(cl.args.batch_sizes, (std::vector<int64_t>{1, 4, 8}));
  EXPECT_EQ(cl.args.reps, 10);  // int("1_0"), as argparse reads it
  EXPECT_EQ(parse(with_reps("1000000")).args.reps, kMaxReps);  // the most admitted
  EXPECT_EQ(parse(with_reps("0000000000000000000000005")).args.reps, 5);  // leading zeros, as Python's int()
  EXPECT_TRUE(cl.args.compile);
  EXPECT_FALSE(cl.args.eval);
  EXPECT_TRUE(cl.args.seed_given);
  EXPECT_EQ(cl.args.seed, 42u);
  EXPECT_EQ(cl.arg_words, (std::vector<std::string>{"--batch_sizes 1,4,8", "--compile", "--input_sizes 64,128",
                                                     "--model_class BertModel", "--model_name bert",
                                                     "--model_root /models", "--platform cuda:1", "--reps 1_0",
                                                     "--seed 42"}));
  EXPECT_EQ(parse(base_with({"--model_root", "/models"})).args.model_path, "/models/m");
  // os.path.join: an absolute model name ignores the root.
  EXPECT_EQ(parse({"--platform", "cpu", "--model_root", "/r", "--model_name", "/abs/m.pt", "--model_class", "B",
                   "--input_sizes", "1", "--batch_sizes", "1", "--reps", "2"})
                .args.model_path,
            "/abs/m.pt");
  EXPECT_FALSE(parse(base_with({})).args.model_root.has_value());
  EXPECT_FALSE(cl.args.isolate);
  EXPECT_TRUE(parse(base_with({"--isolate"})).args.isolate);
  EXPECT_FALSE(parse(base_with({})).args.seed_given);
}

TEST(Cli, SubOptionTrees) {
  const CommandLine cl = parse(base_with({"--compile:dynamic@", "True", "--compile:mode", "max-autotune",
                                          "--model:x@", "-1", "--compile:options:a:b@", "(8,)", "--model:y", "-z"}));
  ASSERT_EQ(cl.subs.size(), 4u);  // platform only when used
  EXPECT_EQ(cl.subs.count("platform"), 0u);
  EXPECT_EQ(cl.subs.at("torch.call"), Value::of_dict({}));
  const Value& compile = cl.subs.at("compile");
  ASSERT_EQ(compile.entries.size(), 3u);
  // Sorted: dynamic, mode, options.
  EXPECT_EQ(compile.entries[0].first, "dynamic");
  EXPECT_EQ(compile.entries[0].second, Value::of_bool(true));
  EXPECT_EQ(compile.entries[1].second, Value::of_string("max-autotune"));
  EXPECT_EQ(compile.entries[2].second,
            Value::of_dict({{"a", Value::of_dict({{"b", Value::of_tuple({Value::of_int(8)})}})}}));
  EXPECT_EQ(cl.subs.at("model"), Value::of_dict({{"x", Value::of_int(-1)}, {"y", Value::of_string("-z")}}));
  // A value is always the next word, even one that looks like an option.
  EXPECT_EQ(parse(base_with({"--model:y", "--reps"})).subs.at("model"),
            Value::of_dict({{"y", Value::of_string("--reps")}}));
  EXPECT_EQ(parse(base_with({"--platform:opt", "1"})).subs.at("platform"),
            Value::of_dict({{"opt", Value::of_string("1")}}));
  // Shell-style quoting and escapes in keys, as upstream's shlex split.
  EXPECT_EQ(parse(base_with({"--model:a\\:b", "1"})).subs.at("model"),
            Value::of_dict({{"a:b", Value::of_string("1")}}));
  EXPECT_EQ(parse(base_with({"--model:x'y:z'", "1"})).subs.at("model"),
            Value::of_dict({{"xy:z", Value::of_string("1")}}));
  // args.<option> in an @ value.
  EXPECT_EQ(parse(base_with({"--model:p@", "(args.model_path, args.model_root, args.eval, args.seed)"}))
                .subs.at("model"),
            Value::of_dict({{"p", Value::of_tuple({Value::of_string("m"), Value::none(), Value::of_bool(false),
                                                   Value::none()})}}));
}

TEST(Cli, UsageErrors) {
  const std::string subs_shape =
      "sub-options look like --SET:key[@] VALUE with SET one of compile, model, torch.call, torch.set, platform, check_outputs";
  const std::string fixed =
      "--platform, --model_class, --model_root, --model_name, --compile, --eval, --input_sizes, --batch_sizes, "
      "--reps, --seed, --save_outputs, --check_outputs, --profile, --isolate, --isolate_timeout, --warmup, --input_lengths, --batching, --sort_window, --quiet";
  const std::string use =
      "; use None, True, False, a number, a quoted string, a list/tuple/dict of these, a dtype like torch.float16, "
      "or args.<option>";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--model_name", "m", "--model_class", "B", "--input_sizes", "1", "--batch_sizes", "1", "--reps", "2"},
       "missing required option --platform"},
      {{"--model_name", "m", "--model_class", "B", "--input_sizes", "1", "--batch_sizes", "1"},
       "missing required options --platform, --reps"},
      {{}, "missing required options --platform, --model_class, --model_name, --input_sizes, --batch_sizes, --reps"},
      // The words of the driver's other modes, placed among a sweep's options ("unknown option --cache").
      {{"--platform", "cpu", "--cache", "list"},
       "--cache is a sub-command and comes first: driver --cache list|report|clear [--cache_dir DIR]"},
      {{"--platform", "cpu", "--version"}, "--version stands alone on the command line: driver --version"},
      {{"--platform", "cpu", "run", "x.json"},
       "'run' is a sub-command and comes first: driver run [EXPERIMENT] [--out ROOT] [--resume DIR] [--devices LIST] "
       "[--list] [--slurm] [--wait] [--max-tasks N] [--no-submit] [--task DIR INDEX]"},
      {{"--platform", "cpu", "--model_name", "m", "--model_class", "B", "--input_sizes", "64,,128", "--batch_sizes",
        "1", "--reps", "2"},
       "--input_sizes expects comma-separated positive integers like 64,128; got '64,,128'"},
      {{"--platform", "cpu", "--model_name", "m", "--model_class", "B", "--input_sizes", "1.5", "--batch_sizes", "1",
        "--reps", "2"},
       "--input_sizes expects comma-separated positive integers like 64,128; got '1.5'"},
      {{"--platform", "cpu", "--model_name", "m", "--model_class", "B", "--input_sizes", "1", "--batch_sizes", "0",
        "--reps", "2"},
       "--batch_sizes expects comma-separated positive integers like 64,128; got '0'"},
      {{"--platform", "cpu", "--model_name", "m", "--model_class", "B", "--input_sizes", "1", "--batch_sizes", "-1",
        "--reps", "2"},
       "--batch_sizes expects comma-separated positive integers like 64,128; got '-1'"},
      {{"--platform", "cpu", "--model_name", "m", "--model_class", "B", "--input_sizes", "1", "--batch_sizes", "1,",
        "--reps", "2"},
       "--batch_sizes expects comma-separated positive integers like 64,128; got '1,'"},
      {{"--platform", "cpu", "--model_name", "m", "--model_class", "B", "--input_sizes", "1", "--batch_sizes", "1",
        "--reps", "1"},
       "--reps must be at least 2, got 1: the first max(int(0.2*reps),1) reps are dropped as warm-up, so at least 2 "
       "are needed"},
      {{"--platform", "cpu", "--model_name", "m", "--model_class", "B", "--input_sizes", "1", "--batch_sizes", "1",
        "--reps", "-3"},
       "--reps must be at least 2, got -3: the first max(int(0.2*reps),1) reps are dropped as warm-up, so at least "
       "2 are needed"},
      {with_reps("2147483648"),
       "--reps 2147483648 is out of range: it must be from 2 to 1000000 (each rep's timestamps are kept in memory)"},
      {with_reps("1_000_001"),
       "--reps 1000001 is out of range: it must be from 2 to 1000000 (each rep's timestamps are kept in memory)"},
      // Past int64_t: still an integer, out of range rather than "not an integer".
      {with_reps("12345678901234567890123"),
       "--reps 12345678901234567890123 is out of range: it must be from 2 to 1000000 (each rep's timestamps are kept "
       "in memory)"},
      {with_reps("-12345678901234567890123"),
       "--reps must be at least 2, got -12345678901234567890123: the first max(int(0.2*reps),1) reps are dropped as "
       "warm-up, so at least 2 are needed"},
      // The same combination twice: refused, naming the value.
      {with_sizes("8,8", "1"), "--input_sizes lists 8 twice in '8,8'; give each size once"},
      {with_sizes("1", "1,2,01"), "--batch_sizes lists 1 twice in '1,2,01'; give each size once"},
      {with_sizes("1", "12345678901234567890123"),
       "--batch_sizes 12345678901234567890123 is out of range: a size is from 1 to 999999999999999999"},
      {{"--platform", "cpu", "--model_name", "m", "--model_class", "B", "--input_sizes", "1", "--batch_sizes", "1",
        "--reps", "ten"},
       "--reps expects an integer (at least 2); got 'ten'"},
      {{"--platform", "cpu", "--model_name", "my model", "--model_class", "B", "--input_sizes", "1", "--batch_sizes",
        "1", "--reps", "2"},
       "--model_name 'my model' contains whitespace, which would break the FMWORK RES line (its fields are split on "
       "spaces); name it without spaces"},
      {{"--platform", "cpu", "--model_name", "m", "--model_class", "Bert\tModel", "--input_sizes", "1",
        "--batch_sizes", "1", "--reps", "2"},
       "--model_class: the value contains a control character (\\t); give it on one line, without control "
       "characters"},
      {{"--platform", "cpu", "--model_name", "", "--model_class", "B", "--input_sizes", "1", "--batch_sizes", "1",
        "--reps", "2"},
       "--model_name is empty; give the model's name or path"},
      {{"--platform", "cpu", "--model_name", "m", "--model_class", "", "--input_sizes", "1", "--batch_sizes", "1",
        "--reps", "2"},
       "--model_class is empty; give the model's class, e.g. BertModel"},
      {{"--platform=", "--model_name", "m", "--model_class", "B", "--input_sizes", "1", "--batch_sizes", "1",
        "--reps", "2"},
       "--platform is empty; give cpu, cuda, cuda:N or a plugin name"},
      {base_with({"--reps", "3"}), "--reps is given twice; give it once"},
      {base_with({"--eval", "--eval"}), "--eval is given twice; give it once"},
      {base_with({"--isolate=1"}), "--isolate is a flag and takes no value (got '--isolate=1')"},
      {base_with({"--compile=1"}), "--compile is a flag and takes no value (got '--compile=1')"},
      {{"--platform", "cpu", "--model_name", "m", "--model_class", "B", "--input_sizes", "1", "--batch_sizes", "1",
        "--reps"},
       "--reps needs a value, like --reps 20 (to give one that starts with '--', write --reps=VALUE)"},
      {{"--model_root", "--model_name", "m", "--platform", "cpu", "--model_class", "B", "--input_sizes", "1",
        "--batch_sizes", "1", "--reps", "2"},
       "--model_root needs a value, like --model_root /models (to give one that starts with '--', write --model_root=VALUE)"},
      {base_with({"--foo", "1"}), "unknown option --foo; the fixed options are " + fixed + ", and " + subs_shape},
      {base_with({"--rep", "1"}), "unknown option --rep; did you mean --reps?; the fixed options are " + fixed + ", and " + subs_shape},
      {base_with({"extra"}),
       "unexpected argument 'extra'; options are written --NAME VALUE, flags --NAME, and " + subs_shape},
      {base_with({"-x"}), "unexpected argument '-x'; options are written --NAME VALUE, flags --NAME, and " + subs_shape},
      {base_with({"--model:x"}), "--model:x has no value; " + subs_shape},
      // Defect: `--model:dtype=float32` took the next word as its value and was then an unknown key
      // "dtype=float32" (last on the line: "has no value"); the value is a word of its own.
      {base_with({"--model:dtype=float32", "--eval"}),
       "--model:dtype=float32: a sub-option's value is the next word, not after '=': write --model:dtype float32 (a "
       "space, not '=')"},
      {base_with({"--SET:key=value"}),
       "--SET:key=value: a sub-option's value is the next word, not after '=': write --SET:key value (a space, not "
       "'=')"},
      // Defect (hostile round seven): the secret after '=' was repeated in the message.
      {base_with({"--model:token=hf_SECRET0123", "--eval"}),
       "--model:token=<not shown>: a sub-option's value is the next word, not after '=': write --model:token "
       "<not shown> (a space, not '=')"},
      {base_with({"--torch.call:set_num_threads@=2", "--eval"}),
       "--torch.call:set_num_threads@=2: a sub-option's value is the next word, not after '=': write "
       "--torch.call:set_num_threads@ 2 (a space, not '=')"},
      {base_with({"--foo:bar", "1"}),
       "unknown sub-option set 'foo' in --foo:bar; the sets are compile, model, torch.call, torch.set, platform, check_outputs"},
      {base_with({"--model:", "1"}),
       "--model: has an empty key; sub-options look like --SET:key[:key...][@] VALUE, e.g. "
       "--compile:options:max_autotune@ True"},
      {base_with({"--model::x", "1"}),
       "--model::x has an empty key; sub-options look like --SET:key[:key...][@] VALUE, e.g. "
       "--compile:options:max_autotune@ True"},
      {base_with({"--model:''@", "1"}),
       "--model:''@ has an empty key; sub-options look like --SET:key[:key...][@] VALUE, e.g. "
       "--compile:options:max_autotune@ True"},
      {base_with({"--model:'a", "1"}), "--model:'a: the key has no closing quotation"},
      {base_with({"--model:a\\", "1"}), "--model:a\\: the key ends with a backslash that escapes nothing"},
      {base_with({"--model:a", "1", "--model:a:b", "2"}),
       "--model:a:b 2 conflicts with --model:a 1: --model:a already holds a value, so it cannot also hold keys"},
      {base_with({"--model:a:b", "2", "--model:a", "1"}),
       "--model:a 1 conflicts with --model:a:b 2: --model:a already holds keys, so it cannot also hold a value"},
      {base_with({"--model:a", "1", "--model:a@", "2"}),
       "--model:a@ 2 conflicts with --model:a 1: --model:a is set twice"},
      {base_with({"--model:a@", "{'b': 1}", "--model:a:b", "2"}),
       "--model:a:b 2 conflicts with --model:a@ {'b': 1}: --model:a:b is set twice"},
      {base_with({"--compile:dynamic@", "Tru"}), "--compile:dynamic@: cannot read 'Tru' as a value" + use},
      {base_with({"--model:n@", "args.subs"}), "--model:n@: cannot read 'args.subs' as a value" + use},
      {base_with({"--seed", "-1"}), "--seed expects a non-negative integer below 2^64; got '-1'"},
      {base_with({"--seed", "18446744073709551616"}),
       "--seed expects a non-negative integer below 2^64; got '18446744073709551616'"},
  };
  for (const auto& [words, expected] : cases) {
    std::string joined;
    for (const auto& w : words) joined += " " + w;
    SCOPED_TRACE(joined);
    EXPECT_EQ(error_of(words), expected);
  }
}

// A name or value with control characters cannot make an error span lines (and forge an FMWORK line on the
// terminal): every Error's message writes them out.
TEST(Cli, ControlCharactersInErrorsAreWrittenOut) {
  const std::string forged = "m\nFMWORK RES x\r\t\x1b[2J\x7f";
  std::vector<std::string> words = base_with({});
  words[3] = forged;
  const std::string message = error_of(words);
  EXPECT_EQ(message.find_first_of("\n\r\t\x1b\x7f"), std::string::npos) << message;
  EXPECT_EQ(message, "--model_name: the value contains a line break; give it on one line, without control characters");
  // Applied once more (with_context of an inner error), the text stays as it is.
  const Error wrapped = with_context("config.json", usage_error("a\nb"));
  EXPECT_EQ(std::string(wrapped.what()), "config.json: a\\nb");
  EXPECT_EQ(excerpt(std::string(100, 'x') + "\n"), std::string(80, 'x') + "...");
  EXPECT_EQ(excerpt(std::string(79, 'x') + "\xc3\xa9yy"), std::string(79, 'x') + "...");  // not inside the é
}

// Found by fuzz/cli_fuzz.cpp (fuzz/regressions/cli/20000-keys): a key of 20,000 parts made the tree
// quadratic in memory. 31 keys after the set are accepted, 32 refused.
TEST(Cli, SubOptionKeysNestAtMost31Deep) {
  std::string key = "--model";
  for (int i = 0; i < 31; ++i) key += ":k";
  Value tree = parse(base_with({key, "1"})).subs.at("model");
  for (int i = 0; i < 31; ++i) tree = Value(tree.entries.at(0).second);
  EXPECT_EQ(tree, Value::of_string("1"));
  EXPECT_EQ(error_of(base_with({key + ":k", "1"})),
            key + ":k has 32 keys after the set; a sub-option nests at most 31 keys deep (--SET:key[:key...])");
}

TEST(Cli, EqualsFormsAndOddValues) {
  // --opt=value is echoed as --opt value; a value may start with '-' when written with '='.
  const CommandLine cl = parse({"--platform=cpu", "--model_name=--odd", "--model_class=B", "--input_sizes=1",
                                "--batch_sizes=1", "--reps=2"});
  EXPECT_EQ(cl.args.model_name, "--odd");
  EXPECT_EQ(cl.arg_words, (std::vector<std::string>{"--batch_sizes 1", "--input_sizes 1", "--model_class B",
                                                     "--model_name --odd", "--platform cpu", "--reps 2"}));
  EXPECT_EQ(parse(base_with({"--model_root", "-r"})).args.model_path, "-r/m");
}

TEST(Cli, EverySubOptionSetIsAcceptedAndNoOther) {
  for (const auto& set : kSubOptionSets) {
    SCOPED_TRACE(set);
    const CommandLine cl = parse(base_with({"--" + set + ":some_key@", "1"}));
    ASSERT_EQ(cl.subs.count(set), 1u);
    EXPECT_EQ(repr(cl.subs.at(set)), "{'some_key': 1}");
  }
  try {
    parse(base_with({"--compiler:mode", "x"}));
    FAIL() << "an unknown set was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("compile, model, torch.call, torch.set, platform, check_outputs"),
              std::string::npos)
        << e.what();
  }
}

// Every word is echoed into the log (FMWORK ARG): a value with a line break would write a line of its own
// (a forged "FMWORK RES ..." that process reads as a result). Each fixed option and each sub-option set refuses
// one, naming the option, in both of its forms.
TEST(Cli, EveryOptionRefusesALineBreakOrControlCharacter) {
  const std::string forged = "x\nFMWORK RES 1.000000000 2.000000000 m c 1 1 1.000 1.0";
  for (const Option* row : options_of(Command::sweep)) {
    const Option& option = *row;
    const std::string name = std::string("--") + option.name;
    for (const std::vector<std::string>& extra :
         {std::vector<std::string>{name + "=" + forged}, std::vector<std::string>{name, forged},
          std::vector<std::string>{name, "a\x1b[2Jb"}}) {
      if (option.flag() && extra.size() == 2) continue;
      const std::string error = error_of(base_with(extra));
      EXPECT_EQ(error.rfind(name + ": the value contains ", 0), 0u)
          << fmt::format("{} {} gave: {}", name, extra.back() == forged ? "(a line break)" : "(ESC)", error);
    }
  }
  for (const auto& set : kSubOptionSets) {
    const std::string name = "--" + set + ":key@";
    EXPECT_EQ(error_of(base_with({name, "'a\rb'"})),
              name + ": the value contains a line break; give it on one line, without control characters")
        << fmt::format("the set {}", set);
  }
}

// --check_outputs:KEY's tolerances tune --check_outputs DIR and the check against the CPU of a run that is not CPU
// eager; on a CPU eager run without DIR they tune nothing and are refused. cpu@ is taken on any run.
TEST(Cli, CheckOutputTolerancesNeedSomethingToCheck) {
  auto tuned = [](const std::vector<std::string>& words) {
    try {
      check_tuned_options(parse(words));
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      return std::string(e.what());
    }
    return std::string("taken");
  };
  const std::string refused = "--check_outputs:KEY sets tolerances of --check_outputs DIR, which is not given, or of the "
                              "check against the CPU, which a run on --platform cpu without --compile does not make";
  EXPECT_EQ(tuned(base_with({"--check_outputs:atol@", "1e-3"})), refused);
  EXPECT_EQ(tuned(base_with({"--check_outputs:atol@", "1e-3", "--compile"})), "taken");
  auto on_cuda = base_with({"--check_outputs:rtol@", "1e-3"});
  on_cuda[1] = "cuda";
  EXPECT_EQ(tuned(on_cuda), "taken");
  EXPECT_EQ(tuned(base_with({"--check_outputs:cpu@", "False"})), "taken");
}

// Help wins over any error on the line, but a sub-option's or a keyed word's value is a value whatever it looks
// like: `driver run x.json --slurm --slurm:comment -h` printed help and submitted nothing.
TEST(Cli, HelpIsAskedForOutsideSubOptionValues) {
  EXPECT_TRUE(asks_for_help({"--reps", "2", "-h"}));
  EXPECT_TRUE(asks_for_help({"--bogus", "--help"}));
  EXPECT_TRUE(asks_for_help({"--slurm:comment=x", "-h"}));
  EXPECT_FALSE(asks_for_help({"x.json", "--slurm:comment", "-h"}));
  EXPECT_FALSE(asks_for_help({"--model:revision", "--help"}));
  EXPECT_FALSE(asks_for_help({"--reps", "2"}));
}

}  // namespace
}  // namespace fmwork
