// The dynamic sub-options `--SET:key[:key...][@] VALUE`: their sets, and the one tree per set they are
// gathered into (option_sets.hpp then builds the typed options from the trees).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fmwork/base/python_literal.hpp"
#include "fmwork/base/python_value.hpp"

namespace fmwork {

// The most keys of a sub-option after its set (--compile:options:max_autotune has 2). A key of 20,000 parts
// (a 40 KB word) made the tree quadratic in memory (found by fuzz/cli_fuzz.cpp).
constexpr size_t kMaxSubOptionKeys = 31;

// The sub-option sets the driver accepts, in the order upstream lists them; `platform` (plugin options) and
// `check_outputs` (tolerances) are ours and appear in the trees only when used.
extern const std::vector<std::string> kSubOptionSets;  // compile, model, torch.call, torch.set, platform, check_outputs

// "sub-options look like --SET:key[@] VALUE with SET one of compile, model, ...": the tail of the messages
// about words that are no option.
std::string sub_option_shape();

// The sub-options, each (--SET:key[@] as typed, VALUE), gathered into one tree per set, in the order given:
// nested keys become nested dicts; a key ending in '@' takes a Python literal (read with `resolve` for
// names such as args.reps), the others a string. compile, model, torch.call and torch.set are always
// there (possibly empty dicts); keys are sorted recursively, as upstream sorts them before use. Throws a
// usage Error on an unknown set, an empty key, more than kMaxSubOptionKeys keys, a quote left open, an
// unreadable `@` value, or a key set twice or both given a value and keys (naming the earlier option).
std::map<std::string, Value> sub_option_trees(const std::vector<std::pair<std::string, std::string>>& words,
                                              const NameResolver& resolve);

// Whether the sub-option word `word` ("--model:token@", "--model:\"token\"", "--model:proxies:https") names a
// secret (option_sets.hpp's is_secret_key: its set and first key, split as sub_option_trees splits them) or a
// key nested under one; false for any other word, and for one that does not split.
bool is_secret_option(const std::string& word);
// An ARG line's text (a word, a space, the value as typed: "--model:token@ hf_abc") with the value replaced
// by kNotShown when the word is secret; any other text as it is. The option stays, so that upstream's process
// still sees it was given.
std::string arg_text_without_secret(const std::string& text);
// A command line (argv without the program) with the value after each secret word replaced: "'<not shown>'"
// after a word ending in '@' (a Python literal, so that the line still parses), else kNotShown. The keys
// are ignored by the driver, so the line runs as it would with the secret.
std::vector<std::string> argv_without_secrets(std::vector<std::string> argv);

// Sorts dict keys recursively through dict values (dicts inside lists and tuples keep their order, as
// upstream's sort_dict_recursive leaves them).
void sort_keys_recursively(Value& value);

}  // namespace fmwork
