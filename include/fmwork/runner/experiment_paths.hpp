// The paths of an experiment file's runs: resolved against the file's folder, not the folder `driver run` is
// started from, and checked before a campaign's tree is made. No LibTorch here.
#pragma once

#include <string>
#include <vector>

#include "fmwork/runner/experiment.hpp"

namespace fmwork {

// Makes every relative path of `plan`'s runs absolute against `folder` (an experiment file's folder; made
// absolute against the current folder first), and checks each as its option uses it (a file or folder read, or an output written). A relative --model_name
// without --model_root gets `--model_root FOLDER` (inserted before it): the name, which RES and the reports
// show, stays as typed. Throws a usage Error, one line naming the file (plan.source), the run, the option and
// what would be right: `x.json: run "minilm": --model_name models/m: no such file or folder (looked for
// /abs/models/m; paths in an experiment file are relative to its folder, /abs)`.
void resolve_plan_paths(Plan& plan, const std::string& folder);

// The experiment file at `path` read (read_json_file's limits; its errors as usage Errors), expanded
// (expand_experiment, experiment.hpp) and its paths resolved against its folder (resolve_plan_paths; a
// relative `--input_lengths file:PATH` made absolute there before the expansion, whose checks read it); then
// each run held to its files as the driver holds it before loading (the model folder's config.json positions,
// check_positions_before_loading; --save_outputs and --check_outputs one folder), a usage Error naming the file
// and the run as expand_experiment's do.
Plan load_experiment(const std::string& path);

}  // namespace fmwork
