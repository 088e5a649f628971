// The paths of an experiment's runs, resolved against the file's folder and checked (experiment_paths.hpp).
#include "fmwork/runner/experiment_paths.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "fmwork/base/error.hpp"
#include "fmwork/base/json_input.hpp"
#include "fmwork/cli/fixed_options.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;

// The driver options whose values are paths, each with what it must be (docs/campaigns.md's table too).
enum class PathUse {
  model,          // --model_name (when no --model_root), --model_root/--model_name: a file or a folder that exists
  model_root,     // --model_root: a folder that exists
  input_folder,   // --check_outputs: a folder that exists
  output_folder,  // --save_outputs, --profile: a folder, or a name the driver can make (its nearest existing
                  // ancestor a folder)
};
struct PathOption {
  const char* option;  // as typed: "--model_root"
  PathUse use;
};
const std::vector<PathOption>& path_options() {
  static const std::vector<PathOption> options = {{"--model_root", PathUse::model_root},
                                                  {"--check_outputs", PathUse::input_folder},
                                                  {"--save_outputs", PathUse::output_folder},
                                                  {"--profile", PathUse::output_folder}};
  return options;
}

// Where an option's value sits in an argv: the word after "--x", or after "--x=" in the same word.
struct ValueAt {
  size_t word = 0;
  size_t offset = 0;  // 0: the whole word; else the value starts there ("--x=" is that long)
};

std::optional<ValueAt> value_of_option(const std::vector<std::string>& argv, const std::string& option) {
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == option && i + 1 < argv.size()) return ValueAt{i + 1, 0};
    if (argv[i].rfind(option + "=", 0) == 0) return ValueAt{i, option.size() + 1};
  }
  return std::nullopt;
}

std::string text_at(const std::vector<std::string>& argv, const ValueAt& at) { return argv[at.word].substr(at.offset); }

// What a path is on this machine, for the checks: nullopt when nothing is there.
std::optional<fs::file_type> path_kind(const fs::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);  // follows links: what the driver will open
  if (ec || status.type() == fs::file_type::not_found) return std::nullopt;
  return status.type();
}

// The problem with `path` for its use, "" when none.
std::string problem_of(const fs::path& path, PathUse use) {
  const std::optional<fs::file_type> kind = path_kind(path);
  const bool folder = kind == fs::file_type::directory, file = kind == fs::file_type::regular;
  switch (use) {
    case PathUse::model:
      if (!kind) return "no such file or folder";
      return folder || file ? "" : "not a file or a folder (a model is a Hugging Face folder, a .pt or a .pt2 file)";
    case PathUse::model_root:
    case PathUse::input_folder:
      if (!kind) return "no such folder";
      return folder ? "" : "not a folder";
    case PathUse::output_folder: {
      if (kind) return folder ? "" : "a file of that name exists; name a folder (it is made when absent)";
      fs::path up = path.parent_path();
      while (!up.empty() && !path_kind(up) && up != up.parent_path()) up = up.parent_path();
      return path_kind(up) == fs::file_type::directory ? "" : up.string() + " is not a folder, so it cannot be made";
    }
  }
  return "";
}

fs::path absolute_in(const fs::path& folder, const std::string& text) {
  const fs::path path(text);
  return (path.is_absolute() ? path : folder / path).lexically_normal();
}

}  // namespace

void resolve_plan_paths(Plan& plan, const std::string& folder) {
  std::error_code ec;
  fs::path base = fs::absolute(folder.empty() ? fs::path(".") : fs::path(folder), ec).lexically_normal();
  if (ec) throw usage_error(plan.source + ": cannot tell its folder (" + ec.message() + ")");
  if (!base.has_filename() && base != base.root_path()) base = base.parent_path();  // "/a/b/" -> "/a/b"
  std::map<std::pair<std::string, PathUse>, std::string> judged;  // (absolute path, use) -> problem: runs share paths
  for (PlannedRun& run : plan.runs) {
    // `in_folder`: `as_typed` was a path relative to the file's folder (the message says so).
    const auto check = [&](const std::string& option, const std::string& as_typed, const fs::path& resolved,
                           PathUse use, bool in_folder) {
      auto [it, fresh] = judged.try_emplace({resolved.string(), use});
      if (fresh) it->second = problem_of(resolved, use);
      if (it->second.empty()) return;
      std::string where;
      if (resolved.string() != as_typed)
        where = " (looked for " + resolved.string() +
                (in_folder ? ": a relative path in an experiment file is relative to the file's folder)" : ")");
      throw usage_error(plan.source + ": " + describe_run(run) + ": " + option + " " + excerpt(as_typed) + ": " +
                        it->second + where);
    };
    for (const PathOption& p : path_options()) {
      const std::optional<ValueAt> at = value_of_option(run.argv, p.option);
      if (!at) continue;
      const std::string text = text_at(run.argv, *at);
      if (text.empty()) continue;  // an empty --model_root joins nothing; the driver refuses the others
      const fs::path resolved = absolute_in(base, text);
      check(p.option, text, resolved, p.use, fs::path(text).is_relative());
      run.argv[at->word] = run.argv[at->word].substr(0, at->offset) + resolved.string();
    }
    const std::optional<ValueAt> name = value_of_option(run.argv, "--model_name");
    if (!name) continue;  // the driver's parser refused the run already
    const std::string model = text_at(run.argv, *name);
    const std::optional<ValueAt> root = value_of_option(run.argv, "--model_root");
    const std::string root_text = root ? text_at(run.argv, *root) : "";
    if (!root_text.empty()) {
      check("--model_name", model, absolute_in(root_text, model), PathUse::model, false);  // under --model_root
      continue;
    }
    check("--model_name", model, absolute_in(base, model), PathUse::model, fs::path(model).is_relative());
    if (fs::path(model).is_absolute()) continue;
    if (root) {  // given empty: it joins nothing, so it is set to the folder in place
      run.argv[root->word] = run.argv[root->word].substr(0, root->offset) + base.string();
      continue;
    }
    run.argv.insert(run.argv.begin() + static_cast<long>(name->word - (name->offset ? 0 : 1)),
                    {"--model_root", base.string()});
  }
}

namespace {

// A relative `--input_lengths file:PATH` of an experiment file made absolute in the file's folder, in the
// document, before expansion: the driver's parser reads the lengths file while each command line is checked,
// which would otherwise look in the current folder (and a resume from another folder read another file).
void resolve_length_files(nlohmann::json& doc, const std::filesystem::path& folder) {
  const auto fix = [&](nlohmann::json& v) {
    if (!v.is_string()) return;
    const std::string text = v.get<std::string>();
    if (text.rfind("file:", 0) != 0 || text.size() == 5 || std::filesystem::path(text.substr(5)).is_absolute()) return;
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::absolute(folder.empty() ? "." : folder, ec);
    if (!ec) v = "file:" + (base / text.substr(5)).lexically_normal().string();
  };
  const auto in = [&](nlohmann::json& object) {
    if (!object.is_object()) return;
    if (object.contains("options") && object["options"].is_object() && object["options"].contains("--input_lengths"))
      fix(object["options"]["--input_lengths"]);
    if (object.contains("matrix") && object["matrix"].is_object() && object["matrix"].contains("--input_lengths") &&
        object["matrix"]["--input_lengths"].is_array())
      for (auto& v : object["matrix"]["--input_lengths"]) fix(v);
  };
  if (!doc.is_object()) return;
  if (doc.contains("defaults")) in(doc["defaults"]);
  if (doc.contains("runs") && doc["runs"].is_array())
    for (auto& run : doc["runs"]) in(run);
}

// What the driver checks before loading that reads the runs' files, made once their paths are absolute: the
// longest row against the model folder's config.json positions (as on a platform that pads no row to the input
// size: a plugin's rules are the driver's to apply), --save_outputs and --check_outputs one folder. Runs that
// name the same files and sizes are judged once.
void check_run_files(const Plan& plan) {
  std::set<std::vector<std::string>> judged;
  for (const PlannedRun& run : plan.runs) {
    std::vector<std::string> read;  // the values these checks read, as typed
    for (const char* option : {"--model_root", "--model_name", "--input_sizes", "--input_lengths", "--save_outputs",
                               "--check_outputs"}) {
      const std::optional<ValueAt> at = value_of_option(run.argv, option);
      read.push_back(at ? text_at(run.argv, *at) : std::string("\n"));  // "\n": not given (no value holds one)
    }
    if (!judged.insert(std::move(read)).second) continue;
    try {
      const CommandLine cl = check_like_the_driver(run.argv);
      check_positions_before_loading(cl.args, false);
      check_output_folders_differ(cl.args);
    } catch (const Error& e) {
      throw usage_error(plan.source + ": " + escape_controls(describe_run(run)) + ": " + e.what());
    }
  }
}

}  // namespace

Plan load_experiment(const std::string& path) {
  nlohmann::json doc;
  try {
    doc = read_json_file(path);
  } catch (const Error& e) {
    throw usage_error(e.what());
  }
  resolve_length_files(doc, std::filesystem::path(path).parent_path());
  Plan plan = expand_experiment(doc, path);
  resolve_plan_paths(plan, std::filesystem::path(path).parent_path().string());
  check_run_files(plan);
  return plan;
}

}  // namespace fmwork
