// Driver logs into records; records into upstream's JSON, CSV and a summary table.
#include "fmwork/process.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <utility>

#include <CLI/CLI.hpp>

#include "fmwork/error.hpp"
#include "fmwork/py_text.hpp"
#include "fmwork/stats.hpp"

namespace fmwork {

namespace {

using Key = std::pair<int64_t, int64_t>;  // (input, batch)

std::string display_source(const std::string& source) { return source == "-" ? "<stdin>" : source; }

Key key_of(const Fields& fields) { return {fields.get_int("input").value_or(0), fields.get_int("batch").value_or(0)}; }
Key key_of(const ResLine& res) { return {res.input, res.batch}; }

// The RES line's t_first field exactly as written (parse_line has already checked the line).
std::string raw_t_first(std::string_view line) {
  std::string_view rest = line.substr(std::string_view("FMWORK RES ").size());
  return std::string(rest.substr(0, rest.find(' ')));
}

ParsedLog parse_text(std::string_view text, const std::string& source) {
  ParsedLog log;
  log.source = source;
  const std::string where = display_source(source);

  std::optional<double> setup;
  std::optional<std::string> precision;
  std::vector<Nanos> block;         // REP durations since the last RES / FAIL
  constexpr size_t kNone = static_cast<size_t>(-1);
  size_t open_res = kNone;          // index of the last RES while no REP / FAIL has followed it
  std::map<Key, StatLine> pending_stat;
  std::map<Key, MemLine> pending_mem;
  std::map<Key, CheckLine> pending_check;
  // A STAT / MEM / CHECK line belongs to the RES of its (input, batch) just before it; one that comes before
  // its RES waits for it.
  auto attach = [&](auto& line, auto member, auto& pending) {
    const Key key = key_of(line.fields);
    if (open_res != kNone && key_of(log.runs[open_res].res) == key && !(log.runs[open_res].*member)) {
      log.runs[open_res].*member = std::move(line);
    } else {
      pending[key] = std::move(line);
    }
  };
  auto take_pending = [](RunRecord& run, const Key& key, auto member, auto& pending) {
    if (auto it = pending.find(key); it != pending.end()) {
      run.*member = std::move(it->second);
      pending.erase(it);
    }
  };

  size_t pos = 0, line_number = 0;
  while (pos < text.size()) {
    size_t end = text.find_first_of("\r\n", pos);
    size_t next = text.size();
    if (end == std::string_view::npos) {
      end = text.size();
    } else {
      next = end + 1;
      if (text[end] == '\r' && next < text.size() && text[next] == '\n') ++next;
    }
    std::string_view line = text.substr(pos, end - pos);
    pos = next;
    ++line_number;

    std::optional<LogLine> parsed;
    try {
      parsed = parse_line(line);
    } catch (const Error& e) {
      throw with_context(where + ":" + std::to_string(line_number), e);
    }
    if (!parsed) continue;

    if (auto* arg = std::get_if<ArgLine>(&*parsed)) {
      log.opts.push_back(arg->text);
    } else if (auto* s = std::get_if<SetupLine>(&*parsed)) {
      setup = s->seconds;
    } else if (auto* meta = std::get_if<MetaLine>(&*parsed)) {
      if (const std::string* dtype = meta->fields.find("dtype")) precision = *dtype;
      log.meta.push_back(std::move(*meta));
    } else if (auto* rep = std::get_if<RepLine>(&*parsed)) {
      if (rep->rep == 1) block.clear();
      block.push_back(rep->t1 - rep->t0);
      open_res = kNone;
    } else if (auto* res = std::get_if<ResLine>(&*parsed)) {
      RunRecord run;
      run.res = std::move(*res);
      run.line = line_number;
      run.timestamp = raw_t_first(line);
      run.setup_seconds = setup;
      run.precision = precision;
      run.rep_durations = std::move(block);
      block.clear();
      const Key key = key_of(run.res);
      take_pending(run, key, &RunRecord::stat, pending_stat);
      take_pending(run, key, &RunRecord::mem, pending_mem);
      take_pending(run, key, &RunRecord::check, pending_check);
      log.runs.push_back(std::move(run));
      open_res = log.runs.size() - 1;
    } else if (auto* stat = std::get_if<StatLine>(&*parsed)) {
      attach(*stat, &RunRecord::stat, pending_stat);
    } else if (auto* mem = std::get_if<MemLine>(&*parsed)) {
      attach(*mem, &RunRecord::mem, pending_mem);
    } else if (auto* check = std::get_if<CheckLine>(&*parsed)) {
      attach(*check, &RunRecord::check, pending_check);
    } else if (auto* fail = std::get_if<FailLine>(&*parsed)) {
      const Key key = key_of(fail->fields);
      pending_stat.erase(key);
      pending_mem.erase(key);
      pending_check.erase(key);
      block.clear();
      open_res = kNone;
      log.failures.push_back(std::move(*fail));
      log.failure_lines.push_back(line_number);
    }
  }
  for (RunRecord& run : log.runs) run.opts = log.opts;
  return log;
}

std::string read_path(const std::string& path) {
  const std::string what = "--path " + path + ": ";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw runtime_error(what + "cannot open (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw runtime_error(what + "cannot open (" + std::strerror(EISDIR) + ")");
  }
  std::string contents;
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      throw runtime_error(what + "cannot read (" + std::strerror(err) + ")");
    }
    if (n == 0) break;
    contents.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return contents;
}

// ---- formatting helpers ----

std::string fixed(double value, int decimals) {
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return n < 0 ? std::string() : std::string(buf, std::min(static_cast<size_t>(n), sizeof buf - 1));
}

// The last "--<name> <value>" ARG text, for rows of FAIL lines (which name no model).
std::string arg_value(const std::vector<std::string>& opts, const std::string& name) {
  const std::string prefix = "--" + name + " ";
  std::string found;
  for (const auto& opt : opts) {
    if (opt.rfind(prefix, 0) == 0) found = opt.substr(prefix.size());
  }
  return found;
}

// Statistics of one RES: the STAT line's values as written, else computed from the REP lines.
const std::vector<std::string> kStatKeys = {"reps",   "dropped", "mean_ms", "stddev_ms", "min_ms",
                                            "p50_ms", "p90_ms",  "p99_ms",  "max_ms"};

std::map<std::string, std::string> run_stats(const RunRecord& run) {
  std::map<std::string, std::string> values;
  const Fields* fields = nullptr;
  StatLine computed;
  if (run.stat) {
    fields = &run.stat->fields;
  } else if (run.rep_durations.size() >= 2) {
    std::vector<double> seconds;
    seconds.reserve(run.rep_durations.size());
    for (Nanos d : run.rep_durations) seconds.push_back(static_cast<double>(d) / 1e9);
    computed = make_stat_line(run.res.input, run.res.batch, stat_values(summarize(seconds)));
    fields = &computed.fields;
  }
  if (fields) {
    for (const auto& key : kStatKeys) {
      if (const std::string* v = fields->find(key)) values[key] = *v;
    }
  }
  return values;
}

std::string mem_value(const RunRecord& run, const char* key) {
  if (!run.mem) return "";
  const std::string* v = run.mem->fields.find(key);
  return v ? *v : "";
}

std::string check_value(const RunRecord& run, const char* key) {
  if (!run.check) return "";
  const std::string* v = run.check->fields.find(key);
  return v ? *v : "";
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// A row-ordered view of a log: its RES and FAIL lines by line number.
struct Row {
  size_t line;
  const RunRecord* run;   // null for a failure
  const FailLine* fail;   // null for a result
};

std::vector<Row> rows_of(const ParsedLog& log) {
  std::vector<Row> rows;
  for (const auto& run : log.runs) rows.push_back({run.line, &run, nullptr});
  for (size_t i = 0; i < log.failures.size(); ++i) {
    rows.push_back({i < log.failure_lines.size() ? log.failure_lines[i] : 0, nullptr, &log.failures[i]});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.line < b.line; });
  return rows;
}

// The setup seconds and precision in effect at a line (for FAIL rows).
std::pair<std::optional<double>, std::optional<std::string>> context_at(const ParsedLog& log, size_t line) {
  std::pair<std::optional<double>, std::optional<std::string>> context;
  for (const auto& run : log.runs) {
    if (run.line < line) context = {run.setup_seconds, run.precision};
  }
  if (!context.second) {
    for (const auto& meta : log.meta) {
      if (const std::string* dtype = meta.fields.find("dtype")) context.second = *dtype;
    }
  }
  return context;
}

// Columns on screen: UTF-8 continuation bytes take none.
size_t display_width(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  }));
}

struct Table {
  std::vector<std::string> header;
  std::vector<bool> right;  // right-aligned columns
  std::vector<std::vector<std::string>> rows;

  std::string render(const std::string& margin) const {
    std::vector<size_t> width(header.size(), 0);
    for (size_t c = 0; c < header.size(); ++c) width[c] = display_width(header[c]);
    for (const auto& row : rows) {
      for (size_t c = 0; c < row.size() && c < width.size(); ++c) {
        width[c] = std::max(width[c], display_width(row[c]));
      }
    }
    std::string out;
    auto line = [&](const std::vector<std::string>& cells) {
      std::string text = margin;
      for (size_t c = 0; c < header.size(); ++c) {
        const std::string cell = c < cells.size() ? cells[c] : "";
        if (c > 0) text += "  ";
        const std::string pad(width[c] - std::min(width[c], display_width(cell)), ' ');
        if (c + 1 == header.size() && !right[c]) {
          text += cell;  // the last column is not padded
        } else {
          text += right[c] ? pad + cell : cell + pad;
        }
      }
      while (!text.empty() && text.back() == ' ') text.pop_back();
      out += text + "\n";
    };
    line(header);
    for (const auto& row : rows) line(row);
    return out;
  }
};

std::string ms3(const std::map<std::string, std::string>& values, const std::string& key) {
  auto it = values.find(key);
  if (it == values.end()) return "-";
  char* end = nullptr;
  double d = std::strtod(it->second.c_str(), &end);
  return end && *end == '\0' ? fixed(d, 3) : it->second;
}

std::string plural(size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

ParsedLog parse_log(std::istream& in, const std::string& source) {
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw runtime_error(display_source(source) + ": cannot read");
  return parse_text(text, source);
}

std::string engine_name(const ParsedLog& log) {
  for (const auto& meta : log.meta) {
    if (meta.fields.find("driver")) return "fmwork-cpp/embed";
  }
  return "fmwork/embed/tf";
}

nlohmann::ordered_json to_upstream_json(const std::vector<ParsedLog>& logs,
                                        const std::optional<std::string>& metadata_id, bool upstream_only) {
  using J = nlohmann::ordered_json;
  J hits = J::array();
  for (const ParsedLog& log : logs) {
    const std::string engine = upstream_only ? "fmwork/embed/tf" : engine_name(log);
    for (const RunRecord& run : log.runs) {
      J warmup = nullptr;
      if (!upstream_only && !run.rep_durations.empty()) {
        size_t dropped = warmup_reps(run.rep_durations.size());
        if (run.stat) {
          if (auto d = run.stat->fields.get_int("dropped")) dropped = static_cast<size_t>(*d);
        }
        dropped = std::min(dropped, run.rep_durations.size());
        Nanos sum = 0;
        for (size_t i = 0; i < dropped; ++i) sum += run.rep_durations[i];
        warmup = static_cast<double>(sum) / 1e9;
      }
      J hit = J::object();
      hit["timestamp"] = run.timestamp;
      hit["metadata_id"] = metadata_id ? J(*metadata_id) : J(nullptr);
      hit["engine"] = engine;
      hit["model"] = run.res.model_name;
      hit["precision"] = (!upstream_only && run.precision) ? J(*run.precision) : J(nullptr);
      hit["input"] = run.res.input;
      hit["output"] = 1;
      hit["batch"] = run.res.batch;
      hit["tp"] = 1;
      hit["opts"] = run.opts;
      hit["warmup"] = warmup;
      hit["setup"] = (!upstream_only && run.setup_seconds) ? J(*run.setup_seconds) : J(nullptr);
      hit["ttft"] = nullptr;
      hit["itl"] = run.res.latency_ms;
      hit["thp"] = run.res.throughput;
      hits.push_back(std::move(hit));
    }
  }
  return hits;
}

std::string to_csv(const std::vector<ParsedLog>& logs, const std::optional<std::string>& metadata_id) {
  const std::vector<std::string> header = {
      "source",  "metadata_id", "line",    "status",  "timestamp", "model",     "class",  "input",
      "batch",   "latency_ms",  "throughput", "setup_s", "precision", "reps",   "dropped", "mean_ms",
      "stddev_ms", "min_ms",    "p50_ms",  "p90_ms",  "p99_ms",    "max_ms",    "allocated_peak_bytes",
      "reserved_peak_bytes", "error", "check", "check_max_abs", "check_max_rel", "check_cosine"};
  std::string out;
  auto emit = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) out += ',';
      out += csv_cell(cells[i]);
    }
    out += '\n';
  };
  emit(header);
  for (const ParsedLog& log : logs) {
    for (const Row& row : rows_of(log)) {
      std::vector<std::string> cells;
      cells.push_back(log.source);
      cells.push_back(metadata_id.value_or(""));
      cells.push_back(std::to_string(row.line));
      if (row.run) {
        const RunRecord& run = *row.run;
        const auto stats = run_stats(run);
        cells.push_back("ok");
        cells.push_back(run.timestamp);
        cells.push_back(run.res.model_name);
        cells.push_back(run.res.model_class);
        cells.push_back(std::to_string(run.res.input));
        cells.push_back(std::to_string(run.res.batch));
        cells.push_back(fixed(run.res.latency_ms, 3));
        cells.push_back(fixed(run.res.throughput, 1));
        cells.push_back(run.setup_seconds ? fixed(*run.setup_seconds, 6) : "");
        cells.push_back(run.precision.value_or(""));
        for (const auto& key : kStatKeys) {
          auto it = stats.find(key);
          cells.push_back(it == stats.end() ? "" : it->second);
        }
        cells.push_back(mem_value(run, "allocated_peak_bytes"));
        cells.push_back(mem_value(run, "reserved_peak_bytes"));
        cells.push_back("");
        for (const char* key : {"result", "max_abs", "max_rel", "cosine"}) cells.push_back(check_value(run, key));
      } else {
        const Fields& f = row.fail->fields;
        const auto [setup, precision] = context_at(log, row.line);
        cells.push_back("fail");
        cells.push_back("");
        cells.push_back(arg_value(log.opts, "model_name"));
        cells.push_back(arg_value(log.opts, "model_class"));
        cells.push_back(*f.find("input"));
        cells.push_back(*f.find("batch"));
        cells.push_back("");
        cells.push_back("");
        cells.push_back(setup ? fixed(*setup, 6) : "");
        cells.push_back(precision.value_or(""));
        for (size_t i = 0; i < kStatKeys.size() + 2; ++i) cells.push_back("");
        const std::string* error = f.find("error");
        cells.push_back(error ? *error : "");
        for (int i = 0; i < 4; ++i) cells.push_back("");
      }
      emit(cells);
    }
  }
  return out;
}

std::string to_summary(const std::vector<ParsedLog>& logs) {
  std::string out;
  for (size_t l = 0; l < logs.size(); ++l) {
    const ParsedLog& log = logs[l];
    if (l > 0) out += "\n";
    out += display_source(log.source) + ": " + plural(log.runs.size(), "result") + ", " +
           plural(log.failures.size(), "failure") + "\n";
    for (const auto& meta : log.meta) {
      std::string text = "  meta:";
      for (const auto& [key, value] : meta.fields.items) text += " " + key + "=" + value;
      out += text + "\n";
    }
    std::vector<double> setups;
    for (const auto& run : log.runs) {
      if (run.setup_seconds && std::find(setups.begin(), setups.end(), *run.setup_seconds) == setups.end()) {
        setups.push_back(*run.setup_seconds);
      }
    }
    for (double s : setups) out += "  setup: " + fixed(s, 6) + " s\n";

    const bool any_mem = std::any_of(log.runs.begin(), log.runs.end(), [](const RunRecord& r) { return r.mem; });
    Table table;
    table.header = {"model", "class", "input", "batch", "latency_ms", "throughput", "p50_ms", "p90_ms", "p99_ms",
                    "stddev_ms", "reps", "dropped"};
    table.right = {false, false, true, true, true, true, true, true, true, true, true, true};
    if (any_mem) {
      table.header.push_back("peak_MiB");
      table.right.push_back(true);
    }
    table.header.push_back("status");
    table.right.push_back(false);
    for (const Row& row : rows_of(log)) {
      std::vector<std::string> cells;
      if (row.run) {
        const RunRecord& run = *row.run;
        const auto stats = run_stats(run);
        auto get = [&](const char* key) {
          auto it = stats.find(key);
          return it == stats.end() ? std::string("-") : it->second;
        };
        cells = {run.res.model_name,
                 run.res.model_class,
                 std::to_string(run.res.input),
                 std::to_string(run.res.batch),
                 fixed(run.res.latency_ms, 3),
                 fixed(run.res.throughput, 1),
                 ms3(stats, "p50_ms"),
                 ms3(stats, "p90_ms"),
                 ms3(stats, "p99_ms"),
                 ms3(stats, "stddev_ms"),
                 get("reps"),
                 get("dropped")};
        if (any_mem) {
          std::string bytes = mem_value(run, "allocated_peak_bytes");
          cells.push_back(bytes.empty() ? "-" : fixed(std::strtod(bytes.c_str(), nullptr) / 1048576.0, 1));
        }
        const std::string check = check_value(run, "result");
        cells.push_back(check.empty() ? "ok"
                        : check == "pass"
                            ? "ok, check pass"
                            : "CHECK FAIL: max_abs=" + check_value(run, "max_abs") + " cosine=" + check_value(run, "cosine"));
      } else {
        const Fields& f = row.fail->fields;
        std::string model = arg_value(log.opts, "model_name"), cls = arg_value(log.opts, "model_class");
        cells = {model.empty() ? "-" : model, cls.empty() ? "-" : cls, *f.find("input"), *f.find("batch")};
        for (int i = 0; i < 8; ++i) cells.push_back("-");
        if (any_mem) cells.push_back("-");
        const std::string* error = f.find("error");
        cells.push_back("FAIL: " + (error ? *error : std::string()));
      }
      table.rows.push_back(std::move(cells));
    }
    if (table.rows.empty()) {
      out += "  (no results)\n";
    } else {
      out += table.render("  ");
    }
  }
  return out;
}

void run_process(int argc, const char* const* argv, std::istream& in, std::ostream& out) {
  CLI::App app{
      "Turns fmwork driver logs into upstream's JSON (default), a CSV table or a readable summary.\n"
      "Reads FMWORK ARG / SETUP / REP / RES lines and the META / STAT / MEM / FAIL / CHECK extensions.",
      "process"};
  std::vector<std::string> paths;
  std::string metadata_id;
  std::string format = "json";
  bool upstream_only = false;
  app.add_option("--path,paths", paths,
                 "Driver logs, read in the order given into one output; - is standard input.\n"
                 "--path may be repeated or left out.")
      ->type_name("FILE");
  auto* metadata_option =
      app.add_option("--metadata_id", metadata_id, "Written into each JSON record (null when not given).")
          ->type_name("ID");
  app.add_option("--format", format, "json: upstream's list of records; csv: one row per RES and FAIL line;\n"
                                     "summary: an aligned table per log.")
      ->check(CLI::IsMember({"json", "csv", "summary"}))
      ->type_name("FORMAT");
  app.add_flag("--upstream", upstream_only,
               "JSON exactly as upstream's process writes it: precision, warmup, setup null;\n"
               "engine fmwork/embed/tf.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return;
  } catch (const CLI::ParseError& e) {
    throw usage_error(std::string(e.what()) + " (see process --help)");
  }
  if (paths.empty()) throw usage_error("no log given: pass --path FILE (or FILE; - reads standard input)");
  std::optional<std::string> id;
  if (metadata_option->count() > 0) id = metadata_id;

  std::vector<ParsedLog> logs;
  for (const std::string& path : paths) {
    if (path == "-") {
      logs.push_back(parse_log(in, "-"));
    } else {
      logs.push_back(parse_text(read_path(path), path));
    }
  }
  if (format == "csv") {
    out << to_csv(logs, id);
  } else if (format == "summary") {
    out << to_summary(logs);
  } else {
    out << python_json_dumps(to_upstream_json(logs, id, upstream_only), BadBytes::replace) << "\n";
  }
}

}  // namespace fmwork
