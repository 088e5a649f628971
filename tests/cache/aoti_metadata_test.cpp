// Tests of aoti_metadata: a real package's metadata read as before, each bad value of each key refused in
// one line naming the package and the key, the pairs of a range checked together, and the call spec
// fallback (positional and keyword inputs, and every shape that is not (args, kwargs)).
#include "fmwork/cache/aoti_metadata.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

using Metadata = std::map<std::string, std::string>;

// What tools/aoti_export.py wrote into a real package (its *_metadata.json), torch 2.13.
Metadata real_metadata() {
  return {{"fmwork.inputs", "input_ids,attention_mask"}, {"fmwork.outputs", "last_hidden_state,pooler_output"},
          {"fmwork.dtype", "float32"}, {"fmwork.device", "cpu"}, {"fmwork.threads", "2"},
          {"fmwork.batch_min", "1"}, {"fmwork.batch_max", "8"}, {"fmwork.input_min", "16"},
          {"fmwork.input_max", "16"}, {"fmwork.vec_isa", "avx512 avx512_vnni"}, {"fmwork.torch", "2.13.0+cpu"},
          {"AOTI_DEVICE_KEY", "cpu"}, {"AOTI_COMPUTE_CAPABILITY", ""}};
}

// The call spec of a package exported with keyword inputs, as its wrapper holds it.
const char* kKeywordSpec =
    R"([1, {"type": "builtins.tuple", "context": "null", "children_spec": [{"type": "builtins.tuple", "context": )"
    R"("null", "children_spec": []}, {"type": "builtins.dict", "context": "[\"input_ids\", \"attention_mask\"]", )"
    R"("children_spec": [{"type": null, "context": null, "children_spec": []}, {"type": null, "context": null, )"
    R"("children_spec": []}]}]}])";

CallSpecSource no_spec() {
  return [] () -> std::string { throw std::logic_error("the call spec was asked for"); };
}

std::string message_of(const Metadata& m, const CallSpecSource& spec = no_spec()) {
  try {
    aoti_facts_from(m, spec, "p.pt2");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    return e.what();
  }
  return "";
}

std::string with(const std::string& key, const std::string& value) {
  Metadata m = real_metadata();
  m[key] = value;
  return message_of(m);
}

std::string without(const std::string& key) {
  Metadata m = real_metadata();
  m.erase(key);
  return message_of(m);
}

TEST(AotiMetadata, ARealPackagesMetadataReadsAsBefore) {
  const AotiFacts f = aoti_facts_from(real_metadata(), no_spec(), "p.pt2");
  EXPECT_EQ(f.inputs, (std::vector<std::string>{"input_ids", "attention_mask"}));
  EXPECT_EQ(f.outputs, (std::vector<std::string>{"last_hidden_state", "pooler_output"}));
  EXPECT_EQ(f.dtype, "float32");
  EXPECT_EQ(f.vec_isa, "avx512 avx512_vnni");
  EXPECT_EQ(f.device, "cpu");
  EXPECT_EQ(f.threads, 2);
  EXPECT_EQ(std::make_pair(f.batch_min, f.batch_max), std::make_pair(int64_t{1}, int64_t{8}));
  EXPECT_EQ(std::make_pair(f.input_min, f.input_max), std::make_pair(int64_t{16}, int64_t{16}));
  EXPECT_EQ(f.metadata, real_metadata());
}

TEST(AotiMetadata, AbsentKeysAreNotRecorded) {
  const AotiFacts f = aoti_facts_from({{"fmwork.inputs", "input_ids"}}, no_spec(), "p.pt2");
  EXPECT_EQ(f.inputs, std::vector<std::string>{"input_ids"});
  EXPECT_TRUE(f.outputs.empty());
  EXPECT_EQ(f.dtype, "unknown");
  EXPECT_EQ(f.threads, 0);
  EXPECT_EQ(f.batch_max, 0);
  EXPECT_EQ(f.input_max, 0);
  EXPECT_EQ(f.device, "");
}

TEST(AotiMetadata, EachBadIntegerIsOneLineNamingPackageAndKey) {
  for (const char* bad : {"", "x", "-1", "0", "+2", " 2", "2.0", "1e3", "99999999999999999999999"})
    EXPECT_EQ(with("fmwork.batch_max", bad),
              std::string("p.pt2: the package's metadata fmwork.batch_max is '") + bad +
                  "'; it should be a whole number from 1 to 999999999999999999")
        << bad;
  EXPECT_EQ(with("fmwork.threads", "65537"),
            "p.pt2: the package's metadata fmwork.threads is '65537'; it should be a whole number from 0 to 65536");
  EXPECT_EQ(with("fmwork.input_min", "0"),
            "p.pt2: the package's metadata fmwork.input_min is '0'; it should be a whole number from 1 to "
            "999999999999999999");
}

// A GPU package bakes no thread count: the exporter writes 0 there (seen on an H100, where 0 was refused).
TEST(AotiMetadata, AGpuPackageRecordsNoThreads) {
  Metadata m = real_metadata();
  m["fmwork.threads"] = "0";
  m["fmwork.device"] = m["AOTI_DEVICE_KEY"] = "cuda";
  EXPECT_EQ(aoti_facts_from(m, no_spec(), "p.pt2").threads, 0);
}

TEST(AotiMetadata, RangesAreCheckedAsPairs) {
  EXPECT_EQ(with("fmwork.batch_min", "9"),
            "p.pt2: the package's metadata fmwork.batch_min is '9'; it is above fmwork.batch_max (8)");
  EXPECT_EQ(without("fmwork.input_max"),
            "p.pt2: the package's metadata fmwork.input_min is '16'; it is given without fmwork.input_max; give "
            "both or neither");
  EXPECT_EQ(without("fmwork.batch_min"),
            "p.pt2: the package's metadata fmwork.batch_max is '8'; it is given without fmwork.batch_min; give "
            "both or neither");
  Metadata m = real_metadata();
  m.erase("fmwork.batch_min");
  m.erase("fmwork.batch_max");
  EXPECT_EQ(aoti_facts_from(m, no_spec(), "p.pt2").batch_max, 0);  // neither: not recorded
}

// Without its ranges a package cannot be run safely: refused, naming the keys that would say them.
TEST(AotiMetadata, APackageWithoutItsShapeRangesIsRefused) {
  EXPECT_NO_THROW(require_shape_ranges(aoti_facts_from(real_metadata(), no_spec(), "p.pt2"), "p.pt2"));
  for (const auto& [keys, named] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"fmwork.batch_min", "fmwork.batch_max"}, "the batch sizes it was built for (its metadata fmwork.batch_min"},
           {{"fmwork.input_min", "fmwork.input_max"},
            "the input sizes it was built for (its metadata fmwork.input_min"}}) {
    Metadata m = real_metadata();
    for (const auto& k : keys) m.erase(k);
    const AotiFacts f = aoti_facts_from(m, no_spec(), "p.pt2");
    try {
      require_shape_ranges(f, "p.pt2");
      ADD_FAILURE() << "accepted without " << keys[0];
    } catch (const fmwork::Error& e) {
      EXPECT_EQ(e.kind(), fmwork::ErrorKind::usage);
      EXPECT_EQ(std::string(e.what()).rfind("p.pt2: the package does not record " + named, 0), 0u) << e.what();
    }
  }
}

TEST(AotiMetadata, BadNamesDtypeAndText) {
  EXPECT_EQ(with("fmwork.inputs", "input_ids,pixel_values"),
            "p.pt2: the package's metadata names an input 'pixel_values'; the driver feeds only input_ids, "
            "attention_mask, token_type_ids");
  EXPECT_EQ(with("fmwork.inputs", "input_ids,,attention_mask"),
            "p.pt2: the package's metadata fmwork.inputs is 'input_ids,,attention_mask'; it should be "
            "comma-separated names, none empty");
  EXPECT_EQ(with("fmwork.inputs", ""),
            "p.pt2: the package's metadata fmwork.inputs is ''; it should be comma-separated names, none empty");
  EXPECT_EQ(with("fmwork.inputs", "input_ids,input_ids"),
            "p.pt2: the package's metadata fmwork.inputs is 'input_ids,input_ids'; it names 'input_ids' twice; "
            "each name once");
  EXPECT_EQ(with("fmwork.inputs", "attention_mask"),
            "p.pt2: the package's metadata fmwork.inputs is 'attention_mask'; a package takes input_ids");
  EXPECT_EQ(with("fmwork.outputs", "a,"),
            "p.pt2: the package's metadata fmwork.outputs is 'a,'; it should be comma-separated names, none empty");
  EXPECT_EQ(with("fmwork.dtype", "float64"),
            "p.pt2: the package's metadata fmwork.dtype is 'float64'; it should be float32, float16 or bfloat16");
  EXPECT_EQ(with("fmwork.vec_isa", "avx2\nFMWORK RES"),
            "p.pt2: the package's metadata fmwork.vec_isa is 'avx2\\nFMWORK RES'; it should be printable text "
            "of at most 100 characters");
  EXPECT_EQ(with("AOTI_DEVICE_KEY", std::string(101, 'c')).rfind("p.pt2: the package's metadata AOTI_DEVICE_KEY is 'ccc", 0),
            0u);
}

TEST(AotiMetadata, WithoutInputsTheCallSpecNamesThem) {
  Metadata m = real_metadata();
  m.erase("fmwork.inputs");
  EXPECT_EQ(aoti_facts_from(m, [] { return std::string(kKeywordSpec); }, "p.pt2").inputs,
            (std::vector<std::string>{"input_ids", "attention_mask"}));
  const std::string positional =
      R"([1, {"children_spec": [{"children_spec": [{}, {}, {}]}, {"context": "[]"}]}])";
  EXPECT_EQ(inputs_from_call_spec(positional, "p.pt2"),
            (std::vector<std::string>{"input_ids", "attention_mask", "token_type_ids"}));
  EXPECT_EQ(inputs_from_call_spec(R"([1, {"children_spec": [{"children_spec": [{}]}, {"context": null}]}])", "p.pt2"),
            std::vector<std::string>{"input_ids"});
}

TEST(AotiMetadata, EachBadCallSpecIsOneLine) {
  const std::string tail = "; export it with keyword inputs named input_ids, attention_mask, token_type_ids";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[1, {", "its call spec: "},
      {"{}", "its call spec is not a pytree"},
      {R"([1, {"children_spec": [1]}])", "its call spec is not (args, kwargs)"},
      {R"([1, {"children_spec": [1, 2]}])", "its call spec's args are not a list"},
      {R"([1, {"children_spec": [{"children_spec": [1, 2, 3, 4]}, {}]}])", "it takes 4 positional inputs"},
      {R"([1, {"children_spec": [{"children_spec": []}, {"context": 5}]}])",
       "its call spec's kwargs are not named by a list of strings"},
      {R"([1, {"children_spec": [{"children_spec": []}, {"context": "[1]"}]}])",
       "its call spec's kwargs are not named by a list of strings"},
      {R"([1, {"children_spec": [{"children_spec": []}, {"context": "[\"x\"]"}]}])", "it takes an input named 'x'"},
      {R"([1, {"children_spec": [{"children_spec": [{}]}, {"context": "[\"input_ids\"]"}]}])",
       "it takes input_ids twice"},
      {R"([1, {"children_spec": [{"children_spec": []}, {"context": "[\"attention_mask\"]"}]}])",
       "it takes no input_ids"},
  };
  for (const auto& [spec, why] : cases) {
    try {
      inputs_from_call_spec(spec, "p.pt2");
      ADD_FAILURE() << spec << " was accepted";
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.rfind("p.pt2: cannot tell the package's inputs: " + why, 0), 0u) << m;
      EXPECT_EQ(m.substr(m.size() - tail.size()), tail) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace fmwork
