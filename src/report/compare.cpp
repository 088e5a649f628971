// process --compare: records matched by key, ratios, and the noise flag from the STAT spread.
#include "fmwork/report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "fmwork/base/text_format.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/log/log_schema.hpp"
#include "fmwork/log/stats.hpp"
#include "fmwork/report/formats.hpp"

namespace fmwork {

namespace {

// One record's configuration: the value of each significant key (nullopt: the log does not say).
using Config = std::vector<std::optional<std::string>>;

struct Entry {
  CompareKey key;
  std::vector<CompareSide> repeats;  // the records of a campaign's repeats; one record otherwise
  Config config;
  std::string model;                 // RES's model name as written
};

bool named(const std::vector<std::string>& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// The first significant key, not matched or ignored, that both configs state with different values.
std::optional<size_t> difference(const Config& x, const Config& y, const CompareOptions& options) {
  const std::vector<std::string>& keys = significant_meta_keys();
  for (size_t i = 0; i < keys.size(); ++i)
    if (!named(options.match, keys[i]) && !named(options.ignore_meta, keys[i]) && x[i] && y[i] && *x[i] != *y[i])
      return i;
  return std::nullopt;
}

// Several repeats as one side: medians, the sample stddev of their latencies as the spread, and as CoV.
CompareSide gathered(const std::vector<CompareSide>& repeats) {
  if (repeats.size() == 1) return repeats[0];
  std::vector<double> latency, throughput, tokens;
  std::string verdict;
  bool mixed = false;
  for (const CompareSide& r : repeats) {
    latency.push_back(r.latency_ms), throughput.push_back(r.throughput), tokens.push_back(r.tokens_per_s);
    if (r.verdict != "ok" && !r.verdict.empty()) verdict = r.verdict;
    else if (verdict.empty()) verdict = r.verdict;
    mixed = mixed || r.mixed;
  }
  const auto sample_stddev = [](const std::vector<double>& values) {
    double mean = 0, squares = 0;
    for (double v : values) mean += v / static_cast<double>(values.size());
    for (double v : values) squares += (v - mean) * (v - mean);
    return std::sqrt(squares / static_cast<double>(values.size() - 1));
  };
  const double stddev = sample_stddev(latency), mid = median(latency);
  CompareSide side{mid,         median(throughput), stddev, repeats.size(), median(tokens), std::nullopt, verdict,
                   mixed,       sample_stddev(tokens)};
  if (mid > 0) side.cov = stddev / mid;
  return side;
}

// A record's latency in ms under `statistic`: median is precise_latency_ms() (formats.hpp); min is STAT's
// min_ms, else the least kept REP duration; p10 the 10th percentile of the kept REP durations (a STAT line
// has none); mean STAT's mean_ms, else the kept durations' mean. nullopt when the log cannot give it (p10
// without REP lines, min or mean with neither STAT nor REP lines).
std::optional<double> statistic_ms(const CombinationRecord& r, Statistic statistic) {
  if (statistic == Statistic::median) return precise_latency_ms(r);
  const std::vector<double> kept = kept_durations_ms(r);
  const std::optional<double> stat_value =
      r.stat ? r.stat->fields.get_double(statistic == Statistic::min ? stat_key::min_ms : stat_key::mean_ms) : std::nullopt;
  switch (statistic) {
    case Statistic::p10:
      return kept.empty() ? std::nullopt : std::optional<double>(percentile(kept, 10));
    case Statistic::min:
      if (stat_value) return stat_value;
      return kept.empty() ? std::nullopt : std::optional<double>(*std::min_element(kept.begin(), kept.end()));
    case Statistic::mean: {
      if (stat_value) return stat_value;
      if (kept.empty()) return std::nullopt;
      double sum = 0;
      for (double d : kept) sum += d;
      return sum / static_cast<double>(kept.size());
    }
    default: return precise_latency_ms(r);
  }
}

CompareSide side_of(const ParsedLog& log, const CombinationRecord& r, Statistic statistic) {
  // get_double, not stod: a hostile 1e999 reads as inf (as Python's float), it does not throw.
  CompareSide side;
  const std::optional<double> latency = statistic_ms(r, statistic);
  if (!latency) {
    const bool p10 = statistic == Statistic::p10;
    throw usage_error(fmt::format("--statistic {}: {} input {} batch {} has {} to take it from; use --statistic {}",
                                  statistic_spec(statistic).name, source_name(log.source), r.res.input, r.res.batch,
                                  p10 ? "no REP lines" : "neither a STAT line nor REP lines",
                                  p10 && r.stat ? "min or median (its STAT line has them)" : "median"));
  }
  side.latency_ms = *latency;
  side.throughput = static_cast<double>(r.res.batch) * 1000.0 / side.latency_ms;
  side.stddev_ms = r.stat ? r.stat->fields.get_double(stat_key::stddev_ms) : std::nullopt;
  side.tokens_per_s = tokens_per_s(r.res.input, r.res.batch, side.latency_ms);
  // Mixed lengths: STAT's tokens_per_s is the kept reps' real tokens over their summed durations, the work the
  // requests asked for; batch x input (the longest length allowed) over a median batch is no one's work.
  if (r.stat && r.stat->fields.find(stat_key::real_tokens))
    if (const std::optional<double> real = r.stat->fields.get_double(stat_key::tokens_per_s)) {
      side.mixed = true;
      side.tokens_per_s = *real;
    }
  if (const std::optional<Verdict> verdict = verdict_of(r)) {
    side.cov = verdict->spread.cov;
    side.verdict = std::string(verdict_text(verdict->word));
  }
  if (side.cov) side.tokens_stddev = side.tokens_per_s * *side.cov;
  return side;
}

}  // namespace

std::string compare_run(const ParsedLog& log, const CombinationRecord& r) {
  const std::string run_id = repeated_run(log);
  return !run_id.empty() ? run_id : model_key(r.res.model_name) + " " + r.res.model_class + " " + r.precision.value_or("-");
}

std::string model_key(const std::string& model_name) { return model_short_name(model_name); }

const char* measure_name(Measure measure) { return measure == Measure::real_tokens ? "real_tokens_per_s" : "latency"; }

namespace {

// What a record is paired by: today's run text, or with explicit keys the values of the matched ones.
std::string run_text(const ParsedLog& log, const CombinationRecord& r, const std::string& run_id,
                     const CompareOptions& options) {
  if (!options.explicit_keys())
    return !run_id.empty() ? run_id : compare_run(log, r);
  std::string text;
  for (const std::string& key : options.match) {
    if (key == res_position::input || key == res_position::batch) continue;
    text += (text.empty() ? "" : " ") + key + "=" + meta_value(log, r, key).value_or("-");
  }
  return text.empty() ? "*" : text;
}

// Key text -> results. `side` names the side ("A", "B") in messages.
std::map<std::string, Entry> by_key(const std::vector<ParsedLog>& logs, const CompareOptions& options,
                                    const char* side) {
  std::map<std::string, Entry> out;
  for (const ParsedLog& log : logs) {
    const std::string run_id = repeated_run(log);
    const bool repeat = !label_of(log, "repeat").empty();
    for (const CombinationRecord& r : log.results) {
      const std::string what = run_text(log, r, run_id, options);
      CompareKey key{what, r.res.input, r.res.batch, fmt::format("{} {:>6} {:>6}", what, r.res.input, r.res.batch)};
      Config config;
      for (const std::string& k : significant_meta_keys()) config.push_back(meta_value(log, r, k));
      Entry& entry = out[key.text];
      if (!entry.repeats.empty()) {
        // The same key twice with another configuration is two experiments, not a re-run: say which key.
        CompareOptions strict;
        strict.match = options.match;
        if (const auto i = difference(entry.config, config, strict)) {
          const std::string& k = significant_meta_keys()[*i];
          throw usage_error(fmt::format("--compare {}: {} has {} {} and {}; name {} in --match to pair each with its own",
                                        side, key.text, k, *entry.config[*i], *config[*i], k));
        }
      }
      if (!repeat) entry.repeats.clear();
      entry.key = std::move(key);
      entry.config = std::move(config);
      entry.model = r.res.model_name;
      entry.repeats.push_back(side_of(log, r, options.statistic));
    }
  }
  return out;
}

// The distinct runs of one side's entries (CompareKey::run), at most three named, for a message.
std::string runs_of(const std::map<std::string, Entry>& entries) {
  std::vector<std::string> runs;
  for (const auto& e : entries)
    if (std::find(runs.begin(), runs.end(), e.second.key.run) == runs.end()) runs.push_back(e.second.key.run);
  std::string out;
  for (size_t i = 0; i < runs.size() && i < 3; ++i) out += (i ? ", " : "") + ("'" + runs[i] + "'");
  return runs.size() > 3 ? out + fmt::format(" and {} more", runs.size() - 3) : out;
}

// Why nothing paired: an Error of one line rather than an empty table with exit 0. A significant key that
// differs between the sides (pass --ignore-meta), runs that pair by different names (a campaign's runs named
// after their configuration: pass --match), or no size in common (nothing to compare: a runtime Error).
void refuse_empty(const std::map<std::string, Entry>& left, const std::map<std::string, Entry>& right,
                  const CompareOptions& options) {
  if (left.empty() || right.empty())
    throw runtime_error(fmt::format("--compare: {} has no result (no FMWORK RES line) to compare; give logs with results",
                                    left.empty() ? "A" : "B"));
  const Entry &x = left.begin()->second, &y = right.begin()->second;
  if (!options.explicit_keys())
    if (const auto i = difference(x.config, y.config, CompareOptions{})) {
      const std::string& k = significant_meta_keys()[*i];
      throw usage_error(fmt::format("--compare: no combination of A pairs with one of B: they differ in {} (A: {}, B: {}); "
                                    "pass --ignore-meta {} to pair them on input and batch",
                                    k, *x.config[*i], *y.config[*i], k));
    }
  std::set<std::pair<int64_t, int64_t>> sizes_a, shared;
  for (const auto& e : left) sizes_a.emplace(e.second.key.input, e.second.key.batch);
  for (const auto& e : right)
    if (sizes_a.count({e.second.key.input, e.second.key.batch})) shared.emplace(e.second.key.input, e.second.key.batch);
  if (shared.empty())
    throw runtime_error("--compare: A and B have no input and batch in common: nothing to compare; run both on the "
                        "same --input_sizes and --batch_sizes");
  throw usage_error(fmt::format("--compare: no combination of A pairs with one of B: they pair by {} (A: {}; B: {}); "
                                "pass --match input,batch to pair on the sizes alone, or --match KEYS with the keys that "
                                "should agree",
                                options.explicit_keys() ? "the --match keys" : "run (the run_id label, else model, class "
                                                                               "and precision)",
                                runs_of(left), runs_of(right)));
}

// The last META line's value of `key`, else the log's label of that name: a matrix column of a campaign
// (--match torch.call:set_num_threads, --baseline model:torch_dtype=...).
std::optional<std::string> meta_or_label(const ParsedLog& log, const std::string& key) {
  for (auto it = log.meta.rbegin(); it != log.meta.rend(); ++it)
    if (const std::string* value = it->fields.find(key)) return *value;
  for (const auto& label : log.labels)
    if (label.first == key) return label.second;
  return std::nullopt;
}

size_t most_repeats(const Comparison& c, bool b_side) {
  size_t n = 1;
  for (const ComparedPair& p : c.pairs) n = std::max(n, b_side ? p.b.repeats : p.a.repeats);
  return n;
}

}  // namespace

std::string repeated_run(const ParsedLog& log) {
  std::string run_id = label_of(log, "run_id");
  const std::string suffix = ".r" + label_of(log, "repeat");
  if (suffix.size() > 2 && run_id.size() > suffix.size() &&
      run_id.compare(run_id.size() - suffix.size(), suffix.size(), suffix) == 0)
    run_id.resize(run_id.size() - suffix.size());
  return run_id;
}

std::optional<std::string> log_value(const ParsedLog& log, const std::string& key) {
  return log.results.empty() ? meta_or_label(log, key) : meta_value(log, log.results.front(), key);
}

bool one_to_one(const std::vector<std::string>& x, const std::vector<std::string>& y) {
  std::map<std::string, std::string> xy, yx;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
    if (xy.emplace(x[i], y[i]).first->second != y[i]) return false;
    if (yx.emplace(y[i], x[i]).first->second != x[i]) return false;
  }
  return true;
}

std::string verdict_mark(const ComparedPair& pair, const std::string& a_name, const std::string& b_name) {
  std::string out;
  for (const auto& [name, side] : {std::make_pair(&a_name, &pair.a), std::make_pair(&b_name, &pair.b)})
    if (!side->verdict.empty() && side->verdict != "ok") out += (out.empty() ? "" : ", ") + *name + " " + side->verdict;
  return out;
}

double ComparedPair::latency_ratio() const { return b.latency_ms / a.latency_ms; }

double ComparedPair::throughput_ratio() const { return b.throughput / a.throughput; }

double ComparedPair::tokens_ratio() const { return b.tokens_per_s / a.tokens_per_s; }

double ComparedPair::time_ratio() const {
  return measure == Measure::real_tokens ? a.tokens_per_s / b.tokens_per_s : latency_ratio();
}

std::optional<bool> ComparedPair::noise() const {
  if (measure == Measure::real_tokens) {
    if (!a.tokens_stddev || !b.tokens_stddev) return std::nullopt;
    const double spread = std::sqrt(*a.tokens_stddev * *a.tokens_stddev + *b.tokens_stddev * *b.tokens_stddev);
    return std::fabs(b.tokens_per_s - a.tokens_per_s) <= spread;
  }
  if (!a.stddev_ms || !b.stddev_ms) return std::nullopt;
  const double spread = std::sqrt(*a.stddev_ms * *a.stddev_ms + *b.stddev_ms * *b.stddev_ms);
  return std::fabs(b.latency_ms - a.latency_ms) <= spread;
}

std::string spread_word(const ComparedPair& pair) {
  const std::optional<bool> noise = pair.noise();
  return !noise ? "?" : *noise ? "noise" : "beyond";
}

std::string measure_lines(const Comparison& c) {
  std::string out;
  if (c.measure == Measure::real_tokens)
    out += "measure: real tokens per second, the kept reps' real tokens over their summed time (STAT's tokens_per_s): "
           "runs of mixed lengths (--input_lengths) run batches of different work, so a batch's latency does not "
           "compare them; spread: that rate's CoV at equal work\n";
  for (const auto& [a, b] : c.renamed_models)
    out += fmt::format("models paired by their folder's name: A {}, B {} are both {}\n", a, b, model_key(a));
  return out;
}

const std::vector<std::string>& significant_meta_keys() {
  // The schema's (log_schema.hpp: META rows marked compared, and FMWORK_COMPARED_KEYS); held as strings for the
  // callers' maps and messages.
  static const std::vector<std::string> keys(compared_keys().begin(), compared_keys().end());
  return keys;
}

std::optional<std::string> meta_value(const ParsedLog& log, const CombinationRecord& record, const std::string& key) {
  if (key == compared_key::model) return model_key(record.res.model_name);
  if (key == res_position::input) return std::to_string(record.res.input);
  if (key == res_position::batch) return std::to_string(record.res.batch);
  if (key == meta_key::dtype && record.precision) return record.precision;
  // runtime stands for compile: an ONNX file run by OpenVINO is compile=false beside an OpenVINO backend run's
  // compile=true, and both are runtime=openvino. A log written before runtime=: its compile flag is what it says.
  if (key == meta_key::runtime) {
    if (auto runtime = meta_or_label(log, key)) return runtime;
    if (auto compile = meta_or_label(log, std::string(meta_key::compile))) return *compile == "true" ? "compiled" : "eager";
    return std::nullopt;
  }
  return meta_or_label(log, key);
}

Comparison compare_logs(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b,
                        const CompareOptions& options) {
  const auto left = by_key(a, options, "A"), right = by_key(b, options, "B");
  Comparison out;
  out.statistic = options.statistic;
  for (const auto& entry : left) {
    auto it = right.find(entry.first);
    if (it == right.end()) {
      out.only_a.push_back(entry.second.key);
      continue;
    }
    if (const auto i = difference(entry.second.config, it->second.config, options)) {
      const std::string& k = significant_meta_keys()[*i];
      throw usage_error(fmt::format("--compare: {} differs in {} (A: {}, B: {}); compare like with like, or pass "
                                    "--ignore-meta {} to pair them anyway",
                                    entry.second.key.text, k, *entry.second.config[*i], *it->second.config[*i], k));
    }
    out.pairs.push_back(ComparedPair{entry.second.key, gathered(entry.second.repeats), gathered(it->second.repeats),
                                     Measure::latency});
    const std::pair<std::string, std::string> models{entry.second.model, it->second.model};
    if (models.first != models.second &&
        std::find(out.renamed_models.begin(), out.renamed_models.end(), models) == out.renamed_models.end())
      out.renamed_models.push_back(models);
  }
  for (const auto& entry : right)
    if (!left.count(entry.first)) out.only_b.push_back(entry.second.key);
  if (out.pairs.empty() && !options.allow_empty) refuse_empty(left, right, options);
  const auto mixed = [](const ComparedPair& p) { return p.a.mixed || p.b.mixed; };
  if (std::any_of(out.pairs.begin(), out.pairs.end(), mixed)) {
    out.measure = Measure::real_tokens;
    for (ComparedPair& p : out.pairs) p.measure = Measure::real_tokens;
    if (options.statistic != Statistic::median) {
      const ComparedPair& p = *std::find_if(out.pairs.begin(), out.pairs.end(), mixed);
      throw usage_error(fmt::format("--statistic {}: {} ran mixed lengths (--input_lengths): its reps are batches of "
                                    "different work, compared on real tokens per second over all the kept reps, which "
                                    "no single rep's statistic gives; leave --statistic out",
                                    statistic_spec(options.statistic).name, p.key.text));
    }
  }
  return out;
}

std::vector<const ComparedPair*> slower_pairs(const Comparison& comparison, double percent) {
  std::vector<const ComparedPair*> out;
  for (const ComparedPair& p : comparison.pairs) {
    const double change = p.time_ratio() - 1, cov = std::max(p.a.cov.value_or(0), p.b.cov.value_or(0));
    if (change > percent / 100 && change > 2 * cov) out.push_back(&p);
  }
  return out;
}

std::string slower_lines(const Comparison& comparison, double percent) {
  std::string out;
  for (const ComparedPair* p : slower_pairs(comparison, percent)) {
    const double cov = std::max(p->a.cov.value_or(0), p->b.cov.value_or(0));
    out += fmt::format("{}: B/A {} {:.3f}x (+{:.1f}% > {:g}%, 2 x CoV {:.1f}%)\n", p->key.text,
                       p->measure == Measure::real_tokens ? "time per real token" : "latency", p->time_ratio(),
                       (p->time_ratio() - 1) * 100, percent, 2 * cov * 100);
  }
  return out;
}

std::string compare_report(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b) {
  return compare_report(compare_logs(a, b));
}

std::string compare_report(const Comparison& comparison) {
  const StatisticSpec& statistic = statistic_spec(comparison.statistic);
  const bool tokens = comparison.measure == Measure::real_tokens;
  std::vector<std::vector<std::string>> rows{
      {"run  input  batch", tokens ? "A real_tok/s" : std::string("A ") + statistic.heading,
       tokens ? "B real_tok/s" : std::string("B ") + statistic.heading, tokens ? "B/A tok/s" : "B/A lat",
       tokens ? "B/A lat" : "B/A thp", "spread", "verdicts"}};
  size_t marked = 0;
  for (const ComparedPair& p : comparison.pairs) {
    const std::string mark = verdict_mark(p);
    marked += mark.empty() ? 0 : 1;
    if (tokens)
      rows.push_back({p.key.text, fmt::format("{:.1f}", p.a.tokens_per_s), fmt::format("{:.1f}", p.b.tokens_per_s),
                      fmt::format("{:.3f}x", p.tokens_ratio()), fmt::format("{:.3f}x", p.latency_ratio()),
                      spread_word(p), mark});
    else
      rows.push_back({p.key.text, fmt::format("{:.4f}", p.a.latency_ms), fmt::format("{:.4f}", p.b.latency_ms),
                      fmt::format("{:.3f}x", p.latency_ratio()), fmt::format("{:.3f}x", p.throughput_ratio()),
                      spread_word(p), mark});
  }
  // The header's first cell spans the key's three parts: it is not measured (a short key column lets it
  // run over); the numbers' columns are as wide as their headings at least; no line is trimmed.
  TableLayout layout;
  layout.right = {false, true, true, true, true, false, false};
  layout.min_width = {3, 12, 12, 9, 9, 6};
  layout.first_row_sets_width = false;
  layout.trim = false;
  std::string out = aligned_table(rows, layout) + measure_lines(comparison);
  if (comparison.statistic != Statistic::median)
    out += fmt::format("latency: {}, {} (--statistic {}; repeats: the median of theirs)\n", statistic.heading,
                       statistic.help, statistic.name);
  if (marked > 0)
    out += fmt::format("{} of {} ratios rest on a run whose verdict is not ok (the verdicts column): `process --format "
                       "summary` on its log says why and what to do\n",
                       marked, comparison.pairs.size());
  out += fmt::format("{} combinations in A only, {} in B only\n", comparison.only_a.size(), comparison.only_b.size());
  const size_t ra = most_repeats(comparison, false), rb = most_repeats(comparison, true);
  if (ra > 1 || rb > 1)
    out += fmt::format("repeats: up to {} in A, {} in B; latency is their median, the spread their stddev\n", ra, rb);
  return out;
}

}  // namespace fmwork
