// Typed option sets (domain/run_options.hpp) built from the sub-option tree, validated before anything is
// loaded. Each rejects unknown keys (listing the known ones) and wrong types (naming the expected type).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fmwork/base/python_value.hpp"
#include "fmwork/cli/torch_setting_table.hpp"
#include "fmwork/domain/run_options.hpp"

namespace fmwork {

// One key of a typed set, as the set's table declares it. The same table drives the builders below, their
// unknown-key message and `driver --help`, so the three cannot disagree.
struct OptionKeyDoc {
  std::string key;                   // as typed after --SET:, e.g. "torch_dtype"
  std::vector<std::string> aliases;  // other spellings of the same key ("dtype"); giving two of them is refused
  std::string type;                  // what the value must be, as the wrong-type message names it
  std::string example;               // the whole option with a value the builder accepts: "--model:vocab_size@ 30522"
  std::string help;                  // one line for --help; for a key the set ignores, why it changes nothing
  bool secret = false;               // its value is a credential or a proxy address: written nowhere (kNotShown)
};

// A set with a key table: its keys in table order and the one-line summary --help prints for it, e.g.
// "torch.compile options: backend, mode, dynamic, fullgraph, disable, options:KEY".
// `keys` are the rows that set something; `ignored` the rows of the same table that accept any value and store
// nothing (--model:'s from_pretrained keywords that mean nothing for a local folder), each with why as its help.
struct OptionSetDoc {
  std::string set;  // "compile", "model", "check_outputs", "torch.call", "torch.set"
  std::string summary;
  std::vector<OptionKeyDoc> keys;
  std::vector<OptionKeyDoc> ignored;
  std::string shape = "KEY";  // what stands for a key in --help: "NAME" in "--torch.call:NAME"
};

// The sets whose keys --help lists one a line, in its order: compile, model, check_outputs. The torch.call and
// torch.set tables are torch_setting_docs()'s; platform keys have no table (they belong to plugins).
const std::vector<OptionSetDoc>& option_set_docs();

// The torch.call and torch.set tables, as docs/options.md lists them: each name with its value type, an example
// and what it does, from cli/torch_setting_table.hpp's rows. What they do is runtime/torch_settings' (a
// LibTorch module, out of this library's reach), a switch over the same rows.
const std::vector<OptionSetDoc>& torch_setting_docs();

// The from_pretrained keywords that --model: accepts and ignores (option_set_docs()'s model set's `ignored`: rows
// of the --model: table), each with why it means nothing for a local folder as its help, in the order the
// unknown-key message lists them.
const std::vector<OptionKeyDoc>& ignored_model_keys();

// What stands for a secret's value wherever the value would be written.
inline constexpr const char* kNotShown = "<not shown>";

// Secrets (--model:token, --model:proxies, --model:use_auth_token: the rows of the sets' tables marked secret,
// all three ignored --model: keys) are written nowhere: not in MODEL, the FMWORK ARG lines, the args JSON, a
// campaign's plan or listing, process's output. Whether `key` of sub-option set `set` ("model", "token") is one
// of them. The words' own test, quoting and nesting included, is sub_options.hpp's is_secret_option.
bool is_secret_key(const std::string& set, const std::string& key);
// The tree of sub-option set `set` (CommandLine::subs) with each secret key's value replaced by kNotShown.
Value tree_without_secrets(const std::string& set, Value tree);

// Threads asked for beyond this many per CPU are refused (--torch.call:set_num_threads, OMP_NUM_THREADS):
// LibTorch would start them all, and a pool of 2^31 threads exhausts the machine before anything runs.
inline constexpr int64_t kMaxThreadsPerCpu = 4;

// A --torch.call: or --torch.set: value read through its set's table: the setting the name is, and the value.
struct TorchValue {
  TorchSetting setting;
  Value value;
};

// The value of --torch.call:NAME or --torch.set:PATH (`set` "torch.call" or "torch.set"), read as every key of
// a set is: a plain value that reads as the name's type is taken as typed (upstream pastes the text into
// Python), the type and the range checked (threads 1 to kMaxThreadsPerCpu per CPU, a matmul precision by
// name). Throws a usage Error naming the option: an unknown name (the one meant, the known ones), a wrong type,
// a value out of range. It reads through the same tables as the builders below, and runtime/torch_settings reads
// values through it, so that `driver run` refuses what the driver would.
TorchValue torch_setting_value(const std::string& set, const std::string& name, const Value& given);

// Builders: take the dict Value of one set (CommandLine::subs[set]); throw a usage Error naming the
// option as typed (`--compile:mode`) on an unknown key (listing the known ones, and the one meant where one
// is close) or a wrong type. torch.call / torch.set values are typed as torch_setting_value types them.
CompileOptions compile_options_from(const Value& tree);
ModelOptions model_options_from(const Value& tree);
TorchCalls torch_calls_from(const Value& tree);
TorchSets torch_sets_from(const Value& tree);
PlatformOptions platform_options_from(const Value& tree);
CheckOptions check_options_from(const Value& tree);

}  // namespace fmwork
