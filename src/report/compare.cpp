// process --compare: records matched by key, ratios, and the noise flag from the STAT spread.
#include "fmwork/report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "fmwork/base/text_format.hpp"
#include "fmwork/base/error.hpp"
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
  for (const CompareSide& r : repeats) {
    latency.push_back(r.latency_ms), throughput.push_back(r.throughput), tokens.push_back(r.tokens_per_s);
    if (r.verdict != "ok" && !r.verdict.empty()) verdict = r.verdict;
    else if (verdict.empty()) verdict = r.verdict;
  }
  double mean = 0, squares = 0;
  for (double l : latency) mean += l / static_cast<double>(latency.size());
  for (double l : latency) squares += (l - mean) * (l - mean);
  const double stddev = std::sqrt(squares / static_cast<double>(latency.size() - 1)), mid = median(latency);
  CompareSide side{mid, median(throughput), stddev, repeats.size(), median(tokens), std::nullopt, verdict};
  if (mid > 0) side.cov = stddev / mid;
  return side;
}

CompareSide side_of(const CombinationRecord& r) {
  // get_double, not stod: a hostile 1e999 reads as inf (as Python's float), it does not throw.
  CompareSide side;
  side.latency_ms = precise_latency_ms(r);
  side.throughput = precise_throughput(r);
  side.stddev_ms = r.stat ? r.stat->fields.get_double("stddev_ms") : std::nullopt;
  side.tokens_per_s = tokens_per_s(r.res.input, r.res.batch, side.latency_ms);
  if (const std::optional<Verdict> verdict = verdict_of(r)) {
    side.cov = verdict->spread.cov;
    side.verdict = std::string(verdict_text(verdict->word));
  }
  return side;
}

// What a record is paired by: today's run text, or with explicit keys the values of the matched ones.
std::string run_text(const ParsedLog& log, const CombinationRecord& r, const std::string& run_id,
                     const CompareOptions& options) {
  if (!options.explicit_keys())
    return !run_id.empty() ? run_id : r.res.model_name + " " + r.res.model_class + " " + r.precision.value_or("-");
  std::string text;
  for (const std::string& key : options.match) {
    if (key == "input" || key == "batch") continue;
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
      entry.repeats.push_back(side_of(r));
    }
  }
  return out;
}

// Why nothing paired, when a significant key differs between the sides: the usage Error that says so.
void refuse_empty(const std::map<std::string, Entry>& left, const std::map<std::string, Entry>& right) {
  if (left.empty() || right.empty()) return;
  const Entry &x = left.begin()->second, &y = right.begin()->second;
  if (const auto i = difference(x.config, y.config, CompareOptions{})) {
    const std::string& k = significant_meta_keys()[*i];
    throw usage_error(fmt::format("--compare: no combination of A pairs with one of B: they differ in {} (A: {}, B: {}); "
                                  "pass --ignore-meta {} to pair them on input and batch",
                                  k, *x.config[*i], *y.config[*i], k));
  }
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

std::optional<bool> ComparedPair::noise() const {
  if (!a.stddev_ms || !b.stddev_ms) return std::nullopt;
  const double spread = std::sqrt(*a.stddev_ms * *a.stddev_ms + *b.stddev_ms * *b.stddev_ms);
  return std::fabs(b.latency_ms - a.latency_ms) <= spread;
}

const std::vector<std::string>& significant_meta_keys() {
  static const std::vector<std::string> keys = {"dtype",    "threads",  "compile", "platform",
                                                "attn",     "model",    "batching", "lengths"};
  return keys;
}

std::optional<std::string> meta_value(const ParsedLog& log, const CombinationRecord& record, const std::string& key) {
  if (key == "model") return record.res.model_name;
  if (key == "input") return std::to_string(record.res.input);
  if (key == "batch") return std::to_string(record.res.batch);
  if (key == kMetaDtype && record.precision) return record.precision;
  return meta_or_label(log, key);
}

Comparison compare_logs(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b,
                        const CompareOptions& options) {
  const auto left = by_key(a, options, "A"), right = by_key(b, options, "B");
  Comparison out;
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
    out.pairs.push_back(ComparedPair{entry.second.key, gathered(entry.second.repeats), gathered(it->second.repeats)});
  }
  for (const auto& entry : right)
    if (!left.count(entry.first)) out.only_b.push_back(entry.second.key);
  if (out.pairs.empty() && !options.explicit_keys()) refuse_empty(left, right);
  return out;
}

std::vector<const ComparedPair*> slower_pairs(const Comparison& comparison, double percent) {
  std::vector<const ComparedPair*> out;
  for (const ComparedPair& p : comparison.pairs) {
    const double change = p.latency_ratio() - 1, cov = std::max(p.a.cov.value_or(0), p.b.cov.value_or(0));
    if (change > percent / 100 && change > 2 * cov) out.push_back(&p);
  }
  return out;
}

std::string slower_lines(const Comparison& comparison, double percent) {
  std::string out;
  for (const ComparedPair* p : slower_pairs(comparison, percent)) {
    const double cov = std::max(p->a.cov.value_or(0), p->b.cov.value_or(0));
    out += fmt::format("{}: B/A latency {:.3f}x (+{:.1f}% > {:g}%, 2 x CoV {:.1f}%)\n", p->key.text, p->latency_ratio(),
                       (p->latency_ratio() - 1) * 100, percent, 2 * cov * 100);
  }
  return out;
}

std::string compare_report(const std::vector<ParsedLog>& a, const std::vector<ParsedLog>& b) {
  return compare_report(compare_logs(a, b));
}

std::string compare_report(const Comparison& comparison) {
  std::vector<std::vector<std::string>> rows{
      {"run  input  batch", "A latency_ms", "B latency_ms", "B/A lat", "B/A thp", "spread", "verdicts"}};
  size_t marked = 0;
  for (const ComparedPair& p : comparison.pairs) {
    const std::optional<bool> noise = p.noise();
    const std::string mark = verdict_mark(p);
    marked += mark.empty() ? 0 : 1;
    rows.push_back({p.key.text, fmt::format("{:.4f}", p.a.latency_ms), fmt::format("{:.4f}", p.b.latency_ms),
                    fmt::format("{:.3f}x", p.latency_ratio()), fmt::format("{:.3f}x", p.throughput_ratio()),
                    !noise ? "?" : *noise ? "noise" : "", mark});
  }
  // The header's first cell spans the key's three parts: it is not measured (a short key column lets it
  // run over); the numbers' columns are as wide as their headings at least; no line is trimmed.
  TableLayout layout;
  layout.right = {false, true, true, true, true, false, false};
  layout.min_width = {3, 12, 12, 9, 9, 6};
  layout.first_row_sets_width = false;
  layout.trim = false;
  std::string out = aligned_table(rows, layout);
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
