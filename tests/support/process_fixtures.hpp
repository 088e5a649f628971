// What the tests of process and formats share: logs as upstream's driver and ours write them, the
// records upstream's process makes of them, and `process` run in memory.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "fmwork/log/log_format.hpp"
#include "fmwork/report/process_command.hpp"
#include "support/temp_dir.hpp"

namespace fmwork {
namespace process_fixtures {


using fmwork::TempDir;  // tests/support/temp_dir.hpp

// Runs `process` with the arguments (argv[0] added) and `stdin_text` as standard input; what it writes to
// stderr goes to `err` when given.
inline std::string run(std::vector<std::string> args, const std::string& stdin_text = "", std::string* err = nullptr) {
  args.insert(args.begin(), "process");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::istringstream in(stdin_text);
  std::ostringstream out, err_stream;
  run_process(static_cast<int>(argv.size()), argv.data(), in, out, err_stream);
  if (err) *err = err_stream.str();
  return out.str();
}

// The Error `process` throws for the arguments.
inline Error run_error(std::vector<std::string> args, const std::string& stdin_text = "") {
  try {
    run(std::move(args), stdin_text);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return runtime_error("");
}

// 1-based number of the line of `text` that starts with `needle`.
inline size_t line_of(const std::string& text, const std::string& needle) {
  size_t pos = text.find("\n" + needle);
  if (text.rfind(needle, 0) == 0) return 1;
  EXPECT_NE(pos, std::string::npos) << needle;
  return static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos) + 1, '\n')) + 1;
}

// ---- logs ----

// A log as upstream's Python driver prints it: two combinations, five reps each.
inline const std::string kUpstreamLog = banner("ARGS") +
                                 "FMWORK ARG --batch_sizes 1,2\n"
                                 "FMWORK ARG --input_sizes 128\n"
                                 "FMWORK ARG --model_class RobertaModel\n"
                                 "FMWORK ARG --model_name ibm-granite/granite-embedding-125m-english\n"
                                 "FMWORK ARG --platform cuda\n"
                                 "FMWORK ARG --reps 5\n"
                                 "\n"
                                 "{\n"
                                 "    \"batch_sizes\": \"[1, 2]\",\n"
                                 "    \"reps\": \"5\",\n"
                                 "    \"subs\": {\n"
                                 "        \"compile\": {},\n"
                                 "        \"model\": {},\n"
                                 "        \"torch.call\": {},\n"
                                 "        \"torch.set\": {}\n"
                                 "    }\n"
                                 "}\n" +
                                 banner("RUNTIME") + "setup_runtime: torch\n\t torch.call\n\t torch.set\n" +
                                 banner("MODEL") +
                                 "RobertaModel(\n"
                                 "  (embeddings): RobertaEmbeddings()\n"
                                 ")\n"
                                 "\n"
                                 "FMWORK SETUP 2.500000\n" +
                                 banner("RUN 128 / 1") +
                                 "FMWORK REP 1 5 1108911.088153850 1108911.845211219 0.757057369\n"
                                 "FMWORK REP 2 5 1108911.845509595 1108911.849978236 0.004468641\n"
                                 "FMWORK REP 3 5 1108911.850187359 1108911.854049551 0.003862192\n"
                                 "FMWORK REP 4 5 1108912.224051913 1108912.227749102 0.003697189\n"
                                 "FMWORK REP 5 5 1108912.227934311 1108912.231636694 0.003702383\n"
                                 "\n"
                                 "FMWORK RES 1108911.088153850 1108912.231636694 "
                                 "ibm-granite/granite-embedding-125m-english RobertaModel 128 1 3.782 264.4\n" +
                                 banner("RUN 128 / 2") +
                                 "FMWORK REP 1 5 1108913.000000000 1108913.500000000 0.500000000\n"
                                 "FMWORK REP 2 5 1108913.500000000 1108913.507407000 0.007407000\n"
                                 "FMWORK REP 3 5 1108913.507407000 1108913.514814000 0.007407000\n"
                                 "FMWORK REP 4 5 1108913.514814000 1108913.522221000 0.007407000\n"
                                 "FMWORK REP 5 5 1108913.522221000 1108913.529628000 0.007407000\n"
                                 "\n"
                                 "FMWORK RES 1108913.000000000 1108913.529628000 "
                                 "ibm-granite/granite-embedding-125m-english RobertaModel 128 2 7.407 270.0\n"
                                 "\n";

// A log of our driver: META, STAT, MEM and a FAIL; a non-ASCII name and quotes to escape.
inline const std::string kOurLog =
    banner("ARGS") +
    "FMWORK ARG --batch_sizes 1,256\n"
    "FMWORK ARG --compile:options@ {\"max_autotune\": True}\n"
    "FMWORK ARG --input_sizes 512\n"
    "FMWORK ARG --model_class BertModel\n"
    "FMWORK ARG --model_name mod\xc3\xa8le/bert-tiny\n"
    "FMWORK ARG --platform cpu\n"
    "FMWORK ARG --reps 2\n"
    "\n"
    "{}\n" +
    banner("RUNTIME") +
    "FMWORK META driver=0.1.0 git=abc1234 torch=2.13.0 platform=cpu device=cpu threads=2 interop_threads=2 "
    "dtype=bfloat16 seed=0 grad=off\n" +
    banner("MODEL") + "BertModel()\n\nFMWORK SETUP 0.012345\n" + banner("RUN 512 / 1") +
    "FMWORK REP 1 2 100.000000000 100.250000000 0.250000000\n"
    "FMWORK REP 2 2 100.250000000 100.251000000 0.001000000\n"
    "\n"
    "FMWORK RES 100.000000000 100.251000000 mod\xc3\xa8le/bert-tiny BertModel 512 1 1.000 1000.0\n"
    "FMWORK STAT input=512 batch=1 reps=2 dropped=1 mean_ms=1.000000 stddev_ms=0.000000 min_ms=1.000000 "
    "p50_ms=1.000000 p90_ms=1.000000 p99_ms=1.000000 max_ms=1.000000\n"
    "FMWORK MEM input=512 batch=1 allocated_peak_bytes=1048576 reserved_peak_bytes=2097152\n"
    "FMWORK CHECK input=512 batch=1 outputs=last_hidden_state,pooler_output max_abs=0.00390625 max_rel=0.0123 "
    "cosine=0.99998 atol=0.1 rtol=0.05 min_cosine=0.999 result=pass\n" +
    banner("RUN 512 / 256") + "FMWORK FAIL input=512 batch=256 error=out of memory, \"allocating\" 2.00 GiB\n\n";

inline const std::string kUpstreamOpts =
    "        \"opts\": [\n"
    "            \"--batch_sizes 1,2\",\n"
    "            \"--input_sizes 128\",\n"
    "            \"--model_class RobertaModel\",\n"
    "            \"--model_name ibm-granite/granite-embedding-125m-english\",\n"
    "            \"--platform cuda\",\n"
    "            \"--reps 5\"\n"
    "        ],\n";

// A record of kUpstreamLog as json.dumps(indent=4) writes it inside the list.
inline std::string upstream_record(const std::string& timestamp, const std::string& batch, const std::string& itl,
                                   const std::string& thp, const std::string& metadata_id, const std::string& warmup,
                                   const std::string& setup) {
  return "    {\n"
         "        \"timestamp\": \"" + timestamp + "\",\n"
         "        \"metadata_id\": " + metadata_id + ",\n"
         "        \"engine\": \"fmwork/embed/tf\",\n"
         "        \"model\": \"ibm-granite/granite-embedding-125m-english\",\n"
         "        \"precision\": null,\n"
         "        \"input\": 128,\n"
         "        \"output\": 1,\n"
         "        \"batch\": " + batch + ",\n"
         "        \"tp\": 1,\n" +
         kUpstreamOpts +
         "        \"warmup\": " + warmup + ",\n"
         "        \"setup\": " + setup + ",\n"
         "        \"ttft\": null,\n"
         "        \"itl\": " + itl + ",\n"
         "        \"thp\": " + thp + "\n"
         "    }";
}

// kUpstreamLog's two records.
inline std::string upstream_record_1(const std::string& metadata_id, const std::string& warmup, const std::string& setup) {
  return upstream_record("1108911.088153850", "1", "3.782", "264.4", metadata_id, warmup, setup);
}

inline std::string upstream_record_2(const std::string& metadata_id, const std::string& warmup, const std::string& setup) {
  return upstream_record("1108913.000000000", "2", "7.407", "270.0", metadata_id, warmup, setup);
}

inline const std::string kOurRecord =
    "    {\n"
    "        \"timestamp\": \"100.000000000\",\n"
    "        \"metadata_id\": \"run-42\",\n"
    "        \"engine\": \"fmwork-cpp/embed\",\n"
    "        \"model\": \"mod\\u00e8le/bert-tiny\",\n"
    "        \"precision\": \"bfloat16\",\n"
    "        \"input\": 512,\n"
    "        \"output\": 1,\n"
    "        \"batch\": 1,\n"
    "        \"tp\": 1,\n"
    "        \"opts\": [\n"
    "            \"--batch_sizes 1,256\",\n"
    "            \"--compile:options@ {\\\"max_autotune\\\": True}\",\n"
    "            \"--input_sizes 512\",\n"
    "            \"--model_class BertModel\",\n"
    "            \"--model_name mod\\u00e8le/bert-tiny\",\n"
    "            \"--platform cpu\",\n"
    "            \"--reps 2\"\n"
    "        ],\n"
    "        \"warmup\": 0.25,\n"
    "        \"setup\": 0.012345,\n"
    "        \"ttft\": null,\n"
    "        \"itl\": 1.0,\n"
    "        \"thp\": 1000.0\n"
    "    }";

}  // namespace process_fixtures
}  // namespace fmwork
