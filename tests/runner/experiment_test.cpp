// Tests of experiment files: expansion order and ids, option values as typed, split sizes, the plan file's
// round trip, and the one-line errors that name the file, the run and the key.
#include "fmwork/runner/experiment.hpp"
#include "fmwork/runner/experiment_paths.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <tuple>

#include "fmwork/base/error.hpp"
#include "support/temp_dir.hpp"

namespace fmwork {
namespace {

using json = nlohmann::json;

const char* kExperiment = R"({
  "description": "two models x two dtypes x two thread counts",
  "defaults": {
    "options": {"--platform": "cpu", "--model_class": "BertModel", "--reps": 2, "--eval": true,
                "--input_sizes": [8, 16], "--batch_sizes": "1"},
    "matrix": {"--model:torch_dtype": ["float32", "bfloat16"], "--torch.call:set_num_threads@": [1, 2]}
  },
  "runs": [
    {"id": "mini", "options": {"--model_name": "models/mini/model.pt"}},
    {"id": "minilm", "options": {"--model_name": "minilm", "--eval": false}, "matrix": {"--torch.call:set_num_threads@": [1]}}
  ]
})";

// The models kExperiment names, made beside it: load_experiment checks they exist.
void fs_make_models(const TempDir& dir) {
  std::filesystem::create_directories(dir.path() + "/models/mini");
  dir.write("models/mini/model.pt", "");
  std::filesystem::create_directories(dir.path() + "/minilm");
}

std::string message_of(const std::string& text) {
  try {
    expand_experiment(json::parse(text), "x.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    return e.what();
  }
  ADD_FAILURE() << "no error for " << text;
  return "";
}

TEST(Experiment, ExpandsTheMatrixFirstKeyOutermostWithIdsPerRun) {
  const Plan plan = expand_experiment(json::parse(kExperiment), "x.json");
  ASSERT_EQ(plan.runs.size(), 6u);
  EXPECT_EQ(plan.runs[0].id, "mini.1");
  EXPECT_EQ(plan.runs[3].id, "mini.4");
  EXPECT_EQ(plan.runs[4].id, "minilm.1");
  EXPECT_EQ(plan.runs[4].run, "minilm");
  EXPECT_EQ(describe_run(plan.runs[1]), "run \"mini\" (model:torch_dtype=float32 torch.call:set_num_threads=2)");
  EXPECT_EQ(describe_run(plan.runs[2]), "run \"mini\" (model:torch_dtype=bfloat16 torch.call:set_num_threads=1)");
  const std::vector<std::string> expected = {
      "--batch_sizes", "1", "--eval", "--input_sizes", "8,16", "--model:torch_dtype", "bfloat16",
      "--model_class", "BertModel", "--model_name", "models/mini/model.pt", "--platform", "cpu", "--reps", "2",
      "--torch.call:set_num_threads@", "1"};
  EXPECT_EQ(plan.runs[2].argv, expected);
  // false leaves a default flag out.
  const auto& argv = plan.runs[5].argv;
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--eval"), argv.end());
}

TEST(Experiment, SplitSizesGiveOneRunPerBatchAndInputSize) {
  json doc = json::parse(kExperiment);
  doc["defaults"]["sizes"] = "split";
  doc["defaults"]["options"]["--batch_sizes"] = "1,4";
  doc["defaults"].erase("matrix");
  doc["runs"].erase(1);
  const Plan plan = expand_experiment(doc, "x.json");
  ASSERT_EQ(plan.runs.size(), 4u);
  EXPECT_EQ(describe_run(plan.runs[1]), "run \"mini\" (input_sizes=16 batch_sizes=1)");
  EXPECT_EQ(describe_run(plan.runs[2]), "run \"mini\" (input_sizes=8 batch_sizes=4)");
  EXPECT_EQ(command_text("driver", plan.runs[3].argv),
            "driver --batch_sizes 4 --eval --input_sizes 16 --model_class BertModel --model_name "
            "models/mini/model.pt --platform cpu --reps 2");
}

// Repeats interleave: the whole plan once, then again, each copy with its own id and a "repeat" column.
TEST(Experiment, RepeatRunsThePlanOverInterleaved) {
  json doc = json::parse(kExperiment);
  doc["repeat"] = 2;
  const Plan plan = expand_experiment(doc, "x.json");
  ASSERT_EQ(plan.runs.size(), 12u);
  EXPECT_EQ(plan.runs[0].id, "mini.1.r1");
  EXPECT_EQ(plan.runs[5].id, "minilm.2.r1");
  EXPECT_EQ(plan.runs[6].id, "mini.1.r2");
  EXPECT_EQ(plan.runs[6].argv, plan.runs[0].argv);
  EXPECT_EQ(describe_run(plan.runs[7]),
            "run \"mini\" (model:torch_dtype=float32 torch.call:set_num_threads=2 repeat=2)");
  EXPECT_EQ(plan_from_json(plan_to_json(plan), "plan.json").runs[11].id, "minilm.2.r2");
  doc["repeat"] = 1;
  EXPECT_EQ(expand_experiment(doc, "x.json").runs[0].id, "mini.1");
  for (const char* bad : {"0", "1001", "2.5", "\"3\"", "-1"})
    EXPECT_EQ(message_of(std::string(R"({"repeat": )") + bad + R"(, "runs": [{"id": "a"}]})"),
              std::string("x.json: \"repeat\" must be a whole number of times from 1 to 1000, not ") + bad);
}

TEST(Experiment, APlanRoundTripsThroughItsJson) {
  const Plan plan = expand_experiment(json::parse(kExperiment), "x.json");
  const Plan back = plan_from_json(json::parse(plan_to_json(plan).dump()), "plan.json");
  ASSERT_EQ(back.runs.size(), plan.runs.size());
  for (size_t i = 0; i < plan.runs.size(); ++i) {
    EXPECT_EQ(back.runs[i].id, plan.runs[i].id);
    EXPECT_EQ(back.runs[i].argv, plan.runs[i].argv);
    EXPECT_EQ(back.runs[i].matrix, plan.runs[i].matrix);
  }
  EXPECT_EQ(back.source, "x.json");
  const auto e = [] {
    try {
      plan_from_json(json::parse(R"({"experiment": "x", "runs": [{"id": 3}]})"), "p/plan.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  EXPECT_NE(e.find("p/plan.json: not a plan written by driver run"), std::string::npos) << e;
}

TEST(Experiment, TheDriversOwnMessageNamesTheFileAndTheRun) {
  json doc = json::parse(kExperiment);
  doc["runs"][0]["matrix"] = {{"--model:torch_dtype", {"float32", "float99"}}};
  const std::string m = message_of(doc.dump());
  EXPECT_EQ(m.rfind("x.json: run \"mini\" (model:torch_dtype=float99 torch.call:set_num_threads=1): ", 0), 0u) << m;
  EXPECT_NE(m.find("float99"), std::string::npos);
  json no_reps = json::parse(kExperiment);
  no_reps["defaults"]["options"].erase("--reps");
  EXPECT_NE(message_of(no_reps.dump()).find("--reps"), std::string::npos);
}

// A NUL in a value (JSON's \u0000) cut the value short in silence once the words became C strings; a control
// character anywhere in an option or a matrix value is refused naming the option, and the message stays one line.
TEST(Experiment, AControlCharacterOrNulInAValueIsRefusedNamingTheOption) {
  for (const std::string value : {std::string("a\0b", 3), std::string("a\nb"), std::string("a\x1b")}) {
    json doc = json::parse(kExperiment);
    doc["runs"][0]["options"]["--model:revision"] = value;
    const std::string m = message_of(doc.dump());
    EXPECT_NE(m.find("--model:revision: the value contains"), std::string::npos) << m;
    json in_matrix = json::parse(kExperiment);
    in_matrix["runs"][0]["matrix"] = {{"--model:revision", {"main", value}}};
    const std::string m2 = message_of(in_matrix.dump());
    EXPECT_NE(m2.find("--model:revision: the value contains"), std::string::npos) << m2;
    EXPECT_EQ(m2.find_first_of(std::string("\n\x1b\0", 3)), std::string::npos) << "one line, no raw control characters";
  }
}

TEST(Experiment, BadShapesAreOneLineNamingTheKey) {
  EXPECT_EQ(message_of(R"({"runs": [{"id": "a", "option": {}}]})"),
            "x.json: runs[0]: unknown key \"option\" (known: command, description, id, matrix, options, sizes)");
  EXPECT_EQ(message_of(R"({"runs": []})").rfind("x.json: \"runs\" must be a non-empty list", 0), 0u);
  EXPECT_NE(message_of(R"({"runs": [{"options": {}}]})").find("runs[0]: has no \"id\""), std::string::npos);
  EXPECT_NE(message_of(R"({"runs": [{"id": "a/b"}]})").find("\"id\" must be letters"), std::string::npos);
  EXPECT_NE(message_of(R"({"runs": [{"id": "a"}, {"id": "a"}]})").find("runs[1]: the id \"a\" is taken"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"runs": [{"id": "a", "options": {"reps": 2}}]})").find("run \"a\": options: \"reps\" is not"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"runs": [{"id": "a", "matrix": {"--reps": []}}]})")
                .find("run \"a\": matrix: \"--reps\": must be a non-empty list"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"runs": [{"id": "a", "options": {"--reps": {"x": 1}}}]})").find("\"--reps\": a value is"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"defaults": {"sizes": "some"}, "runs": [{"id": "a"}]})").find("defaults: sizes: must be"),
            std::string::npos);
}

// "command": "serve" plans `driver serve` command lines, checked as driver serve checks them.
const char* kServe = R"({
  "defaults": {"command": "serve",
               "options": {"--platform": "cpu", "--model_class": "BertModel", "--model_name": "m", "--rates": "20,40",
                           "--latency_bound": "p99:50", "--batch_sizes": 8, "--input_sizes": 128},
               "matrix": {"--batching": ["padded", "unpadded"]}},
  "runs": [{"id": "s"}, {"id": "t", "command": "sweep", "options": {"--rates": null, "--latency_bound": null,
                                                                     "--reps": 3}, "matrix": {"--batching": ["padded"]}}]
})";

TEST(Experiment, AServeRunPlansDriverServeCommandLines) {
  const Plan plan = expand_experiment(json::parse(kServe), "x.json");
  ASSERT_EQ(plan.runs.size(), 3u);
  EXPECT_EQ(plan.runs[0].argv.front(), "serve");
  EXPECT_EQ(plan.runs[1].matrix, (std::vector<std::pair<std::string, std::string>>{{"batching", "unpadded"}}));
  EXPECT_NE(plan.runs[2].argv.front(), "serve") << "a run's command replaces the defaults'";
  EXPECT_EQ(command_text("driver", plan.runs[0].argv).rfind("driver serve --batch_sizes 8 ", 0), 0u);
  // The plan file keeps the word: a resume runs the same command.
  EXPECT_EQ(plan_from_json(json::parse(plan_to_json(plan).dump()), "plan.json").runs[0].argv, plan.runs[0].argv);
}

TEST(Experiment, AServeRunIsCheckedAsDriverServeChecksIt) {
  json doc = json::parse(kServe);
  doc["runs"][0]["options"] = {{"--rates", "-5"}};
  const std::string m = message_of(doc.dump());
  EXPECT_EQ(m.rfind("x.json: run \"s\" (batching=padded): --rates", 0), 0u) << m;
  doc = json::parse(kServe);
  doc["runs"][0]["options"] = {{"--reps", 3}};  // a sweep's option: driver serve refuses it
  EXPECT_NE(message_of(doc.dump()).find("--reps"), std::string::npos);
  doc = json::parse(kServe);
  doc["runs"][0]["sizes"] = "split";
  EXPECT_NE(message_of(doc.dump()).find("run \"s\": \"sizes\": \"split\" splits a sweep's"), std::string::npos);
  doc = json::parse(kServe);
  doc["runs"][0]["command"] = "server";
  EXPECT_NE(message_of(doc.dump()).find("run \"s\": command: must be \"sweep\""), std::string::npos);
}

// A matrix value given twice ran one command line twice under two ids, without a word ("repeat" is the
// way to run a configuration again). Values are compared as the words they become: 1 and "1" are one;
// false and null both leave the option out.
TEST(Experiment, AMatrixValueGivenTwiceIsRefused) {
  EXPECT_EQ(message_of(R"({"runs": [{"id": "a", "matrix": {"--seed": [1, 2, 1]}}]})"),
            "x.json: run \"a\": matrix: \"--seed\": lists 1 twice; give each value once (\"repeat\": N runs the plan "
            "again)");
  EXPECT_NE(message_of(R"({"defaults": {"matrix": {"--seed": [1, "1"]}}, "runs": [{"id": "a"}]})")
                .find("defaults: matrix: \"--seed\": lists \"1\" twice"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"runs": [{"id": "a", "matrix": {"--eval": [false, null]}}]})").find("lists null twice"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"runs": [{"id": "a", "matrix": {"--input_sizes": [[8, 16], "8,16"]}}]})").find("twice"),
            std::string::npos);
}

// A matrix over dtypes with one --save_outputs folder wrote both runs' <input>x<batch>.safetensors there, the
// second replacing the first's without a word. Runs that differ but write the same files are refused; runs
// that differ only in their sizes (split), or repeat one another, write what the other would and pass.
TEST(Experiment, RunsThatWouldReplaceEachOthersOutputsAreRefused) {
  const std::string base = R"("options": {"--platform": "cpu", "--model_class": "B", "--model_name": "m", "--reps": 2,
      "--input_sizes": "8,16", "--batch_sizes": "1", )";
  EXPECT_EQ(message_of(R"({"runs": [{"id": "a", )" + base + R"("--save_outputs": "out"},
      "matrix": {"--model:torch_dtype": ["float32", "bfloat16"]}}]})"),
            "x.json: runs \"a.1\" and \"a.2\" both write --save_outputs out for input 8, batch 1: the later would "
            "replace the earlier's files; give each run a folder of its own (put --save_outputs in the matrix)");
  EXPECT_NE(message_of(R"({"runs": [{"id": "a", )" + base + R"("--profile": "p"}}, {"id": "b", )" + base +
                       R"("--profile": "p", "--eval": true}}]})")
                .find("runs \"a\" and \"b\" both write --profile p"),
            std::string::npos);
  const auto expands = [](const std::string& text) {
    return expand_experiment(json::parse(text), "x.json").runs.size();
  };
  // Each its own folder; other sizes in one folder; the same run again; sizes split over one folder.
  EXPECT_EQ(expands(R"({"runs": [{"id": "a", )" + base + R"("--save_outputs": "out"},
      "matrix": {"--save_outputs": ["o1", "o2"]}}]})"), 2u);
  EXPECT_EQ(expands(R"({"runs": [{"id": "a", )" + base + R"("--save_outputs": "out"}},
      {"id": "b", "options": {"--platform": "cpu", "--model_class": "B", "--model_name": "m2", "--reps": 2,
       "--input_sizes": "32", "--batch_sizes": "1", "--save_outputs": "out"}}]})"), 2u);
  EXPECT_EQ(expands(R"({"repeat": 2, "runs": [{"id": "a", )" + base + R"("--save_outputs": "out"}}]})"), 2u);
  EXPECT_EQ(expands(R"({"runs": [{"id": "a", "sizes": "split", )" + base + R"("--save_outputs": "out"}}]})"), 2u);
}

// The runs are counted before any is expanded: a matrix of 10^12 points or a split over 2000 x 2000 sizes
// is one line with the count and its factors, at once, not hours of growing memory.
TEST(Experiment, APlanPastMaxRunsIsRefusedBeforeItIsExpanded) {
  json values = json::array();
  for (int i = 1; i <= 1000; ++i) values.push_back(i);
  json big = json::parse(kExperiment);
  big["defaults"].erase("matrix");
  big["runs"] = {{{"id", "big"}, {"matrix", {{"--a", values}, {"--b", values}, {"--c", values}, {"--d", values}}}}};
  const std::string remedy = " a plan may hold; narrow the matrix or the sizes, or set \"max_runs\" (at most 1000000) "
                             "in the file";
  EXPECT_EQ(message_of(big.dump()),
            "x.json: run \"big\" expands to 1000000000000 runs (1000 values of --a x 1000 values of --b x 1000 values of "
            "--c x 1000 values of --d), more than the 100000" + remedy);
  big["runs"][0]["matrix"]["--e"] = values;
  big["runs"][0]["matrix"]["--f"] = values;
  EXPECT_NE(message_of(big.dump()).find("expands to 1.00e+18 runs (1000 values of --a x "), std::string::npos);
  json sizes = json::array();
  for (int i = 1; i <= 2000; ++i) sizes.push_back(i);
  json split = json::parse(kExperiment);
  split["defaults"].erase("matrix");
  split["defaults"]["sizes"] = "split";
  split["defaults"]["options"]["--batch_sizes"] = sizes;
  split["defaults"]["options"]["--input_sizes"] = sizes;
  EXPECT_EQ(message_of(split.dump()),
            "x.json: run \"mini\" expands to 4000000 runs (2000 batch sizes (split) x 2000 input sizes (split)), more "
            "than the 100000" + remedy);
  // "max_runs" moves the cap, and the cap holds for the whole plan, repeats included.
  json doc = json::parse(kExperiment);  // 6 runs
  doc["max_runs"] = 6;
  EXPECT_EQ(expand_experiment(doc, "x.json").runs.size(), 6u);
  doc["repeat"] = 2;
  EXPECT_EQ(message_of(doc.dump()), "x.json: the runs expand to 12 runs (6 x \"repeat\" 2), more than the 6" + remedy);
  for (const char* bad : {"0", "1000001", "\"many\""})
    EXPECT_EQ(message_of(std::string(R"({"max_runs": )") + bad + R"(, "runs": [{"id": "a"}]})"),
              std::string("x.json: \"max_runs\" must be a whole number of runs from 1 to 1000000, not ") + bad);
}

// A run id names files: one past 100 characters is refused with the file's other mistakes of form, before
// a campaign's tree exists.
TEST(Experiment, ARunIdIsBounded) {
  json doc = json::parse(kExperiment);
  doc["runs"][0]["id"] = std::string(100, 'a');
  EXPECT_EQ(expand_experiment(doc, "x.json").runs[0].id, std::string(100, 'a') + ".1");
  doc["runs"][0]["id"] = std::string(10000, 'a');
  EXPECT_EQ(message_of(doc.dump()), "x.json: runs[0]: \"id\" must be letters, digits, - and _, at most 100 (it names "
                                    "the run's logs), not \"" + std::string(79, 'a') + "...");
}

TEST(Experiment, AFileIsReadWithTheJsonLimitsAndErrorsAreUsageErrors) {
  TempDir dir;
  const std::string path = dir.write("bad.json", "{\"runs\": [");
  try {
    load_experiment(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
  }
  fs_make_models(dir);
  const std::string good = dir.write("good.json", kExperiment);
  EXPECT_EQ(load_experiment(good).runs.size(), 6u);
  EXPECT_EQ(load_experiment(good).source, good);
}

// A lengths file is a path too: relative to the experiment file's folder, whatever the current folder (the
// driver's parser reads it while each command line is checked, and a resume from elsewhere read another file).
TEST(Experiment, ALengthsFileIsRelativeToTheExperimentFile) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/exps/m");
  dir.write("exps/lens.txt", "7\n31\n64\n");
  dir.write("lens.txt", "900\n");  // what the current folder might hold: never read
  const std::string path = dir.write("exps/e.json", R"({"defaults": {"options": {"--platform": "cpu",
    "--model_class": "BertModel", "--model_name": "m", "--reps": 2, "--input_sizes": 64, "--batch_sizes": 2}},
    "runs": [{"id": "a", "options": {"--input_lengths": "file:lens.txt"}},
             {"id": "b", "matrix": {"--input_lengths": ["file:lens.txt", "lognormal:8,64"]}}]})");
  const Plan plan = load_experiment(path);
  ASSERT_EQ(plan.runs.size(), 3u);
  const std::string want = "file:" + (std::filesystem::path(dir.path()) / "exps/lens.txt").lexically_normal().string();
  for (size_t i : {0, 1}) {
    const auto& argv = plan.runs[i].argv;
    EXPECT_NE(std::find(argv.begin(), argv.end(), want), argv.end()) << command_text("driver", argv);
  }
}

// Defect: `driver run --list` printed, and a campaign started, runs the driver then refused before loading
// anything: the values of --torch.call:/--torch.set: (a thread count out of range, a precision by a name
// LibTorch has not, a bool given a number), --check_outputs:KEY without --check_outputs DIR, --input_sizes past
// the model's positions, one folder as --save_outputs and --check_outputs. Each is refused as the driver does.
TEST(Experiment, EveryRunIsCheckedByTheDriversOwnReaders) {
  for (const auto& [option, value, says] : std::vector<std::tuple<std::string, json, std::string>>{
           {"--torch.call:set_num_interop_threads@", 0, "--torch.call:set_num_interop_threads must be a positive integer"},
           {"--torch.call:set_num_interop_threads@", 1000000, "--torch.call:set_num_interop_threads must be at most"},
           {"--torch.call:set_float32_matmul_precision", "fast", "expects one of highest, high, medium; got 'fast'"},
           {"--torch.call:set_grad_enabled@", 3, "--torch.call:set_grad_enabled expects a bool (True or False); got the int 3"},
           {"--torch.set:backends.cudnn.enabled", "maybe", "expects a bool (True or False); got the string 'maybe'"},
           {"--check_outputs:atol@", 0.1, "--check_outputs:KEY sets tolerances of --check_outputs DIR, which is not"}}) {
    SCOPED_TRACE(option);
    json doc = json::parse(kExperiment);
    doc["runs"][0]["options"][option] = value;
    const std::string m = message_of(doc.dump());
    EXPECT_EQ(m.rfind("x.json: run \"mini\" (", 0), 0u) << m;
    EXPECT_NE(m.find(says), std::string::npos) << m;
  }
  // What reads the runs' files, once their paths are resolved: config.json's positions, the output folders.
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/m");
  std::filesystem::create_directories(dir.path() + "/ref");
  dir.write("m/config.json", R"({"model_type": "bert", "hidden_size": 32, "num_hidden_layers": 1,
      "num_attention_heads": 4, "intermediate_size": 64, "vocab_size": 100, "max_position_embeddings": 64,
      "type_vocab_size": 2, "pad_token_id": 0})");
  const auto load_message = [&](const std::string& options) {
    const std::string path = dir.write("e.json", R"({"defaults": {"options": {"--platform": "cpu",
      "--model_class": "BertModel", "--model_name": "m", "--reps": 2, "--batch_sizes": 2, )" + options + R"(}},
      "runs": [{"id": "a"}]})");
    try {
      load_experiment(path);
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 2);
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(load_message(R"("--input_sizes": 64)"), "");
  EXPECT_EQ(load_message(R"("--input_sizes": [8, 600])"),
            dir.path() + "/e.json: run \"a\": --input_sizes 600 is beyond the positions of " + dir.path() +
                "/m/config.json: 64 tokens; give --input_sizes up to 64");
  EXPECT_EQ(load_message(R"("--input_sizes": 8, "--save_outputs": "ref", "--check_outputs": "./ref/")"),
            dir.path() + "/e.json: run \"a\": --save_outputs and --check_outputs name the same folder; the check "
                         "would read what it writes");
}

}  // namespace
}  // namespace fmwork
