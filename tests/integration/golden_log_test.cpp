// Golden logs: what every reader of our logs depends on (ARG lines and the args JSON, META's keys, SETUP, REP,
// RES, STAT, MEM, CHECK, SERVE, CAPACITY, and process's CSV and JSON made of them), from seeded runs of each
// command, held byte for byte against tests/integration/golden/*.txt. What the clock or the machine decides is
// masked to '#' (timings, rates achieved, memory, verdicts and their reasons, META's values); what the command
// line and the seed decide is kept, so a value written under another field's name, a field moved or renamed,
// or a line dropped fails here. A renovation of the writers must leave these files unchanged; a change of the
// format on purpose rewrites them with FMWORK_UPDATE_GOLDEN=1 (then read the diff before committing it).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fmwork/loaders/hf_model.hpp"
#include "support/test_support.hpp"
#include "support/text_lines.hpp"

namespace fmwork {
namespace {

using namespace fmwork::test_support;

// Keys whose values the command line, the seed or the model decide: kept. Every other value is masked.
const std::set<std::string>& golden_kept_keys() {
  static const std::set<std::string> keys = {
      "input", "batch", "reps", "dropped", "level", "phase", "arrival", "rate", "lengths", "batching",
      "max_batch", "max_wait_ms", "max_tokens", "bound", "result", "steps", "price_per_hour",
      "host_rss_peak_of", "flops_from", "check", "status", "model", "class", "precision", "metadata_id",
      "engine", "real_tokens", "padded_tokens", "padding", "flops", "reference", "rows"};
  return keys;
}
// Keys present or not by what the machine offers (schedstat, PSI, steal time): left out of the golden text.
const std::set<std::string>& golden_machine_keys() {
  static const std::set<std::string> keys = {"cpu_share", "wait_share", "cpu_pressure", "steal_share"};
  return keys;
}
// Free text to the end of the line (log_fields' to_end fields): masked whole.
bool golden_to_end_key(const std::string& key) { return key == "reason" || key == "error"; }

std::vector<std::string> golden_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// A decimal number (a time, a rate) masked; an integer or a word kept.
std::string golden_mask_decimal(const std::string& word) {
  static const std::regex decimal("-?[0-9]+\\.[0-9]+");
  return std::regex_match(word, decimal) ? "#" : word;
}

// One FMWORK line as the golden text holds it.
std::string golden_fmwork_line(const std::string& line) {
  const auto words = golden_words(line);
  if (words.size() < 2) return line;
  const std::string& word = words[1];
  std::string out = "FMWORK " + word;
  if (word == "ARG") return line;
  if (word == "SETUP") return out + " #";
  if (word == "META") {  // its keys, in order: the values are the machine's
    for (size_t i = 2; i < words.size(); ++i) out += " " + words[i].substr(0, words[i].find('='));
    return out;
  }
  if (word == "REP" || word == "RES") {  // positional, upstream's: the counts, model and sizes kept
    for (size_t i = 2; i < words.size(); ++i) out += " " + golden_mask_decimal(words[i]);
    return out;
  }
  // A capacity search's levels and answer hang on each level's verdict, which a busy machine can turn (a
  // level that fell behind): its levels are held as one line of keys, its answer without what the outcome adds.
  const bool search = word == "CAPACITY" || line.find(" phase=search ") != std::string::npos;
  for (size_t i = 2; i < words.size(); ++i) {
    const size_t eq = words[i].find('=');
    const std::string key = words[i].substr(0, eq);
    if (golden_machine_keys().count(key) || (search && key == "lowest_failed_qps")) continue;
    if (search && (key == "level" || key == "rate" || key == "result" || key == "steps")) {
      out += " " + key + "=#";
      continue;
    }
    if (eq == std::string::npos) {
      out += " " + words[i];
    } else if (golden_to_end_key(key)) {
      return out + " " + key + "=#";
    } else {
      out += " " + key + "=" + (golden_kept_keys().count(key) ? words[i].substr(eq + 1) : "#");
    }
  }
  return out;
}

// A driver's stdout as the golden text holds it: the ARGS section whole (the args echo is upstream's
// interface), then the FMWORK lines; the scratch folder written as <DIR>.
std::string golden_driver_text(std::string out, const std::string& dir) {
  for (size_t at; (at = out.find(dir)) != std::string::npos;) out.replace(at, dir.size(), "<DIR>");
  std::string text;
  bool in_args = false;
  for (const auto& line : lines_of(out)) {
    if (line == "ARGS") in_args = true;
    if (line == "RUNTIME") in_args = false;
    if (line.rfind("FMWORK ", 0) == 0) {
      const std::string held = golden_fmwork_line(line) + "\n";
      if (text.size() < held.size() || text.compare(text.size() - held.size(), held.size(), held) != 0)
        text += held;  // a line the same as the last once masked is a search level again
    } else if (in_args && !line.empty() && line.find_first_not_of('-') != std::string::npos) {
      text += line + "\n";
    }
  }
  return text;
}

// process's CSV: the header, then each row with the cells of masked columns as '#' (quoted cells whole).
std::string golden_csv_text(const std::string& csv, const std::string& dir) {
  const auto rows = lines_of(csv);
  if (rows.empty()) return "";
  auto cells_of = [](std::string row) {
    row = std::regex_replace(row, std::regex("\"[^\"]*\""), "#");
    std::vector<std::string> cells;
    std::stringstream in(row);
    for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
    if (!row.empty() && row.back() == ',') cells.push_back("");
    return cells;
  };
  const auto header = cells_of(rows[0]);
  std::string text = rows[0] + "\n";
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto cells = cells_of(rows[r]);
    for (size_t c = 0; c < cells.size(); ++c) {
      const bool kept = c < header.size() && golden_kept_keys().count(header[c]);
      const bool machine = c < header.size() && golden_machine_keys().count(header[c]);
      std::string cell = machine ? "#" : kept || cells[c].empty() ? cells[c] : "#";
      for (size_t at; (at = cell.find(dir)) != std::string::npos;) cell.replace(at, dir.size(), "<DIR>");
      text += (c ? "," : "") + cell;
    }
    text += "\n";
  }
  return text;
}

// process's JSON: each record's keys in order, the kept keys' values (null written null).
std::string golden_json_text(const std::string& json, const std::string& dir) {
  std::string text;
  for (const auto& record : nlohmann::ordered_json::parse(json)) {
    for (const auto& [key, value] : record.items()) {
      const bool kept = golden_kept_keys().count(key) || value.is_null();
      text += key + "=" + (kept ? value.dump() : "#") + " ";
    }
    text += "\n";
  }
  for (size_t at; (at = text.find(dir)) != std::string::npos;) text.replace(at, dir.size(), "<DIR>");
  return text;
}

class GoldenLogTest : public EncoderSuite {
 protected:
  static std::vector<std::string> model_args() {
    return {"--platform", "cpu", "--model_class", "BertModel", "--model_name", model_, "--eval", "--seed", "3"};
  }
  // `text` against golden/<name>.txt, or written there under FMWORK_UPDATE_GOLDEN=1.
  static void expect_golden(const std::string& name, const std::string& text) {
    const std::string path = source_dir() + "/tests/integration/golden/" + name + ".txt";
    if (std::getenv("FMWORK_UPDATE_GOLDEN")) {
      std::ofstream(path, std::ios::binary) << text;
      return;
    }
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << path << " is missing: FMWORK_UPDATE_GOLDEN=1 writes it";
    std::stringstream golden;
    golden << in.rdbuf();
    EXPECT_EQ(text, golden.str()) << name << " differs from " << path
                                  << " (a change of the format on purpose: FMWORK_UPDATE_GOLDEN=1 rewrites it)";
  }
  static std::string dir() { return dir_->path(); }
};

TEST_F(GoldenLogTest, SweepSaveAndCheckAndProcess) {
  auto args = model_args();
  for (const char* a : {"--input_sizes", "8,16", "--batch_sizes", "1,2", "--reps", "5"}) args.push_back(a);
  auto saved_args = args;
  saved_args.insert(saved_args.end(), {"--save_outputs", dir_->file("outputs")});
  auto saved = driver(saved_args);
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  expect_golden("sweep", golden_driver_text(saved.out, dir()));

  auto checked_args = args;
  checked_args.insert(checked_args.end(), {"--check_outputs", dir_->file("outputs")});
  auto checked = driver(checked_args);
  ASSERT_EQ(checked.exit_code, 0) << checked.err;
  expect_golden("check", golden_driver_text(checked.out, dir()));

  const std::string log = dir_->file("check.log");
  std::ofstream(log, std::ios::binary) << checked.out;
  auto csv = run_command({process_path(), "--format", "csv", log});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  expect_golden("process_csv", golden_csv_text(csv.out, dir()));
  auto json = run_command({process_path(), log});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  expect_golden("process_json", golden_json_text(json.out, dir()));
}

// A compiled run, held against the same model eager on the CPU by default: one CHECK line, reference=cpu, on the
// first combination's first rows.
TEST_F(GoldenLogTest, CompiledRunCheckedAgainstTheCpu) {
  auto args = model_args();
  for (const char* a : {"--input_sizes", "8,16", "--batch_sizes", "2", "--reps", "3", "--compile", "--compile:backend",
                        "torchscript"})
    args.push_back(a);
  auto r = driver(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_golden("compiled", golden_driver_text(r.out, dir()));
}

// Levels, then a capacity search from 20 queries/s (then 40, the level above, not run again) under a bound no
// level misses on latency (60 s).
TEST_F(GoldenLogTest, ServeLevelsAndCapacity) {
  auto args = model_args();
  args.insert(args.begin(), "serve");
  for (const char* a : {"--input_sizes", "16", "--batch_sizes", "4", "--rates", "40,80", "--warmup_s", "0",
                        "--duration_s", "0.2", "--min_queries", "10", "--latency_bound", "p99:60000",
                        "--search_start", "20", "--search_steps", "2", "--price_per_hour", "3"})
    args.push_back(a);
  auto served = driver(args);
  ASSERT_EQ(served.exit_code, 0) << served.err;
  expect_golden("serve", golden_driver_text(served.out, dir()));
}

// A native encoder (a BERT folder of random weights) on drawn lengths, unpadded: STAT's FLOPs and padding fields.
TEST_F(GoldenLogTest, NativeEncoderOnDrawnLengths) {
  std::filesystem::create_directories(dir_->file("bert"));
  write_file(dir_->file("bert/config.json"),
             R"({"model_type": "bert", "architectures": ["BertModel"], "hidden_size": 32, "num_hidden_layers": 2,
                 "num_attention_heads": 4, "intermediate_size": 64, "vocab_size": 120,
                 "max_position_embeddings": 40, "type_vocab_size": 2, "pad_token_id": 0})");
  hf::write_random_model_folder(dir_->file("bert/config.json"), dir_->file("bert/model"), 1);
  auto r = driver({"--platform", "cpu", "--model_class", "BertModel", "--model_name", dir_->file("bert/model"),
                   "--eval", "--seed", "3", "--input_sizes", "16", "--batch_sizes", "1,4", "--reps", "3",
                   "--input_lengths", "uniform:4,16", "--batching", "unpadded", "--model:packed_gemm@", "False"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_golden("native_unpadded", golden_driver_text(r.out, dir()));
}

}  // namespace
}  // namespace fmwork
