// A package's metadata read strictly (see aoti_metadata.hpp): every value present is checked, and a bad
// one is an Error naming the package and the key, because a range read as "not recorded" would run shapes
// the package was never built for (it checks none itself).
#include "fmwork/cache/aoti_metadata.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/base/json_input.hpp"
#include "fmwork/hf/model_inputs.hpp"
#include "fmwork/base/text_format.hpp"

namespace fmwork {

namespace {

using json = nlohmann::json;

constexpr size_t kMaxPackageText = 100;  // fmwork.vec_isa, AOTI_DEVICE_KEY: printed in MODEL and messages

bool is_model_input(const std::string& name) {
  return std::find(model_input_names().begin(), model_input_names().end(), name) != model_input_names().end();
}

// Reads the keys of one package's metadata; each refusal is "<path>: the package's metadata <key> is '<v>'; <why>".
class MetadataReader {
 public:
  MetadataReader(const std::map<std::string, std::string>& m, const std::string& path) : m_(m), path_(path) {}

  const std::string* find(const std::string& key) const {
    const auto it = m_.find(key);
    return it == m_.end() ? nullptr : &it->second;
  }
  Error bad(const std::string& key, const std::string& why) const {
    return usage_error(fmt::format("{}: the package's metadata {} is '{}'; {}", path_, key, excerpt(*find(key)), why));
  }

  // Comma-separated non-empty names, each once (both lists of a package are forward()'s, in order).
  std::vector<std::string> names(const std::string& key) const {
    std::vector<std::string> out;
    std::set<std::string> seen;  // not a count over `out`: a value of 30,000 names would take seconds
    for (std::string_view name : split(*find(key), ',')) {
      out.emplace_back(name);
      if (out.back().empty()) throw bad(key, "it should be comma-separated names, none empty");
      if (!seen.insert(out.back()).second) throw bad(key, "it names '" + excerpt(out.back()) + "' twice; each name once");
    }
    return out;
  }

  // A whole number from `least` to `most`, digits only (Python's str() of an int): nullopt when absent.
  std::optional<int64_t> whole(const std::string& key, int64_t most, int64_t least = 1) const {
    const std::string* text = find(key);
    if (!text) return std::nullopt;
    const auto refuse = [&] {
      return bad(key, "it should be a whole number from " + std::to_string(least) + " to " + std::to_string(most));
    };
    if (text->empty() || text->size() > 18 || text->find_first_not_of("0123456789") != std::string::npos)
      throw refuse();
    const int64_t value = std::stoll(*text);  // at most 18 digits: no overflow
    if (value < least || value > most) throw refuse();
    return value;
  }

  // Printable ASCII, at most kMaxPackageText characters ("" when absent).
  std::string text(const std::string& key) const {
    const std::string* text = find(key);
    if (!text) return "";
    const bool printable = std::all_of(text->begin(), text->end(), [](char c) { return c >= 0x20 && c < 0x7f; });
    if (!printable || text->size() > kMaxPackageText)
      throw bad(key, "it should be printable text of at most " + std::to_string(kMaxPackageText) + " characters");
    return *text;
  }

  // A min/max pair into `lo`/`hi`, both given or neither (then the defaults stay: not recorded).
  void range(const std::string& what, int64_t& lo, int64_t& hi) const {
    const std::string min_key = "fmwork." + what + "_min", max_key = "fmwork." + what + "_max";
    const auto min = whole(min_key, kMaxPackageSize), max = whole(max_key, kMaxPackageSize);
    if (min.has_value() != max.has_value()) {
      const std::string& given = min ? min_key : max_key;
      throw bad(given, "it is given without " + (min ? max_key : min_key) + "; give both or neither");
    }
    if (!min) return;
    if (*min > *max) throw bad(min_key, "it is above " + max_key + " (" + std::to_string(*max) + ")");
    lo = *min;
    hi = *max;
  }

 private:
  const std::map<std::string, std::string>& m_;
  const std::string& path_;
};

std::vector<std::string> inputs_of(const MetadataReader& r, const CallSpecSource& in_spec, const std::string& path) {
  if (!r.find("fmwork.inputs")) return inputs_from_call_spec(in_spec(), path);
  std::vector<std::string> inputs = r.names("fmwork.inputs");
  for (const auto& name : inputs)  // the sweep feeds these three Batch fields and nothing else
    if (!is_model_input(name))
      throw usage_error(fmt::format("{}: the package's metadata names an input '{}'; the driver feeds only "
                                    "input_ids, attention_mask, token_type_ids",
                                    path, excerpt(name)));
  if (std::find(inputs.begin(), inputs.end(), "input_ids") == inputs.end())
    throw r.bad("fmwork.inputs", "a package takes input_ids");
  return inputs;
}

}  // namespace

std::vector<std::string> inputs_from_call_spec(std::string_view in_spec, const std::string& path) {
  const auto bad = [&](const std::string& why) {
    return usage_error(fmt::format("{}: cannot tell the package's inputs: {}; export it with keyword inputs "
                                   "named input_ids, attention_mask, token_type_ids",
                                   path, why));
  };
  const auto parse = [&](std::string_view text, const char* what) {
    try {
      return parse_json(text, what);
    } catch (const Error& e) {
      throw bad(std::string("its ") + e.what());  // "its call spec: <why it is not JSON>"
    }
  };
  const json spec = parse(in_spec, "call spec");
  if (!spec.is_array() || spec.size() != 2 || !spec[1].is_object()) throw bad("its call spec is not a pytree");
  const json& children = json_member(spec[1], "children_spec");
  if (!children.is_array() || children.size() != 2) throw bad("its call spec is not (args, kwargs)");
  const json& args = json_member(children[0], "children_spec");
  if (!args.is_array()) throw bad("its call spec's args are not a list");
  if (args.size() > model_input_names().size()) throw bad(fmt::format("it takes {} positional inputs", args.size()));
  std::vector<std::string> names(model_input_names().begin(),
                                 model_input_names().begin() + static_cast<std::ptrdiff_t>(args.size()));
  const json& context = json_member(children[1], "context");  // the kwargs dict's keys, as JSON text
  if (!context.is_null()) {
    const json keys = context.is_string() ? parse(context.get_ref<const std::string&>(), "call spec's kwargs") : json();
    if (!keys.is_array() || !std::all_of(keys.begin(), keys.end(), [](const json& k) { return k.is_string(); }))
      throw bad("its call spec's kwargs are not named by a list of strings");
    for (const auto& key : keys) names.push_back(key.get<std::string>());
  }
  std::set<std::string> seen;
  for (const auto& name : names) {
    if (!is_model_input(name)) throw bad("it takes an input named '" + excerpt(name) + "'");
    if (!seen.insert(name).second) throw bad("it takes " + name + " twice");
  }
  if (std::find(names.begin(), names.end(), "input_ids") == names.end()) throw bad("it takes no input_ids");
  return names;
}

AotiFacts aoti_facts_from(const std::map<std::string, std::string>& metadata, const CallSpecSource& in_spec,
                          const std::string& path) {
  AotiFacts f;
  f.metadata = metadata;
  const MetadataReader r(f.metadata, path);
  f.inputs = inputs_of(r, in_spec, path);
  if (r.find("fmwork.outputs")) f.outputs = r.names("fmwork.outputs");
  if (const std::string* dtype = r.find("fmwork.dtype")) {
    if (*dtype != "float32" && *dtype != "float16" && *dtype != "bfloat16")
      throw r.bad("fmwork.dtype", "it should be float32, float16 or bfloat16");
    f.dtype = *dtype;
  }
  f.vec_isa = r.text("fmwork.vec_isa");
  f.device = r.text("AOTI_DEVICE_KEY");
  // 0: a GPU package, whose kernels bake no thread count (tools/aoti_export.py --threads 0)
  f.threads = r.whole("fmwork.threads", kMaxPackageThreads, 0).value_or(0);
  r.range("batch", f.batch_min, f.batch_max);
  r.range("input", f.input_min, f.input_max);
  return f;
}

void require_shape_ranges(const AotiFacts& facts, const std::string& path) {
  const auto missing = [&](const char* what, const char* keys) {
    throw usage_error(path + ": the package does not record the " + what + " it was built for (its metadata " + keys +
                      "), and a package run at another shape computes the wrong one or crashes; build it with "
                      "--compile:backend inductor (tools/aoti_export.py), or export it with aot_inductor.metadata "
                      "holding fmwork.batch_min, fmwork.batch_max, fmwork.input_min and fmwork.input_max");
  };
  if (facts.batch_max == 0) missing("batch sizes", "fmwork.batch_min / fmwork.batch_max");
  if (facts.input_max == 0) missing("input sizes", "fmwork.input_min / fmwork.input_max");
}

}  // namespace fmwork
