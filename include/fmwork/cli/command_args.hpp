// What the one option table (options.hpp) fills for the commands that are no run of the model: `process`,
// `driver run` and `driver --cache` (CacheArgs, cache/cache_command.hpp). Plain data, as their rows read it; the layers above turn it into their own
// types (report/'s ProcessOptions, runner/'s RunnerOptions) and check the options against each other there.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fmwork/cache/cache_command.hpp"

namespace fmwork {

// `process`'s options. statistic, baseline_text and chart_scale_text as given (statistic and the chart scale one
// of their choices); match and ignore_meta as META keys.
struct ProcessArgs {
  std::vector<std::string> paths;
  std::optional<std::string> metadata_id;
  std::string format = "json";
  bool format_given = false;
  bool upstream_only = false;
  std::vector<std::string> compare;      // --compare A B
  std::optional<std::string> out_file;   // --out
  std::vector<std::string> match, ignore_meta;
  std::optional<double> fail_percent;    // --fail-if-slower
  std::string statistic = "median";
  std::optional<std::string> baseline_text, chart_scale_text;  // --baseline KEY=VALUE, --chart-scale
  bool version = false, schema = false;
};

// `driver run`'s options (its `--slurm:KEY VALUE` words: CommandLine::keyed).
struct RunArgs {
  std::string experiment, out, resume, devices;
  bool list = false;
  std::vector<std::string> task;  // --task DIR INDEX: one run of a campaign (a Slurm array task)
  bool slurm = false, wait = false, no_submit = false;
  size_t max_tasks = 0;  // --max-tasks N
};

}  // namespace fmwork
