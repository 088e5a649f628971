// Tests of the artifact cache's entries on real files: store and find, damaged entries found and rebuilt,
// failed builds, list order, clear.
#include "fmwork/cache/artifact_cache.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "support/temp_dir.hpp"

namespace fmwork {
namespace {

namespace fs = std::filesystem;
using CacheFields = std::map<std::string, std::string>;

const CacheFields kFields = {{"model", "0123456789abcdef0123456789abcdef"}, {"torch", "2.6.0"}, {"dtype", "bfloat16"}};

// A builder that writes `files` and reports `facts`, counting its runs.
ArtifactCache::Builder writer(std::map<std::string, std::string> files, CacheFields facts, int* runs = nullptr) {
  return [=](const std::string& dir) {
    if (runs) ++*runs;
    for (const auto& [name, contents] : files) std::ofstream(dir + "/" + name, std::ios::binary) << contents;
    return facts;
  };
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// The names in <root>/<kind> that are temporary build folders.
std::vector<std::string> temp_folders(const std::string& root, const std::string& kind = "aoti") {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& de : fs::directory_iterator(fs::path(root) / kind, ec))
    if (de.path().filename().string().rfind(".tmp-", 0) == 0) out.push_back(de.path().filename().string());
  return out;
}

TEST(ArtifactCache, StoreThenFindReturnsTheEntry) {
  TempDir tmp("fmwork-cache-test");
  ArtifactCache cache(tmp.path());
  std::string why = "unset";
  EXPECT_FALSE(cache.find("aoti", kFields, &why));
  EXPECT_EQ(why, "");  // absent, not damaged

  const CacheEntry stored = cache.store("aoti", kFields, writer({{"model.pt2", "0123456789"}, {"extra.bin", "abc"}},
                                                                {{"vec_isa", "avx512"}}));
  EXPECT_EQ(stored.key, ArtifactCache::key_of("aoti", kFields));
  EXPECT_EQ(stored.dir, tmp.path() + "/aoti/" + stored.key);
  EXPECT_EQ(stored.size_bytes, 13u);
  EXPECT_GE(stored.build_seconds, 0.0);

  const auto found = cache.find("aoti", kFields, &why);
  ASSERT_TRUE(found) << why;
  EXPECT_EQ(why, "");
  EXPECT_EQ(found->kind, "aoti");
  EXPECT_EQ(found->key, stored.key);
  EXPECT_EQ(found->dir, stored.dir);
  EXPECT_EQ(found->fields, kFields);
  EXPECT_EQ(found->facts, (CacheFields{{"vec_isa", "avx512"}}));
  EXPECT_EQ(found->size_bytes, 13u);
  EXPECT_DOUBLE_EQ(found->build_seconds, stored.build_seconds);
  EXPECT_EQ(found->created_unix, stored.created_unix);
  EXPECT_GE(found->last_used_unix, found->created_unix);
  EXPECT_EQ(read(found->dir + "/model.pt2"), "0123456789");
  EXPECT_TRUE(fs::is_regular_file(found->dir + "/manifest.json"));
  EXPECT_TRUE(temp_folders(tmp.path()).empty());

  CacheFields other = kFields;
  other["dtype"] = "float16";
  EXPECT_FALSE(cache.find("aoti", other));
  EXPECT_FALSE(cache.find("so", kFields));
}

TEST(ArtifactCache, SecondStoreOfTheSameKeyKeepsTheFirst) {
  TempDir tmp("fmwork-cache-test");
  ArtifactCache cache(tmp.path());
  cache.store("aoti", kFields, writer({{"model.pt2", "first"}}, {{"n", "1"}}));
  const CacheEntry again = cache.store("aoti", kFields, writer({{"model.pt2", "second!"}}, {{"n", "2"}}));
  EXPECT_EQ(again.facts, (CacheFields{{"n", "1"}}));
  EXPECT_EQ(again.size_bytes, 5u);
  EXPECT_EQ(read(again.dir + "/model.pt2"), "first");
  EXPECT_EQ(cache.find("aoti", kFields)->facts, (CacheFields{{"n", "1"}}));
  EXPECT_TRUE(temp_folders(tmp.path()).empty());
}

// forget() removes one entry, leaving no folder behind, so that the next store() of the key is the one kept.
TEST(ArtifactCache, ForgetLetsTheNextStoreReplaceTheEntry) {
  TempDir tmp("fmwork-cache-test");
  ArtifactCache cache(tmp.path());
  EXPECT_FALSE(cache.forget("aoti", kFields)) << "no entry yet";
  cache.store("aoti", kFields, writer({{"model.pt2", "first"}}, {{"n", "1"}}));
  CacheFields other = kFields;
  other["dtype"] = "float32";
  cache.store("aoti", other, writer({{"model.pt2", "other"}}, {{"n", "3"}}));
  EXPECT_TRUE(cache.forget("aoti", kFields));
  EXPECT_FALSE(cache.find("aoti", kFields));
  EXPECT_TRUE(cache.find("aoti", other)) << "only the entry named is forgotten";
  EXPECT_TRUE(temp_folders(tmp.path()).empty());
  const CacheEntry replaced = cache.store("aoti", kFields, writer({{"model.pt2", "second!"}}, {{"n", "2"}}));
  EXPECT_EQ(replaced.facts, (CacheFields{{"n", "2"}}));
  EXPECT_EQ(read(replaced.dir + "/model.pt2"), "second!");
  EXPECT_THROW(cache.forget("../x", kFields), Error);
}

TEST(ArtifactCache, AnEntryStoredDuringOurBuildIsKept) {
  TempDir tmp("fmwork-cache-test");
  ArtifactCache cache(tmp.path());
  const auto racing = [&](const std::string& dir) {
    ArtifactCache(tmp.path()).store("aoti", kFields, writer({{"model.pt2", "theirs"}}, {{"by", "them"}}));
    write(fs::path(dir) / "model.pt2", "ours");
    return CacheFields{{"by", "us"}};
  };
  const CacheEntry e = cache.store("aoti", kFields, racing);
  EXPECT_EQ(e.facts, (CacheFields{{"by", "them"}}));
  EXPECT_EQ(read(e.dir + "/model.pt2"), "theirs");
  EXPECT_TRUE(temp_folders(tmp.path()).empty());
}

// Processes storing one key at once: one entry wins, every process gets it intact, nothing is left over.
TEST(ArtifactCache, ConcurrentStoresOfOneKeyAgree) {
  TempDir tmp("fmwork-cache-test");
  std::vector<pid_t> children;
  for (int i = 0; i < 6; ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const std::string text(100000, static_cast<char>('a' + i));
      const CacheEntry e = ArtifactCache(tmp.path()).store("aoti", kFields, writer({{"model.pt2", text}}, {}));
      const bool intact = e.size_bytes == text.size() && read(e.dir + "/model.pt2").size() == text.size();
      _exit(intact ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  ArtifactCache cache(tmp.path());
  std::string why;
  ASSERT_TRUE(cache.find("aoti", kFields, &why)) << why;
  EXPECT_EQ(cache.list().size(), 1u);
  EXPECT_TRUE(temp_folders(tmp.path()).empty());
}

// One way of damaging a stored entry, and what find() must say about it.
struct Damage {
  const char* name;
  std::function<void(const fs::path& entry)> apply;
  const char* why;
};

void edit_manifest(const fs::path& entry, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json m = nlohmann::json::parse(read(entry / "manifest.json"));
  edit(m);
  write(entry / "manifest.json", m.dump());
}

std::vector<Damage> damages() {
  return {
      {"truncated", [](const fs::path& e) { fs::resize_file(e / "model.pt2", 9); }, "model.pt2 has 9 bytes"},
      {"byte changed", [](const fs::path& e) { write(e / "model.pt2", "012345678X"); }, "model.pt2 has changed"},
      {"artifact missing", [](const fs::path& e) { fs::remove(e / "model.pt2"); }, "model.pt2 is missing"},
      {"manifest missing", [](const fs::path& e) { fs::remove(e / "manifest.json"); }, "manifest.json is missing"},
      {"garbage manifest", [](const fs::path& e) { write(e / "manifest.json", "{\"format\": 1, oops"); },
       "manifest.json is malformed"},
      {"manifest of wrong shape", [](const fs::path& e) { write(e / "manifest.json", "[1, 2]"); },
       "not a format-1 manifest"},
      {"manifest field of wrong type",
       [](const fs::path& e) { edit_manifest(e, [](nlohmann::json& m) { m["files"][0]["size"] = "ten"; }); },
       "manifest.json is malformed"},
      {"deeply nested manifest",  // 100,000 levels: refused at 64 before anything recurses over it
       [](const fs::path& e) { write(e / "manifest.json", std::string(100000, '[') + std::string(100000, ']')); },
       "manifest.json is malformed: the JSON is nested deeper than 64 levels"},
      {"huge manifest", [](const fs::path& e) { write(e / "manifest.json", std::string((1 << 20) + 1, ' ')); },
       "larger than 1 MiB"},
      {"manifest lists ../x",
       [](const fs::path& e) {
         write(e.parent_path() / "x", "0123456789");  // a file it could reach, of the same size
         edit_manifest(e, [](nlohmann::json& m) { m["files"][0]["name"] = "../x"; });
       },
       "lists '../x', which is no plain file name"},
      {"manifest names other fields",
       [](const fs::path& e) { edit_manifest(e, [](nlohmann::json& m) { m["fields"]["dtype"] = "float32"; }); },
       "another kind, key or fields"},
      {"artifact replaced by a symlink",
       [](const fs::path& e) {
         write(e.parent_path() / "outside", "0123456789");
         fs::remove(e / "model.pt2");
         fs::create_symlink(e.parent_path() / "outside", e / "model.pt2");
       },
       "model.pt2 is not a regular file"},
      {"entry is a file", [](const fs::path& e) { fs::remove_all(e), write(e, "x"); }, "the entry is not a folder"},
  };
}

TEST(ArtifactCache, DamagedEntriesAreRemovedAndRebuilt) {
  for (const Damage& d : damages()) {
    SCOPED_TRACE(d.name);
    TempDir tmp("fmwork-cache-test");
    ArtifactCache cache(tmp.path());
    int runs = 0;
    const auto build = writer({{"model.pt2", "0123456789"}}, {}, &runs);
    const fs::path entry = cache.store("aoti", kFields, build).dir;
    d.apply(entry);

    std::string why;
    EXPECT_FALSE(cache.find("aoti", kFields, &why));
    EXPECT_NE(why.find(d.why), std::string::npos) << why;
    EXPECT_FALSE(fs::exists(fs::symlink_status(entry)));
    EXPECT_TRUE(temp_folders(tmp.path()).empty());
    EXPECT_TRUE(fs::exists(tmp.path() + "/aoti/x") || std::string(d.name) != "manifest lists ../x");
    EXPECT_TRUE(fs::exists(tmp.path() + "/aoti/outside") || std::string(d.name) != "artifact replaced by a symlink");

    cache.store("aoti", kFields, build);
    EXPECT_EQ(runs, 2);
    const auto found = cache.find("aoti", kFields, &why);
    ASSERT_TRUE(found) << why;
    EXPECT_EQ(read(found->dir + "/model.pt2"), "0123456789");
  }
}

TEST(ArtifactCache, StoreReplacesADamagedEntryItFindsInPlace) {
  TempDir tmp("fmwork-cache-test");
  ArtifactCache cache(tmp.path());
  const fs::path entry = cache.store("aoti", kFields, writer({{"model.pt2", "old"}}, {{"n", "1"}})).dir;
  fs::remove(entry / "manifest.json");  // as if another process's entry were damaged
  const CacheEntry e = cache.store("aoti", kFields, writer({{"model.pt2", "new"}}, {{"n", "2"}}));
  EXPECT_EQ(e.facts, (CacheFields{{"n", "2"}}));
  EXPECT_EQ(cache.find("aoti", kFields)->facts, (CacheFields{{"n", "2"}}));
  EXPECT_TRUE(temp_folders(tmp.path()).empty());
}

TEST(ArtifactCache, AFailedBuildLeavesNothing) {
  TempDir tmp("fmwork-cache-test");
  ArtifactCache cache(tmp.path());
  std::string seen_dir;
  const auto throwing = [&](const std::string& dir) -> CacheFields {
    seen_dir = dir;
    write(fs::path(dir) / "model.pt2", "partial");
    throw std::runtime_error("compiler crashed");
  };
  try {
    cache.store("aoti", kFields, throwing);
    FAIL() << "store() returned";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "compiler crashed");
  }
  EXPECT_NE(seen_dir.find("/aoti/.tmp-" + ArtifactCache::key_of("aoti", kFields) + "-"), std::string::npos) << seen_dir;
  EXPECT_FALSE(fs::exists(seen_dir));
  EXPECT_TRUE(fs::is_empty(tmp.path() + "/aoti"));
  EXPECT_FALSE(cache.find("aoti", kFields));
}

TEST(ArtifactCache, ABuilderThatLeavesAFolderIsRefused) {
  TempDir tmp("fmwork-cache-test");
  ArtifactCache cache(tmp.path());
  const auto nested = [](const std::string& dir) -> CacheFields {
    fs::create_directory(fs::path(dir) / "sub");
    return {};
  };
  try {
    cache.store("aoti", kFields, nested);
    FAIL() << "store() returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_NE(std::string(e.what()).find("left 'sub'"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_empty(tmp.path() + "/aoti"));
  EXPECT_THROW(cache.store("aoti", kFields, writer({{"manifest.json", "{}"}}, {})), Error);
  EXPECT_THROW(cache.store("../aoti", kFields, writer({}, {})), Error);
  EXPECT_THROW(cache.find("AOTI", kFields), Error);
}

TEST(ArtifactCache, AKilledBuildsTempFolderIsIgnored) {
  TempDir tmp("fmwork-cache-test");
  ArtifactCache cache(tmp.path());
  const std::string key = ArtifactCache::key_of("aoti", kFields);
  const fs::path left = fs::path(tmp.path()) / "aoti" / (".tmp-" + key + "-1-deadbeef");
  fs::create_directories(left);
  write(left / "model.pt2", "half");
  std::string why;
  EXPECT_FALSE(cache.find("aoti", kFields, &why));
  EXPECT_EQ(why, "");
  EXPECT_TRUE(cache.list().empty());
  EXPECT_TRUE(fs::exists(left));  // another process's build may still be running
}

// A driver killed during a build (SIGKILL: nothing of it runs again) left its .tmp- folder for ever. The next
// store() of the kind removes the folders whose process on this host is gone, and only those.
TEST(ArtifactCache, BuildFoldersOfDeadProcessesAreRemovedByTheNextStore) {
  TempDir tmp("fmwork-cache-test");
  ArtifactCache cache(tmp.path());
  const pid_t dead = fork();
  if (dead == 0) _exit(0);
  ASSERT_GT(dead, 0);
  ASSERT_EQ(waitpid(dead, nullptr, 0), dead);
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  const std::string key = ArtifactCache::key_of("aoti", kFields);
  const std::string here = std::string("@") + host;
  const fs::path kind = fs::path(tmp.path()) / "aoti";
  const std::vector<std::string> orphans = {".tmp-" + key + "-" + std::to_string(dead) + "-deadbeef" + here,
                                            ".tmp-" + key + "-" + std::to_string(dead) + "-0badf00d" + here + "-damaged"};
  const std::vector<std::string> kept = {".tmp-" + key + "-" + std::to_string(getpid()) + "-deadbeef" + here,
                                         ".tmp-" + key + "-" + std::to_string(dead) + "-deadbeef@another-host",
                                         ".tmp-" + key + "-" + std::to_string(dead) + "-deadbeef"};
  for (const auto& name : orphans) fs::create_directories(kind / name / "sub");
  for (const auto& name : kept) fs::create_directories(kind / name);
  cache.store("aoti", kFields, writer({{"model.pt2", "x"}}, {}));
  std::vector<std::string> left = temp_folders(tmp.path());
  std::sort(left.begin(), left.end());
  std::vector<std::string> expected = kept;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(left, expected);
}

// Defect: a full disk said "cannot write the manifest" and nothing of why. A file size limit stands in for the
// full disk (write() fails with a reason either way), set in a child process so the test's own files are not
// held to it.
TEST(ArtifactCache, AManifestThatCannotBeWrittenSaysWhy) {
  TempDir tmp("fmwork-cache-test");
  const std::string root = tmp.path() + "/cache", said = tmp.path() + "/said";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead of killing the process
    const struct rlimit limit = {4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    std::string message = "stored";
    try {  // facts larger than the limit: the manifest is the file that cannot be written
      ArtifactCache(root).store("aoti", kFields, writer({{"model.pt2", "x"}}, {{"note", std::string(8192, 'x')}}));
    } catch (const Error& e) {
      message = e.what();
    }
    std::ofstream(said) << message;
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::string message = read(said);
  EXPECT_EQ(message.rfind("artifact cache: cannot write the aoti entry's manifest: " + root + "/aoti/.tmp-", 0), 0u)
      << message;
  EXPECT_NE(message.find("/manifest.json: cannot write (File too large)"), std::string::npos) << message;
  EXPECT_TRUE(temp_folders(root).empty());
  EXPECT_TRUE(ArtifactCache(root).list().empty());
}

// A cache folder that cannot be made said "No such file or directory" (of the build folder inside it): the
// reason is the cache folder's own (here a file in the way; for a user, often "Permission denied").
TEST(ArtifactCache, AnUncreatableCacheFolderSaysWhy) {
  TempDir tmp("fmwork-cache-test");
  write(fs::path(tmp.path()) / "file", "x");
  ArtifactCache cache(tmp.file("file/cache"));
  try {
    cache.store("aoti", kFields, writer({{"model.pt2", "x"}}, {}));
    FAIL() << "store() returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_EQ(std::string(e.what()), tmp.file("file/cache/aoti") + ": cannot create the cache folder (Not a "
                                     "directory); set FMWORK_CACHE to a writable folder");
  }
}

TEST(ArtifactCache, ListIsMostRecentlyUsedFirstAndSkipsDamaged) {
  TempDir tmp("fmwork-cache-test");
  ArtifactCache cache(tmp.path());
  EXPECT_TRUE(cache.list().empty());
  auto fields = [](const std::string& v) { return CacheFields{{"model", v}}; };
  const std::string a = cache.store("aoti", fields("a"), writer({{"m", "a"}}, {})).key;
  const std::string b = cache.store("aoti", fields("b"), writer({{"m", "bb"}}, {})).key;
  const std::string c = cache.store("other", fields("c"), writer({{"m", "ccc"}}, {})).key;
  ASSERT_TRUE(cache.find("aoti", fields("a")));

  std::vector<std::string> keys;
  for (const auto& e : cache.list()) keys.push_back(e.key);
  EXPECT_EQ(keys, (std::vector<std::string>{a, c, b}));
  ASSERT_TRUE(cache.find("aoti", fields("b")));
  keys.clear();
  for (const auto& e : cache.list()) keys.push_back(e.key);
  EXPECT_EQ(keys, (std::vector<std::string>{b, a, c}));
  EXPECT_EQ(cache.list()[1].size_bytes, 1u);
  EXPECT_EQ(cache.list()[2].kind, "other");

  const fs::path b_dir = fs::path(tmp.path()) / "aoti" / b;
  write(b_dir / "m", "bX");
  keys.clear();
  for (const auto& e : cache.list()) keys.push_back(e.key);
  EXPECT_EQ(keys, (std::vector<std::string>{a, c}));
  EXPECT_TRUE(fs::exists(b_dir));  // listing never removes
}

TEST(ArtifactCache, ClearRemovesEntriesAndTempFoldersOnly) {
  TempDir tmp("fmwork-cache-test");
  ArtifactCache cache(tmp.path());
  cache.store("aoti", {{"model", "a"}}, writer({{"m", "a"}}, {}));
  const fs::path b = cache.store("aoti", {{"model", "b"}}, writer({{"m", "b"}}, {})).dir;
  cache.store("other", {{"model", "c"}}, writer({{"m", "c"}}, {}));
  fs::remove(b / "manifest.json");  // damaged entries count too
  const fs::path left = fs::path(tmp.path()) / "aoti" / ".tmp-0123-1-deadbeef";
  fs::create_directories(left);
  write(left / "model.pt2", "half");
  const fs::path notes = fs::path(tmp.path()) / "aoti" / "notes";  // not the cache's: kept
  fs::create_directories(notes);
  write(fs::path(tmp.path()) / "README", "mine");

  EXPECT_EQ(cache.clear(), 3u);
  EXPECT_TRUE(cache.list().empty());
  EXPECT_FALSE(fs::exists(left));
  EXPECT_FALSE(fs::exists(b));
  EXPECT_TRUE(fs::exists(notes));
  EXPECT_TRUE(fs::exists(fs::path(tmp.path()) / "README"));
  EXPECT_EQ(cache.clear(), 0u);
  EXPECT_EQ(ArtifactCache(tmp.path() + "/absent").clear(), 0u);
}

// clear() on a folder that is not a cache (--cache_dir mistaken) removed a user's ".tmp-notes" folder and any
// folder named like a key, and said "removed 0 entries". Only what the cache makes goes now.
TEST(ArtifactCache, ClearLeavesAUsersFoldersThatMerelyLookLikeTheCaches) {
  TempDir tmp("fmwork-cache-test");
  const fs::path root = tmp.path();
  const std::string key = ArtifactCache::key_of("aoti", kFields);
  const std::vector<fs::path> kept = {root / "work" / ".tmp-mystuff", root / "work" / ".tmp-a-b-c",
                                      root / "work" / (".tmp-" + key + "-12-deadbeefX"),
                                      root / "photos" / key / "album"};  // a key-named folder with a subfolder
  for (const auto& p : kept) {
    fs::create_directories(p);
    write(p / "mine.txt", "precious");
  }
  write(root / "photos" / "0123456789abcdef0123456789abcdef", "a file with a key-like name");
  const fs::path link = root / "photos" / "fedcba9876543210fedcba9876543210";
  fs::create_directory_symlink(root / "work", link);
  ArtifactCache cache(root.string());
  EXPECT_EQ(cache.clear(), 0u);
  for (const auto& p : kept) EXPECT_EQ(read(p / "mine.txt"), "precious") << p;
  EXPECT_TRUE(fs::exists(root / "photos" / "0123456789abcdef0123456789abcdef"));
  EXPECT_TRUE(fs::is_symlink(link));
  // What the cache makes still goes: a damaged entry of plain files, a build folder of any host.
  fs::create_directories(root / "aoti" / key);
  write(root / "aoti" / key / "model.pt2", "x");
  fs::create_directories(root / "aoti" / (".tmp-" + key + "-12-deadbeef@host-damaged"));
  EXPECT_EQ(cache.clear(), 1u);
  EXPECT_FALSE(fs::exists(root / "aoti" / key));
  EXPECT_FALSE(fs::exists(root / "aoti" / (".tmp-" + key + "-12-deadbeef@host-damaged")));
}

TEST(ArtifactCache, KeyOfDependsOnKindAndFieldsNotOnTheirOrder) {
  CacheFields forward, backward;
  forward["a"] = "1", forward["b"] = "2", forward["c"] = "3";
  backward["c"] = "3", backward["b"] = "2", backward["a"] = "1";
  const std::string key = ArtifactCache::key_of("aoti", forward);
  EXPECT_EQ(key, ArtifactCache::key_of("aoti", backward));
  EXPECT_EQ(key.size(), 32u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(key, ArtifactCache::key_of("so", forward));
  CacheFields changed = forward;
  changed["b"] = "20";
  EXPECT_NE(key, ArtifactCache::key_of("aoti", changed));
  // Length-prefixed: moving text across the name/value border or between fields changes the key.
  EXPECT_NE(ArtifactCache::key_of("aoti", {{"ab", "c"}}), ArtifactCache::key_of("aoti", {{"a", "bc"}}));
  EXPECT_NE(ArtifactCache::key_of("aoti", {{"a", "1b"}}), ArtifactCache::key_of("aoti", {{"a", "1"}, {"b", ""}}));
  EXPECT_NE(ArtifactCache::key_of("aoti", {}), ArtifactCache::key_of("aoti", {{"", ""}}));
}

}  // namespace
}  // namespace fmwork
