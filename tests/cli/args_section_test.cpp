// Tests of the ARGS section: what upstream prints for whole command lines (FMWORK ARG lines and the args
// JSON), byte for byte.
#include "fmwork/cli/args_section.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fmwork/log/log_records.hpp"

#include "support/cli_fixtures.hpp"

namespace fmwork {
namespace {

using cli_fixtures::parse;

struct SectionCase {
  std::string name;
  std::vector<std::string> argv;
  std::string expected;
};

// Expected texts: what upstream's setup_args (argparse + fmwork.args_process_opts + fmwork.args_show)
// prints for the same command line under CPython 3.11 (with --opt=value written as --opt value, and
// --seed added to its parser).
const std::vector<SectionCase> kSectionCases = {
    {"CudaReadmeExample",
     {"--platform", "cuda", "--model_root", "/path/to/models", "--model_name", "ibm-granite/granite-embedding-125m-english", "--model_class", "RobertaModel", "--input_sizes", "512", "--batch_sizes", "1", "--reps", "100", "--compile:backend", "inductor", "--compile:dynamic@", "True", "--compile:mode", "reduce-overhead"},
     R"EXP(FMWORK ARG --batch_sizes 1
FMWORK ARG --compile:backend inductor
FMWORK ARG --compile:dynamic@ True
FMWORK ARG --compile:mode reduce-overhead
FMWORK ARG --input_sizes 512
FMWORK ARG --model_class RobertaModel
FMWORK ARG --model_name ibm-granite/granite-embedding-125m-english
FMWORK ARG --model_root /path/to/models
FMWORK ARG --platform cuda
FMWORK ARG --reps 100

{
    "batch_sizes": "[1]",
    "compile": "False",
    "eval": "False",
    "input_sizes": "[512]",
    "model_class": "RobertaModel",
    "model_name": "ibm-granite/granite-embedding-125m-english",
    "model_path": "/path/to/models/ibm-granite/granite-embedding-125m-english",
    "model_root": "/path/to/models",
    "platform": "cuda",
    "reps": "100",
    "subs": {
        "compile": {
            "backend": "inductor",
            "dynamic": "True",
            "mode": "reduce-overhead"
        },
        "model": {},
        "torch.call": {},
        "torch.set": {}
    }
}
)EXP"},
    {"SpyreReadmeExample",
     {"--platform", "spyre", "--model_root", "/path/to/models", "--model_name", "ibm-granite/granite-embedding-125m-english", "--model_class", "RobertaModel", "--input_sizes", "512", "--batch_sizes", "1", "--reps", "100", "--torch.call:set_grad_enabled@", "False", "--compile", "--compile:backend", "sendnn"},
     R"EXP(FMWORK ARG --batch_sizes 1
FMWORK ARG --compile
FMWORK ARG --compile:backend sendnn
FMWORK ARG --input_sizes 512
FMWORK ARG --model_class RobertaModel
FMWORK ARG --model_name ibm-granite/granite-embedding-125m-english
FMWORK ARG --model_root /path/to/models
FMWORK ARG --platform spyre
FMWORK ARG --reps 100
FMWORK ARG --torch.call:set_grad_enabled@ False

{
    "batch_sizes": "[1]",
    "compile": "True",
    "eval": "False",
    "input_sizes": "[512]",
    "model_class": "RobertaModel",
    "model_name": "ibm-granite/granite-embedding-125m-english",
    "model_path": "/path/to/models/ibm-granite/granite-embedding-125m-english",
    "model_root": "/path/to/models",
    "platform": "spyre",
    "reps": "100",
    "subs": {
        "compile": {
            "backend": "sendnn"
        },
        "model": {},
        "torch.call": {
            "set_grad_enabled": "False"
        },
        "torch.set": {}
    }
}
)EXP"},
    {"NestedCompileOptionsNoRoot",
     {"--platform", "cpu", "--model_name", "/m/bert.pt", "--model_class", "BertModel", "--input_sizes", "64,128,512", "--batch_sizes", "1,4", "--reps", "10", "--eval", "--compile", "--compile:options:max_autotune@", "True", "--compile:options:epilogue_fusion@", "False", "--compile:fullgraph@", "True"},
     R"EXP(FMWORK ARG --batch_sizes 1,4
FMWORK ARG --compile
FMWORK ARG --compile:fullgraph@ True
FMWORK ARG --compile:options:epilogue_fusion@ False
FMWORK ARG --compile:options:max_autotune@ True
FMWORK ARG --eval
FMWORK ARG --input_sizes 64,128,512
FMWORK ARG --model_class BertModel
FMWORK ARG --model_name /m/bert.pt
FMWORK ARG --platform cpu
FMWORK ARG --reps 10

{
    "batch_sizes": "[1, 4]",
    "compile": "True",
    "eval": "True",
    "input_sizes": "[64, 128, 512]",
    "model_class": "BertModel",
    "model_name": "/m/bert.pt",
    "model_path": "/m/bert.pt",
    "model_root": "None",
    "platform": "cpu",
    "reps": "10",
    "subs": {
        "compile": {
            "fullgraph": "True",
            "options": {
                "epilogue_fusion": "False",
                "max_autotune": "True"
            }
        },
        "model": {},
        "torch.call": {},
        "torch.set": {}
    }
}
)EXP"},
    {"DtypeAndRootWithSlash",
     {"--platform", "cuda", "--model_root", "/models/", "--model_name", "bert", "--model_class", "BertModel", "--input_sizes", "128", "--batch_sizes", "8", "--reps", "5", "--model:torch_dtype@", "torch.bfloat16", "--model:attn_implementation", "sdpa"},
     R"EXP(FMWORK ARG --batch_sizes 8
FMWORK ARG --input_sizes 128
FMWORK ARG --model:attn_implementation sdpa
FMWORK ARG --model:torch_dtype@ torch.bfloat16
FMWORK ARG --model_class BertModel
FMWORK ARG --model_name bert
FMWORK ARG --model_root /models/
FMWORK ARG --platform cuda
FMWORK ARG --reps 5

{
    "batch_sizes": "[8]",
    "compile": "False",
    "eval": "False",
    "input_sizes": "[128]",
    "model_class": "BertModel",
    "model_name": "bert",
    "model_path": "/models/bert",
    "model_root": "/models/",
    "platform": "cuda",
    "reps": "5",
    "subs": {
        "compile": {},
        "model": {
            "attn_implementation": "sdpa",
            "torch_dtype": "torch.bfloat16"
        },
        "torch.call": {},
        "torch.set": {}
    }
}
)EXP"},
    {"ArgsNamesResolved",
     {"--platform", "cuda", "--model_name", "m", "--model_class", "AutoModel", "--input_sizes", "32", "--batch_sizes", "1,2,4", "--reps", "3", "--compile:options:cudagraph_sizes@", "args.batch_sizes", "--model:vocab_size@", "args.reps", "--torch.set:backends.cudnn.benchmark@", "True", "--compile:backend@", "args.model_name"},
     R"EXP(FMWORK ARG --batch_sizes 1,2,4
FMWORK ARG --compile:backend@ args.model_name
FMWORK ARG --compile:options:cudagraph_sizes@ args.batch_sizes
FMWORK ARG --input_sizes 32
FMWORK ARG --model:vocab_size@ args.reps
FMWORK ARG --model_class AutoModel
FMWORK ARG --model_name m
FMWORK ARG --platform cuda
FMWORK ARG --reps 3
FMWORK ARG --torch.set:backends.cudnn.benchmark@ True

{
    "batch_sizes": "[1, 2, 4]",
    "compile": "False",
    "eval": "False",
    "input_sizes": "[32]",
    "model_class": "AutoModel",
    "model_name": "m",
    "model_path": "m",
    "model_root": "None",
    "platform": "cuda",
    "reps": "3",
    "subs": {
        "compile": {
            "backend": "m",
            "options": {
                "cudagraph_sizes": "[1, 2, 4]"
            }
        },
        "model": {
            "vocab_size": "3"
        },
        "torch.call": {},
        "torch.set": {
            "backends.cudnn.benchmark": "True"
        }
    }
}
)EXP"},
    {"DictGivenWithAt",
     {"--platform", "cpu", "--model_name", "m", "--model_class", "BertModel", "--input_sizes", "16", "--batch_sizes", "2", "--reps", "2", "--compile:options@", "{'max_autotune': True, 'b': [1, 2.5], 'a': {'z': None, 'y': 'x'}}", "--model:x@", "[{'b': 1, 'a': 2}, ()]"},
     R"EXP(FMWORK ARG --batch_sizes 2
FMWORK ARG --compile:options@ {'max_autotune': True, 'b': [1, 2.5], 'a': {'z': None, 'y': 'x'}}
FMWORK ARG --input_sizes 16
FMWORK ARG --model:x@ [{'b': 1, 'a': 2}, ()]
FMWORK ARG --model_class BertModel
FMWORK ARG --model_name m
FMWORK ARG --platform cpu
FMWORK ARG --reps 2

{
    "batch_sizes": "[2]",
    "compile": "False",
    "eval": "False",
    "input_sizes": "[16]",
    "model_class": "BertModel",
    "model_name": "m",
    "model_path": "m",
    "model_root": "None",
    "platform": "cpu",
    "reps": "2",
    "subs": {
        "compile": {
            "options": {
                "a": {
                    "y": "x",
                    "z": "None"
                },
                "b": "[1, 2.5]",
                "max_autotune": "True"
            }
        },
        "model": {
            "x": "[{'b': 1, 'a': 2}, ()]"
        },
        "torch.call": {},
        "torch.set": {}
    }
}
)EXP"},
    {"FloatsTuplesStringsDtypes",
     {"--platform", "cpu", "--model_name", "m", "--model_class", "BertModel", "--input_sizes", "16", "--batch_sizes", "2", "--reps", "2", "--torch.call:foo@", "1e-05", "--torch.call:bar@", "2.50", "--torch.call:baz@", "1e16", "--torch.call:qux@", "0.1", "--torch.call:big@", "1e999", "--torch.call:neg@", "-0.0", "--torch.set:tup@", "(8, 16)", "--torch.set:one@", "(8,)", "--torch.set:strs@", "['a', \"it's\"]", "--torch.set:half@", "torch.half", "--torch.set:small@", "0.0001", "--torch.set:third@", "0.3333333333333333"},
     R"EXP(FMWORK ARG --batch_sizes 2
FMWORK ARG --input_sizes 16
FMWORK ARG --model_class BertModel
FMWORK ARG --model_name m
FMWORK ARG --platform cpu
FMWORK ARG --reps 2
FMWORK ARG --torch.call:bar@ 2.50
FMWORK ARG --torch.call:baz@ 1e16
FMWORK ARG --torch.call:big@ 1e999
FMWORK ARG --torch.call:foo@ 1e-05
FMWORK ARG --torch.call:neg@ -0.0
FMWORK ARG --torch.call:qux@ 0.1
FMWORK ARG --torch.set:half@ torch.half
FMWORK ARG --torch.set:one@ (8,)
FMWORK ARG --torch.set:small@ 0.0001
FMWORK ARG --torch.set:strs@ ['a', "it's"]
FMWORK ARG --torch.set:third@ 0.3333333333333333
FMWORK ARG --torch.set:tup@ (8, 16)

{
    "batch_sizes": "[2]",
    "compile": "False",
    "eval": "False",
    "input_sizes": "[16]",
    "model_class": "BertModel",
    "model_name": "m",
    "model_path": "m",
    "model_root": "None",
    "platform": "cpu",
    "reps": "2",
    "subs": {
        "compile": {},
        "model": {},
        "torch.call": {
            "bar": "2.5",
            "baz": "1e+16",
            "big": "inf",
            "foo": "1e-05",
            "neg": "-0.0",
            "qux": "0.1"
        },
        "torch.set": {
            "half": "torch.float16",
            "one": "(8,)",
            "small": "0.0001",
            "strs": "['a', \"it's\"]",
            "third": "0.3333333333333333",
            "tup": "(8, 16)"
        }
    }
}
)EXP"},
    {"QuotedKeysPlatformSetSeedEqualsForms",
     {"--platform=cuda:0", "--model_name", "caf\xc3""\xa9""-model", "--model_class", "BertModel", "--input_sizes", "16", "--batch_sizes", "2", "--reps=10", "--model:'a:b':c", "1", "--platform:device_id@", "0", "--seed", "7", "--model:x@", "-1", "--model:\"q\\\"r\":s t", "v w"},
     R"EXP(FMWORK ARG --batch_sizes 2
FMWORK ARG --input_sizes 16
FMWORK ARG --model:"q\"r":s t v w
FMWORK ARG --model:'a:b':c 1
FMWORK ARG --model:x@ -1
FMWORK ARG --model_class BertModel
FMWORK ARG --model_name café-model
FMWORK ARG --platform cuda:0
FMWORK ARG --platform:device_id@ 0
FMWORK ARG --reps 10
FMWORK ARG --seed 7

{
    "batch_sizes": "[2]",
    "compile": "False",
    "eval": "False",
    "input_sizes": "[16]",
    "model_class": "BertModel",
    "model_name": "caf\u00e9-model",
    "model_path": "caf\u00e9-model",
    "model_root": "None",
    "platform": "cuda:0",
    "reps": "10",
    "seed": "7",
    "subs": {
        "compile": {},
        "model": {
            "a:b": {
                "c": "1"
            },
            "q\"r": {
                "s t": "v w"
            },
            "x": "-1"
        },
        "platform": {
            "device_id": "0"
        },
        "torch.call": {},
        "torch.set": {}
    }
}
)EXP"},
    {"EmptyModelRootAndEscapes",
     {"--platform", "cpu", "--model_root", "", "--model_name", "m", "--model_class", "BertModel", "--input_sizes", "16", "--batch_sizes", "2", "--reps", "2", "--model:s@", "'tab\\there'"},
     R"EXP(FMWORK ARG --batch_sizes 2
FMWORK ARG --input_sizes 16
FMWORK ARG --model:s@ 'tab\there'
FMWORK ARG --model_class BertModel
FMWORK ARG --model_name m
FMWORK ARG --model_root 
FMWORK ARG --platform cpu
FMWORK ARG --reps 2

{
    "batch_sizes": "[2]",
    "compile": "False",
    "eval": "False",
    "input_sizes": "[16]",
    "model_class": "BertModel",
    "model_name": "m",
    "model_path": "m",
    "model_root": "",
    "platform": "cpu",
    "reps": "2",
    "subs": {
        "compile": {},
        "model": {
            "s": "tab\there"
        },
        "torch.call": {},
        "torch.set": {}
    }
}
)EXP"},
    {"AtDictMergedWithNestedKeys",
     {"--platform", "cpu", "--model_name", "m", "--model_class", "BertModel", "--input_sizes", "16", "--batch_sizes", "2", "--reps", "2", "--model:a@", "{'z': {}, 'b': {'y': 1, 'x': [{'q': 1, 'p': 2}]}}", "--model:a:b:c", "2", "--model_root=", "--eval", "--seed", "18446744073709551615", "--model:n@", "None"},
     R"EXP(FMWORK ARG --batch_sizes 2
FMWORK ARG --eval
FMWORK ARG --input_sizes 16
FMWORK ARG --model:a:b:c 2
FMWORK ARG --model:a@ {'z': {}, 'b': {'y': 1, 'x': [{'q': 1, 'p': 2}]}}
FMWORK ARG --model:n@ None
FMWORK ARG --model_class BertModel
FMWORK ARG --model_name m
FMWORK ARG --model_root 
FMWORK ARG --platform cpu
FMWORK ARG --reps 2
FMWORK ARG --seed 18446744073709551615

{
    "batch_sizes": "[2]",
    "compile": "False",
    "eval": "True",
    "input_sizes": "[16]",
    "model_class": "BertModel",
    "model_name": "m",
    "model_path": "m",
    "model_root": "",
    "platform": "cpu",
    "reps": "2",
    "seed": "18446744073709551615",
    "subs": {
        "compile": {},
        "model": {
            "a": {
                "b": {
                    "c": "2",
                    "x": "[{'q': 1, 'p': 2}]",
                    "y": "1"
                },
                "z": {}
            },
            "n": "None"
        },
        "torch.call": {},
        "torch.set": {}
    }
}
)EXP"},
};

TEST(CliArgsSection, MatchesUpstream) {
  for (const auto& c : kSectionCases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(format_args_section(parse(c.argv)), c.expected);
  }
}

// A word that got past the parsers with a line break (a caller that builds the CommandLine itself) still writes
// one ARG line: the writer escapes it, so the log read back holds no forged record.
TEST(CliArgsSection, AWordWithALineBreakStaysOneLine) {
  CommandLine command_line = parse({"--platform", "cpu", "--model_name", "m", "--model_class", "BertModel",
                                    "--input_sizes", "16", "--batch_sizes", "2", "--reps", "2"});
  command_line.arg_words.push_back("--model_name m\nFMWORK RES 1.000000000 2.000000000 m c 1 1 1.000 1.0");
  command_line.arg_words.push_back("--seed 1\rFMWORK FAIL input=1 batch=1 error=forged");
  const std::string section = format_args_section(command_line);
  const ParsedLog log = parse_log_text(section, "section");
  EXPECT_TRUE(log.results.empty()) << fmt::format("a forged RES was read from:\n{}", section);
  EXPECT_TRUE(log.failures.empty()) << fmt::format("a forged FAIL was read from:\n{}", section);
  EXPECT_EQ(log.opts.size(), command_line.arg_words.size()) << fmt::format("one ARG line a word:\n{}", section);
  EXPECT_NE(section.find("FMWORK ARG --model_name m\\nFMWORK RES"), std::string::npos) << section;
}

// --model:token, --model:proxies and --model:use_auth_token keep their ARG lines (upstream's process sees
// that they were given) and their keys in the args JSON, with "<not shown>" for the values, however given:
// a string, a Python literal, a dict, a nested key.
TEST(CliArgsSection, ASecretIsNotShown) {
  const std::string token = "hf_SECRET0123", proxy = "http://user:pw0123@proxy.example:3128";
  const CommandLine command_line =
      parse({"--platform", "cpu", "--model_name", "m", "--model_class", "BertModel", "--input_sizes", "16",
             "--batch_sizes", "2", "--reps", "2", "--model:token", token, "--model:use_auth_token@", "'" + token + "'",
             "--model:proxies:https", proxy, "--model:revision", "main"});
  const std::string section = format_args_section(command_line);
  EXPECT_EQ(section.find("SECRET0123"), std::string::npos) << section;
  EXPECT_EQ(section.find("pw0123"), std::string::npos) << section;
  for (const std::string line : {"FMWORK ARG --model:token <not shown>\n", "FMWORK ARG --model:use_auth_token@ <not shown>\n",
                                 "FMWORK ARG --model:proxies:https <not shown>\n", "FMWORK ARG --model:revision main\n",
                                 "\"proxies\": \"<not shown>\"", "\"token\": \"<not shown>\"", "\"revision\": \"main\""})
    EXPECT_NE(section.find(line), std::string::npos) << line << " in\n" << section;
  EXPECT_EQ(parse_log_text(section, "section").opts.size(), command_line.arg_words.size());
}

}  // namespace
}  // namespace fmwork
