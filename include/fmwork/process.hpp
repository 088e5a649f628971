// Driver logs into records, and records into upstream's JSON (and other formats). No LibTorch here.
#pragma once

#include <istream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fmwork/log_format.hpp"

namespace fmwork {

// One FMWORK RES line with what the log says around it.
struct RunRecord {
  ResLine res;
  std::vector<std::string> opts;        // ARG texts seen so far in the file
  std::optional<double> setup_seconds;  // from FMWORK SETUP
  std::optional<std::string> precision; // from FMWORK META dtype=
  std::optional<StatLine> stat;         // the STAT line of the same (input, batch)
  std::optional<MemLine> mem;           // the MEM line of the same (input, batch)
};

struct ParsedLog {
  std::string source;                // the path, or "-" for stdin
  std::vector<RunRecord> runs;
  std::vector<FailLine> failures;
  std::vector<MetaLine> meta;
};

// Reads a whole log. A malformed FMWORK line throws a runtime Error "<source>:<line>: <what>".
ParsedLog parse_log(std::istream& in, const std::string& source);

// Upstream's JSON list: one object per RES line, keys in upstream's order (timestamp, metadata_id,
// engine, model, precision, input, output, batch, tp, opts, warmup, setup, ttft, itl, thp).
nlohmann::ordered_json to_upstream_json(const std::vector<ParsedLog>& logs,
                                        const std::optional<std::string>& metadata_id);

}  // namespace fmwork
