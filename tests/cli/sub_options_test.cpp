// Tests of the sub-option words that name a secret (--model:token and the other ignored keys marked secret):
// which words are, how their values are hidden in an ARG line or a command line, and that no message of the
// parser quotes one.
#include "fmwork/cli/sub_options.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "fmwork/base/error.hpp"
#include "support/cli_fixtures.hpp"

namespace fmwork {
namespace {

using cli_fixtures::parse;

TEST(SubOptions, SecretWordsHoweverWritten) {
  for (const std::string word : {"--model:token", "--model:token@", "--model:proxies:https@", "--model:use_auth_token",
                                 "--model:'token'", "--model:\"token\"@", "--model:to\\ken", "--model:token:\"a b\""})
    EXPECT_TRUE(is_secret_option(word)) << word;
  for (const std::string word : {"--model:revision", "--model:tokens", "--compile:token", "--model_name", "token",
                                 "--model:", "--model:'token", "--model:\"revision:token\""})
    EXPECT_FALSE(is_secret_option(word)) << word;
}

TEST(SubOptions, ASecretsValueIsHidden) {
  // (ARG text, as written): the word stays, a secret's value goes, whatever the value holds.
  const std::vector<std::pair<std::string, std::string>> texts = {
      {"--model:token@ 'hf_x' 'y'", "--model:token@ <not shown>"},
      {"--model:token:\"a b\" hf_x", "--model:token:\"a b\" <not shown>"},
      {"--model:revision main", "--model:revision main"},
      {"--model:revision --model:token x", "--model:revision --model:token x"},
      {"--eval", "--eval"}};
  for (const auto& [text, shown] : texts) EXPECT_EQ(arg_text_without_secret(text), shown) << text;
  EXPECT_EQ(argv_without_secrets({"--model:token", "hf_x", "--model:'proxies'@", "{'a': 'b'}", "--reps", "2"}),
            (std::vector<std::string>{"--model:token", "<not shown>", "--model:'proxies'@", "'<not shown>'", "--reps",
                                      "2"}));
}

// A secret's value is in no message: a conflict names it "<not shown>", a value that is no literal is refused
// without quoting it.
TEST(SubOptions, ASecretIsInNoMessage) {
  const std::vector<std::string> base = {"--platform", "cpu", "--model_name", "m", "--model_class", "B",
                                         "--input_sizes", "1", "--batch_sizes", "1", "--reps", "2"};
  const auto refusal = [&](const std::vector<std::string>& subs) {
    std::vector<std::string> words = base;
    words.insert(words.end(), subs.begin(), subs.end());
    return cli_fixtures::usage_refusal([&] { parse(words); });
  };
  EXPECT_EQ(refusal({"--model:token@", "hf_SECRET"}),
            "--model:token@: its value (not shown: a secret) is no Python literal; quote a string: --model:token@ "
            "'VALUE', or give it without '@'");
  const std::string conflict = refusal({"--model:token", "hf_SECRET", "--model:'token'", "hf_SECRET2"});
  EXPECT_EQ(conflict.find("SECRET"), std::string::npos) << conflict;
  EXPECT_NE(conflict.find("--model:'token' <not shown> conflicts with --model:token <not shown>"), std::string::npos)
      << conflict;
  const std::string nested = refusal({"--model:proxies:a", "SECRET", "--model:proxies@", "{'a': 'SECRET'}"});
  EXPECT_EQ(nested.find("SECRET"), std::string::npos) << nested;
}

}  // namespace
}  // namespace fmwork
