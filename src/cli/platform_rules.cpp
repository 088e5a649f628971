// Platform rules (see platform_rules.hpp): each requirement parsed into its target option, then compared
// with what the command line gives.
#include "fmwork/cli/platform_rules.hpp"

#include <cstdlib>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fmwork/cli/cli.hpp"
#include "fmwork/cli/cuda_name.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/python_literal.hpp"
#include "fmwork/base/python_value.hpp"
#include "fmwork/base/subprocess.hpp"
#include "fmwork/base/text_format.hpp"

namespace fmwork {
namespace {

// A requirement's option split into the fixed flag or the set and key path; nullopt when malformed.
struct RequirementTarget {
  bool fixed = false;             // "compile" / "eval"
  std::string set;                // sub-option set, when !fixed
  std::vector<std::string> keys;  // key path inside the set
};

std::optional<RequirementTarget> parse_target(const std::string& option) {
  RequirementTarget target;
  auto colon = option.find(':');
  if (colon == std::string::npos) {
    if (option != "compile" && option != "eval") return std::nullopt;
    target.fixed = true;
    target.set = option;
    return target;
  }
  target.set = option.substr(0, colon);
  bool known = false;
  for (const auto& s : kSubOptionSets) known = known || s == target.set;
  if (!known) return std::nullopt;
  for (std::string_view key : split(std::string_view(option).substr(colon + 1), ':')) {
    if (key.empty()) return std::nullopt;
    target.keys.emplace_back(key);
  }
  return target;
}

Value expected_value(const PlatformRequirement& r) {
  return r.typed ? parse_value(r.value, "--" + r.option + "@") : Value::of_string(r.value);
}

const Value* find_key(const Value& dict, const std::string& key) {
  if (dict.type != Value::Type::dict) return nullptr;
  for (const auto& [k, v] : dict.entries)
    if (k == key) return &v;
  return nullptr;
}

std::string format_given(const std::string& option, const Value& value) {
  if (value.type == Value::Type::string) return "--" + option + " " + value.text;
  return "--" + option + "@ " + excerpt(repr(value));
}

// A whole sentence: "<what>: <reason>." (the driver joins the refusals with spaces).
std::string with_reason(const std::string& sentence, const std::string& reason) {
  std::string out = reason.empty() ? sentence : sentence + ": " + reason;
  if (out.back() != '.') out += '.';
  return out;
}

std::string size_list(const std::vector<int64_t>& sizes) {
  std::vector<std::string> parts;
  for (int64_t s : sizes) parts.push_back(std::to_string(s));
  return fmt::format("{}", fmt::join(parts, ","));
}

}  // namespace

void validate_requirement(const std::string& platform, const PlatformRequirement& r) {
  std::string prefix = "--platform " + platform + ": the plugin declares an invalid requirement '" + r.option +
                       "': ";
  auto target = parse_target(r.option);
  if (!target)
    throw runtime_error(prefix + "expected compile, eval or SET:key with SET one of " +
                        fmt::format("{}", fmt::join(kSubOptionSets, ", ")));
  Value expected;
  try {
    expected = expected_value(r);
  } catch (const Error& e) {
    throw runtime_error(prefix + e.what());
  }
  if (target->fixed && expected.type != Value::Type::boolean)
    throw runtime_error(prefix + "a fixed flag's value must be True or False, typed");
}

const char* const kPlatformNames =
    "cpu, cuda, cuda:N or a plugin name of up to 64 letters, digits, '_', '-' and '.'";

bool is_platform_name(const std::string& name) {
  if (name == "cpu" || read_cuda_name(name)) return true;
  if (name.rfind("cuda:", 0) == 0) return false;  // a bad index
  // 64: a name goes into a file name and every message about it (a 5,000-character one made 20 KB lines).
  if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
  return name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") ==
         std::string::npos;
}

std::string platform_suggestion(const std::string& name) {
  if (name.rfind("cuda:", 0) == 0) return "";  // a bad index: make_platform's own message says what is right
  return did_you_mean(one_typo_from(name, {"cpu", "cuda"}));
}

std::string format_requirement(const PlatformRequirement& requirement) {
  auto target = parse_target(requirement.option);
  if (target && target->fixed) {
    bool on = requirement.value == "True";
    return on ? "--" + requirement.option : "no --" + requirement.option;
  }
  return "--" + requirement.option + (requirement.typed ? "@ " : " ") + requirement.value;
}

std::vector<std::string> check_constraints(const std::string& platform, const PlatformConstraints& constraints,
                                           const CommandLine& command_line) {
  std::vector<std::string> refusals;
  const std::string requires_ = "--platform " + platform + " requires ";
  const auto& args = command_line.args;
  // --isolate runs each combination in a process of its own: one shape per process by construction.
  if (constraints.single_input_size && !args.isolate && args.input_sizes.size() != 1)
    refusals.push_back(with_reason(requires_ + "a single --input_sizes value or --isolate (got " +
                                       std::to_string(args.input_sizes.size()) + ": " +
                                       size_list(args.input_sizes) + ")",
                                   constraints.single_input_reason));
  if (constraints.single_batch_size && !args.isolate && args.batch_sizes.size() != 1)
    refusals.push_back(with_reason(requires_ + "a single --batch_sizes value or --isolate (got " +
                                       std::to_string(args.batch_sizes.size()) + ": " +
                                       size_list(args.batch_sizes) + ")",
                                   constraints.single_batch_reason));

  for (const auto& r : constraints.required) {
    validate_requirement(platform, r);
    auto target = parse_target(r.option);
    Value expected = expected_value(r);
    std::string what = requires_ + format_requirement(r);
    if (target->fixed) {
      bool given = target->set == "compile" ? args.compile : args.eval;
      if (given != expected.boolean)
        refusals.push_back(with_reason(what + (given ? " (got --" + r.option + ")" : " (not given)"), r.reason));
      continue;
    }
    const Value* node = nullptr;
    auto set = command_line.subs.find(target->set);
    if (set != command_line.subs.end()) {
      node = &set->second;
      for (const auto& key : target->keys) {
        node = find_key(*node, key);
        if (!node) break;
      }
    }
    if (!node)
      refusals.push_back(with_reason(what + " (not given)", r.reason));
    else if (*node != expected)
      refusals.push_back(with_reason(what + " (got " + format_given(r.option, *node) + ")", r.reason));
  }
  return refusals;
}

std::string plugin_file_name(const std::string& name) { return "libfmwork_platform_" + name + ".so"; }

std::vector<std::string> plugin_search_dirs() {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs;
  if (const char* env = std::getenv(kPluginPathVariable))
    for (std::string_view dir : split(env, ':'))
      if (!dir.empty()) dirs.emplace_back(dir);
  std::error_code error;
  const fs::path exe = fs::read_symlink(kSelfExecutable, error).parent_path();
  if (!error && !exe.empty()) {
    dirs.push_back((exe / "plugins").lexically_normal().string());
    dirs.push_back((exe / ".." / "lib" / "fmwork").lexically_normal().string());
  }
  return dirs;
}

std::string find_plugin_file(const std::string& name, std::vector<std::string>& tried) {
  for (const auto& dir : plugin_search_dirs()) {
    std::string path = (std::filesystem::path(dir) / plugin_file_name(name)).string();
    tried.push_back(path);
    std::error_code error;
    if (std::filesystem::is_regular_file(path, error)) return path;
  }
  return "";
}

bool is_builtin_platform_name(const std::string& name) {
  return name == "cpu" || name == "cuda" || name.rfind("cuda:", 0) == 0;
}

std::string plugin_not_found_text(const std::string& name, const std::vector<std::string>& tried) {
  // A folder, FIFO or dangling link of that name is no library: said, rather than "not found" beside its path.
  std::string odd;
  for (const std::string& path : tried) {
    std::error_code error;
    if (std::filesystem::exists(std::filesystem::symlink_status(path, error))) {
      odd = "; " + path + " is there but is not a regular file";
      break;
    }
  }
  return fmt::format("not a built-in platform (cpu, cuda, cuda:N) and no plugin {} was found; tried {}{} (set {} to "
                     "the folder that holds it){}",
                     plugin_file_name(name), fmt::join(tried, ", "), odd, kPluginPathVariable, platform_suggestion(name));
}

}  // namespace fmwork
