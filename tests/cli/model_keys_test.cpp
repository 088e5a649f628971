// Tests of which --model: keys each kind of model file takes (model_keys.hpp), read from the --model: table's
// rows: the one rule the four loaders refuse a key by.
#include "fmwork/cli/model_keys.hpp"

#include <gtest/gtest.h>

#include "fmwork/base/python_literal.hpp"
#include "fmwork/cli/option_sets.hpp"

namespace fmwork {
namespace {

// The options `key` (with `value`, a Python literal) gives alone.
ModelOptions given(const std::string& key, const std::string& value) {
  Value tree = Value::of_dict({});
  tree.entries.emplace_back(key, parse_value(value, "--model:" + key));
  return model_options_from(tree);
}

std::string not_taken(const ModelOptions& options, ModelFile file) {
  return model_key_not_taken(options, file).value_or("");
}

TEST(ModelKeys, EachFileTakesWhatItCanHonour) {
  using F = ModelFile;
  for (const F file : {F::native_folder, F::transformers_class, F::torchscript, F::aoti_package, F::openvino}) {
    SCOPED_TRACE(static_cast<int>(file));
    const bool folder = file == F::native_folder || file == F::transformers_class;
    EXPECT_EQ(not_taken(given("attn_implementation", "'eager'"), file), folder ? "" : "attn_implementation");
    EXPECT_EQ(not_taken(given("add_pooling_layer", "False"), file), folder ? "" : "add_pooling_layer");
    for (const char* native_only : {"packed_gemm", "gelu_epilogue"})
      EXPECT_EQ(not_taken(given(native_only, "False"), file), file == F::native_folder ? "" : native_only);
    EXPECT_EQ(not_taken(given("random_weights", "True"), file), file == F::native_folder ? "" : "random_weights");
    EXPECT_EQ(not_taken(given("random_weights", "False"), file), "");  // not asked for
    EXPECT_EQ(not_taken(given("random_weights_seed", "7"), file), "");
    EXPECT_EQ(not_taken(given("vocab_size", "100"), file), file == F::transformers_class ? "vocab_size" : "");
    const bool fixed_dtype = file == F::aoti_package || file == F::openvino;
    EXPECT_EQ(not_taken(given("torch_dtype", "'bfloat16'"), file), fixed_dtype ? "torch_dtype" : "");
    EXPECT_EQ(not_taken(given("torch_dtype", "'auto'"), file), "");
    EXPECT_EQ(not_taken(ModelOptions{}, file), "");
  }
}

}  // namespace
}  // namespace fmwork
