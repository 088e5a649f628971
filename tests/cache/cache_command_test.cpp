// Tests of the artifact cache's folder (the environment variables) and the `--cache` command's text.
#include "fmwork/cache/artifact_cache.hpp"
#include "fmwork/cache/cache_command.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "fmwork/base/error.hpp"
#include "fmwork/cli/cli.hpp"
#include "support/temp_dir.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;
using CacheFields = std::map<std::string, std::string>;

// `driver --cache WORDS...`: the words read by the one tokenizer, then the command run.
std::string cache_text(const std::vector<std::string>& words) {
  return run_cache_command(parse_command_line(words, Command::cache).cache);
}

// Sets or unsets the three variables for a test and puts back what was there.
class CacheEnv {
 public:
  CacheEnv() {
    for (const char* n : kNames)
      if (const char* v = std::getenv(n)) saved_[n] = v;
  }
  ~CacheEnv() {
    for (const char* n : kNames) saved_.count(n) ? setenv(n, saved_[n].c_str(), 1) : unsetenv(n);
  }
  void set(const char* name, const char* value) { value ? setenv(name, value, 1) : unsetenv(name); }

 private:
  static constexpr const char* kNames[] = {"FMWORK_CACHE", "XDG_CACHE_HOME", "HOME"};
  std::map<std::string, std::string> saved_;
};

TEST(DefaultCacheRoot, HonoursTheThreeVariablesInOrder) {
  CacheEnv env;
  env.set("FMWORK_CACHE", "/c/fm");
  env.set("XDG_CACHE_HOME", "/c/xdg");
  env.set("HOME", "/home/u");
  EXPECT_EQ(default_cache_root(), "/c/fm");
  env.set("FMWORK_CACHE", "");  // empty counts as unset
  EXPECT_EQ(default_cache_root(), "/c/xdg/fmwork");
  env.set("XDG_CACHE_HOME", nullptr);
  EXPECT_EQ(default_cache_root(), "/home/u/.cache/fmwork");
  env.set("HOME", nullptr);
  env.set("FMWORK_CACHE", nullptr);
  try {
    default_cache_root();
    FAIL() << "default_cache_root returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    // A driver run has no --cache_dir: the message advised one the driver then refused.
    EXPECT_EQ(std::string(e.what()), "no cache folder for compiled packages: set FMWORK_CACHE (or XDG_CACHE_HOME or "
                                     "HOME) to a writable folder");
  }
  try {  // `driver --cache` has one
    cache_text({"list"});
    FAIL() << "run_cache_command returned";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "no cache folder for compiled packages: set FMWORK_CACHE (or XDG_CACHE_HOME or "
                                     "HOME) to a writable folder, or pass --cache_dir DIR");
  }
}

ArtifactCache::Builder writer(const std::string& contents) {
  return [=](const std::string& dir) {
    std::ofstream(dir + "/model.pt2", std::ios::binary) << contents;
    return CacheFields{{"vec_isa", "avx2"}};
  };
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(CacheCommand, ListHasOneLinePerEntry) {
  TempDir tmp("fmwork-cache-command-test");
  EXPECT_EQ(cache_text({"list", "--cache_dir", tmp.path()}), "no entries in " + tmp.path() + "\n");
  ArtifactCache cache(tmp.path());
  const std::string hash(32, 'a');
  const CacheEntry e = cache.store("aoti", {{"model", hash}, {"dtype", "bfloat16"}}, writer(std::string(2048, 'x')));
  cache.store("aoti", {{"model", "b"}}, writer("y"));
  const auto lines = lines_of(cache_text({"list", "--cache_dir=" + tmp.path()}));
  ASSERT_EQ(lines.size(), 2u);
  const std::regex line(
      R"([0-9a-f]{12}  aoti +[0-9.]+ (B|KiB)  built in [0-9.]+ s  used \d{4}-\d\d-\d\d \d\d:\d\d  .+)");
  for (const auto& l : lines) EXPECT_TRUE(std::regex_match(l, line)) << l;
  EXPECT_EQ(lines[1].substr(0, 12), e.key.substr(0, 12));  // least recently used last
  EXPECT_NE(lines[1].find("2.0 KiB"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("dtype=bfloat16 model=aaaaaaaaaaaa"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[1].find(hash), std::string::npos) << lines[1];  // hashes shortened
  EXPECT_NE(lines[0].find("  model=b"), std::string::npos) << lines[0];
}

TEST(CacheCommand, ReportIsAnAlignedTableWithTotals) {
  TempDir tmp("fmwork-cache-command-test");
  ArtifactCache cache(tmp.path());
  cache.store("aoti", {{"model", "m1"}, {"torch", "2.6.0"}}, writer(std::string(1536, 'x')));
  cache.store("aoti", {{"model", "a-longer-model-name"}}, writer("yy"));
  const auto lines = lines_of(cache_text({"report", "--cache_dir", tmp.path()}));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "cache: " + tmp.path());
  EXPECT_TRUE(std::regex_match(lines[1], std::regex("key +kind +size +build s +created +last used +model +torch")))
      << lines[1];
  // Each column starts where its heading does; the numbers end where theirs does.
  for (const char* heading : {"kind", "created", "model", "torch"}) {
    const size_t at = lines[1].find(heading);
    for (size_t i = 2; i < 4; ++i)
      EXPECT_TRUE(lines[i][at - 1] == ' ' && lines[i][at] != ' ') << heading << ": " << lines[i];
  }
  const size_t size_end = lines[1].find("size") + 4;
  EXPECT_EQ(lines[2].substr(size_end - 3, 3), "2 B") << lines[2];  // most recently used first
  EXPECT_EQ(lines[3].substr(size_end - 7, 7), "1.5 KiB") << lines[3];
  EXPECT_NE(lines[2].find("a-longer-model-name  -"), std::string::npos) << lines[2];  // no torch field
  EXPECT_NE(lines[3].find("m1" + std::string(19, ' ') + "2.6.0"), std::string::npos) << lines[3];
  EXPECT_EQ(lines[4], "total: 2 entries, 1.5 KiB");
}

// Defect: a damaged entry (a file of it edited, its manifest gone) was left out of list and report in silence:
// "no entries" beside a folder that takes disk and that the next run removes.
TEST(CacheCommand, ADamagedEntryIsListedAsDamaged) {
  TempDir tmp("fmwork-cache-command-test");
  ArtifactCache cache(tmp.path());
  const CacheEntry e = cache.store("aoti", {{"model", "a"}}, writer("x"));
  std::ofstream(e.dir + "/model.pt2") << "edited";
  const std::string damaged = e.key.substr(0, 12) + "  aoti  damaged: model.pt2 has 6 bytes, the manifest says 1 "
                              "(removed by the next run that needs it, or driver --cache clear)\n";
  EXPECT_EQ(cache_text({"list", "--cache_dir", tmp.path()}), "no intact entries in " + tmp.path() + "\n" + damaged);
  const CacheEntry intact = cache.store("aoti", {{"model", "b"}}, writer("y"));
  const std::string list = cache_text({"list", "--cache_dir", tmp.path()});
  EXPECT_EQ(list.rfind(intact.key.substr(0, 12), 0), 0u) << list;
  EXPECT_NE(list.find("\n" + damaged), std::string::npos) << list;
  const std::string report = cache_text({"report", "--cache_dir", tmp.path()});
  EXPECT_NE(report.find("total: 1 entry, 1 B; 1 damaged\n" + damaged), std::string::npos) << report;
  ASSERT_EQ(cache.damaged().size(), 1u);
  EXPECT_EQ(cache.damaged()[0].dir, e.dir);
  EXPECT_EQ(cache.list().size(), 1u) << "listing changes nothing";
}

TEST(CacheCommand, ClearSaysHowManyFromWhere) {
  TempDir tmp("fmwork-cache-command-test");
  ArtifactCache cache(tmp.path());
  cache.store("aoti", {{"model", "a"}}, writer("x"));
  cache.store("aoti", {{"model", "b"}}, writer("x"));
  EXPECT_EQ(cache_text({"clear", "--cache_dir", tmp.path()}), "removed 2 entries from " + tmp.path() + "\n");
  EXPECT_TRUE(cache.list().empty());
  CacheEnv env;
  env.set("FMWORK_CACHE", tmp.path().c_str());
  EXPECT_EQ(cache_text({"clear"}), "removed 0 entries from " + tmp.path() + "\n");
}

// FMWORK_CACHE naming a file listed "no entries in FILE" and cleared "0 entries": the file is named instead.
TEST(CacheCommand, ARootThatIsAFileIsNamed) {
  TempDir tmp("fmwork-cache-command-test");
  const std::string file = tmp.write("cachefile", "x\n");
  for (const std::string command : {"list", "report", "clear"}) {
    try {
      cache_text({command, "--cache_dir", file});
      ADD_FAILURE() << "no error for " << command;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_EQ(std::string(e.what()), "--cache " + command + ": " + file +
                                           " (--cache_dir) is not a folder; the cache is a folder: name one with "
                                           "--cache_dir or FMWORK_CACHE");
    }
  }
  std::ifstream in(file);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "x\n");
}

TEST(CacheCommand, AnythingElseIsAOneLineUsageErrorNamingWhatIsWrong) {
  const std::string see = " (see driver --cache --help)";
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{}, "--cache: expected list, report or clear, then optionally --cache_dir DIR"},
      {{"purge"}, "--cache expects one of list, report, clear; got 'purge'"},
      {{"list", "--cache_dir"},
       "--cache_dir needs a value, like --cache_dir /tmp/fmwork-cache (to give one that starts with '--', write "
       "--cache_dir=VALUE)" + see},
      {{"list", "--dir", "x"}, "unknown option --dir" + see},
      {{"list", "--cache_dir="}, "--cache_dir is empty; give the cache's folder"},
      {{"list", "x", "y", "z"}, "unexpected argument: x" + see}};
  for (const auto& [args, expected] : bad) {
    try {
      cache_text(args);
      ADD_FAILURE() << "no error for " << args.size() << " args";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_EQ(std::string(e.what()), expected);
    }
  }
}

// Defect: "driver --cache lst" and "--cach_dir" were refused without the word meant.
TEST(CacheCommand, AMisspeltWordNamesTheOneMeant) {
  const std::string usage = "--cache: expected list, report or clear, then optionally --cache_dir DIR";
  const auto message = [](const std::vector<std::string>& args) {
    try {
      cache_text(args);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({"lst"}), "--cache expects one of list, report, clear; got 'lst'; did you mean list?");
  EXPECT_EQ(message({"clean"}), "--cache expects one of list, report, clear; got 'clean'; did you mean clear?");
  EXPECT_EQ(message({"list", "--cach_dir", "x"}), "unknown option --cach_dir; did you mean --cache_dir? (see driver --cache --help)");
  EXPECT_EQ(message({"list", "--cache-dir=x"}), "unknown option --cache-dir; did you mean --cache_dir? (see driver --cache --help)");
  EXPECT_EQ(message({}), usage);
  EXPECT_EQ(message({"purge"}), "--cache expects one of list, report, clear; got 'purge'");
}

TEST(CacheCommand, AFolderWithALineBreakIsRefusedNamingTheOption) {
  try {
    cache_text({"list", "--cache_dir", "a\nb"});
    FAIL() << "a line break in --cache_dir was taken";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "--cache_dir: the value contains a line break; give it on one line, without control characters")
        << fmt::format("got: {}", e.what());
  }
}

}  // namespace
}  // namespace fmwork
