// The artifact cache: the entries and their manifests, and the `--cache` command.
#include "fmwork/cache/artifact_cache.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fmwork/cache/content_hash.hpp"
#include "fmwork/base/error.hpp"
#include "fmwork/base/json_input.hpp"
#include "fmwork/base/regular_file.hpp"

namespace fmwork {

namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------------------------------------------
// Names, times and files of the cache folder.

constexpr const char* kManifest = "manifest.json";
constexpr size_t kManifestLimit = size_t{1} << 20;
constexpr int kFormat = 1;
constexpr const char* kTmpPrefix = ".tmp-";

bool is_kind(const std::string& s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

bool is_key(const std::string& s) {
  return s.size() == 32 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// A name that stays inside the entry's folder and is not the manifest's.
bool is_plain_file_name(const std::string& s) {
  return !s.empty() && s != "." && s != ".." && s != kManifest && s.find('/') == std::string::npos &&
         s.find('\0') == std::string::npos;
}

void check_kind(const std::string& kind) {
  if (!is_kind(kind)) throw runtime_error("artifact cache: kind '" + kind + "' is no plain name ([a-z0-9_-]+)");
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The entry's last use is the manifest's modification time, set (not rewritten) at each use: no reader
// ever sees a half-written manifest. Explicit nanoseconds, because the file system's own clock is coarse.
void mark_used(const fs::path& manifest) {
  const int64_t ns = now_ns();
  const struct timespec t[2] = {{ns / 1000000000, ns % 1000000000}, {ns / 1000000000, ns % 1000000000}};
  ::utimensat(AT_FDCWD, manifest.c_str(), t, AT_SYMLINK_NOFOLLOW);  // a read-only cache is still usable
}

int64_t mtime_ns(const struct stat& st) { return int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec; }

bool is_dir_no_follow(const fs::path& p) {
  std::error_code ec;
  return fs::symlink_status(p, ec).type() == fs::file_type::directory;
}

void remove_quietly(const fs::path& p) {
  std::error_code ec;
  fs::remove_all(p, ec);
}

// This host's name as a file name part: a cache on a shared file system is written by several hosts, and a
// pid says whether its process lives only on the host that started it.
std::string host_part() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return "unknown";
  std::string out;
  for (const char* c = host; *c && out.size() < 64; ++c)
    out += (std::isalnum(static_cast<unsigned char>(*c)) || *c == '.' || *c == '-') ? *c : '_';
  return out.empty() ? "unknown" : out;
}

std::string temp_name(const std::string& key, const char* suffix = "") {
  static std::mt19937_64 rng{std::random_device{}() ^ static_cast<uint64_t>(now_ns())};
  return fmt::format("{}{}-{}-{:08x}@{}{}", kTmpPrefix, key, ::getpid(), rng() & 0xffffffffu, host_part(), suffix);
}

// Whether `name` is a build folder (or one set aside) that a process of this host started and that process
// is gone: a driver killed during a build leaves it, and nothing else ever would remove it. Folders of
// other hosts, and of the older names without a host, are left alone: their owner cannot be asked.
bool orphaned_build(const std::string& name) {
  if (name.rfind(kTmpPrefix, 0) != 0) return false;
  const size_t at = name.find('@');
  if (at == std::string::npos) return false;
  std::string host = name.substr(at + 1);
  for (const std::string suffix : {"-damaged", "-forgotten"})  // set aside by discard() / forget()
    if (host.size() > suffix.size() && host.compare(host.size() - suffix.size(), suffix.size(), suffix) == 0)
      host.resize(host.size() - suffix.size());
  const std::string head = name.substr(0, at);  // .tmp-<key>-<pid>-<rand>
  const size_t rand_dash = head.rfind('-');
  const size_t pid_dash = rand_dash == std::string::npos || rand_dash == 0 ? std::string::npos : head.rfind('-', rand_dash - 1);
  if (host != host_part() || pid_dash == std::string::npos) return false;
  const std::string pid_text = head.substr(pid_dash + 1, rand_dash - pid_dash - 1);
  if (pid_text.empty() || pid_text.size() > 9 || !std::all_of(pid_text.begin(), pid_text.end(), ::isdigit)) return false;
  const pid_t pid = static_cast<pid_t>(std::stol(pid_text));
  return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH;
}

// Whether `name` is one temp_name() makes (or discard() / forget() set aside): .tmp-<hex key>-<pid>-<8 hex>,
// then "@<host>..." or nothing (the older names). A user's ".tmp-notes" in a folder mistaken for the cache
// is not one, and clear() leaves it.
bool is_build_folder_name(const std::string& name) {
  if (name.rfind(kTmpPrefix, 0) != 0) return false;
  const std::string rest = name.substr(std::string(kTmpPrefix).size());
  const std::string head = rest.substr(0, rest.find('@'));
  const auto hex = [](const std::string& s, size_t at, size_t n) {
    return n > 0 && at + n <= s.size() && std::all_of(s.begin() + at, s.begin() + at + n, [](char c) {
             return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
  };
  const size_t dash1 = head.find('-'), dash2 = dash1 == std::string::npos ? dash1 : head.find('-', dash1 + 1);
  if (dash2 == std::string::npos || head.find('-', dash2 + 1) != std::string::npos) return false;
  const std::string pid = head.substr(dash1 + 1, dash2 - dash1 - 1);
  return hex(head, 0, dash1) && !pid.empty() && pid.size() <= 10 &&
         std::all_of(pid.begin(), pid.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
         head.size() - dash2 - 1 == 8 && hex(head, dash2 + 1, 8);
}

// Whether `dir` is a folder (not a link to one) of plain files only, as every entry the cache makes is
// (built_files refuses a builder's subfolder): a folder of a user's that merely has a key-like name holds
// anything else, and clear() leaves it. Past 100,000 names it is not one of ours either.
bool holds_plain_files_only(const fs::path& dir) {
  if (!is_dir_no_follow(dir)) return false;
  std::error_code ec;
  size_t seen = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (++seen > 100000 || it->symlink_status(ec).type() == fs::file_type::directory) return false;
  }
  return !ec;
}

// Removes the orphaned build folders of one kind's folder (see orphaned_build).
void remove_orphaned_builds(const fs::path& kind_dir) {
  std::error_code ec;
  std::vector<fs::path> doomed;  // collected first: removing while iterating is unspecified
  for (const auto& de : fs::directory_iterator(kind_dir, ec))
    if (orphaned_build(de.path().filename().string())) doomed.push_back(de.path());
  for (const auto& p : doomed) remove_quietly(p);
}

// A damaged entry is first renamed aside (atomically), so no reader sees it half removed.
void discard(const fs::path& dir, const std::string& key) {
  const fs::path aside = dir.parent_path() / temp_name(key, "-damaged");
  remove_quietly(::rename(dir.c_str(), aside.c_str()) == 0 ? aside : dir);
}

fs::path make_temp_dir(const fs::path& kind_dir, const std::string& key) {
  std::error_code ec;
  fs::create_directories(kind_dir, ec);
  if (ec)  // said here: mkdir below would only say that the folder it is in does not exist
    throw runtime_error(kind_dir.string() + ": cannot create the cache folder (" + ec.message() +
                        "); set FMWORK_CACHE to a writable folder");
  for (int attempt = 0; attempt < 16; ++attempt) {
    const fs::path tmp = kind_dir / temp_name(key);
    if (::mkdir(tmp.c_str(), 0755) == 0) return tmp;
    if (errno != EEXIST)
      throw runtime_error(tmp.string() + ": cannot create the build folder (" + std::strerror(errno) + ")");
  }
  throw runtime_error(kind_dir.string() + ": cannot create a unique build folder");
}

// ---------------------------------------------------------------------------------------------------
// Manifests: written by store(), checked by find() and list().

struct Damaged {
  std::string why;
};

std::string read_manifest(const fs::path& dir) {
  const fs::path path = dir / kManifest;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) throw Damaged{"manifest.json is missing"};
  if (!S_ISREG(st.st_mode)) throw Damaged{"manifest.json is not a regular file"};
  if (static_cast<uint64_t>(st.st_size) > kManifestLimit) throw Damaged{"manifest.json is larger than 1 MiB"};
  std::ifstream in(path, std::ios::binary);
  std::string text(static_cast<size_t>(st.st_size), '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(text.size()))) throw Damaged{"manifest.json cannot be read"};
  return text;
}

std::map<std::string, std::string> string_map(const nlohmann::json& j, const char* what) {
  if (!j.is_object()) throw Damaged{std::string("manifest.json: ") + what + " is not an object"};
  return j.get<std::map<std::string, std::string>>();
}

// Every listed file is a regular file of the entry with the recorded size and hash; returns their size.
uint64_t check_files(const fs::path& dir, const nlohmann::json& files) {
  if (!files.is_array()) throw Damaged{"manifest.json: files is not a list"};
  uint64_t total = 0;
  for (const auto& f : files) {
    const std::string name = f.at("name").get<std::string>();
    if (!is_plain_file_name(name)) throw Damaged{"manifest.json lists '" + name + "', which is no plain file name"};
    const uint64_t size = f.at("size").get<uint64_t>();
    struct stat st {};
    if (::lstat((dir / name).c_str(), &st) != 0) throw Damaged{name + " is missing"};
    if (!S_ISREG(st.st_mode)) throw Damaged{name + " is not a regular file"};
    if (static_cast<uint64_t>(st.st_size) != size)
      throw Damaged{fmt::format("{} has {} bytes, the manifest says {}", name, st.st_size, size)};
    if (hash_files({(dir / name).string()}, Symlinks::refuse) != f.at("hash").get<std::string>())
      throw Damaged{name + " has changed (its content hash differs from the manifest's)"};
    total += size;
  }
  return total;
}

struct Checked {
  CacheEntry entry;
  int64_t used_ns = 0;  // for ordering: last_used_unix is too coarse
};

CacheEntry parse_manifest(const fs::path& dir, const std::string& kind, const std::string& key) {
  const nlohmann::json m = parse_json(read_manifest(dir), "manifest.json is malformed");  // depth-limited
  if (!m.is_object() || m.value("format", 0) != kFormat) throw Damaged{"manifest.json is not a format-1 manifest"};
  CacheEntry e;
  e.kind = m.at("kind").get<std::string>();
  e.key = m.at("key").get<std::string>();
  e.fields = string_map(m.at("fields"), "fields");
  if (e.kind != kind || e.key != key || ArtifactCache::key_of(e.kind, e.fields) != key)
    throw Damaged{"manifest.json names another kind, key or fields than its folder"};
  e.facts = string_map(m.at("facts"), "facts");
  e.build_seconds = m.at("build_seconds").get<double>();
  e.created_unix = m.at("created_unix").get<int64_t>();
  e.size_bytes = check_files(dir, m.at("files"));
  e.dir = dir.string();
  return e;
}

// The intact entry in dir, or nullopt with `why` (empty when there is no folder at all).
std::optional<Checked> check_entry(const fs::path& dir, const std::string& kind, const std::string& key,
                                   std::string& why) {
  why.clear();
  std::error_code ec;
  const auto type = fs::symlink_status(dir, ec).type();
  if (type == fs::file_type::not_found || type == fs::file_type::none) return std::nullopt;
  try {
    if (type != fs::file_type::directory) throw Damaged{"the entry is not a folder"};
    Checked c{parse_manifest(dir, kind, key)};
    struct stat st {};
    if (::lstat((dir / kManifest).c_str(), &st) == 0) c.used_ns = mtime_ns(st);
    c.entry.last_used_unix = c.used_ns / 1000000000;
    return c;
  } catch (const Damaged& d) {
    why = d.why;
  } catch (const nlohmann::json::exception& e) {
    why = std::string("manifest.json is malformed: ") + e.what();
  } catch (const Error& e) {  // a listed file vanished between the check and the hash
    why = e.what();
  }
  return std::nullopt;
}

// The files the builder wrote, sorted by name: plain files only, since only those are checked later.
std::vector<std::string> built_files(const fs::path& tmp, const std::string& kind) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& de = *it;
    const std::string name = de.path().filename().string();
    if (!is_plain_file_name(name) || !de.is_regular_file() || de.is_symlink())
      throw runtime_error("the " + kind + " builder left '" + name + "' in " + tmp.string() +
                          ": only plain files (not named manifest.json) can be cached");
    names.push_back(name);
  }
  if (ec) throw runtime_error(tmp.string() + ": cannot read the " + kind + " builder's folder (" + ec.message() + ")");
  std::sort(names.begin(), names.end());
  return names;
}

void write_manifest(const fs::path& tmp, const CacheEntry& e, const std::vector<std::string>& names) {
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const auto& name : names) {
    const std::string path = (tmp / name).string();
    files.push_back({{"name", name}, {"size", fs::file_size(path)}, {"hash", hash_files({path}, Symlinks::refuse)}});
  }
  const nlohmann::ordered_json m = {{"format", kFormat},      {"kind", e.kind},
                                    {"key", e.key},           {"fields", e.fields},
                                    {"facts", e.facts},       {"files", files},
                                    {"build_seconds", e.build_seconds}, {"created_unix", e.created_unix}};
  std::string text;
  try {
    text = m.dump(2) + "\n";
  } catch (const nlohmann::json::exception&) {
    throw runtime_error("artifact cache: the " + e.kind + " key fields and the builder's facts must be UTF-8 text");
  }
  // Written with the system's reason on failure (a full disk: "No space left on device"); a stream's failure
  // said only "cannot write the manifest". Whole or not at all, though the folder is ours alone until renamed.
  try {
    write_file_atomically((tmp / kManifest).string(), text);
  } catch (const Error& error) {
    throw runtime_error("artifact cache: cannot write the " + e.kind + " entry's manifest: " + error.what());
  }
}

// Runs the builder in tmp and writes the manifest: the entry as it will be once renamed into place.
CacheEntry build_into(const fs::path& tmp, const std::string& kind, const std::map<std::string, std::string>& fields,
                      const ArtifactCache::Builder& build) {
  CacheEntry e;
  e.kind = kind;
  e.key = ArtifactCache::key_of(kind, fields);
  e.fields = fields;
  const auto start = std::chrono::steady_clock::now();
  e.facts = build(tmp.string());
  e.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  e.created_unix = e.last_used_unix = now_ns() / 1000000000;
  const std::vector<std::string> names = built_files(tmp, kind);
  for (const auto& name : names) e.size_bytes += fs::file_size(tmp / name);
  write_manifest(tmp, e, names);
  mark_used(tmp / kManifest);  // in nanoseconds: entries stored within one tick of the file system's clock still order
  return e;
}

}  // namespace

std::string default_cache_root() {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v ? v : "");
  };
  if (!env("FMWORK_CACHE").empty()) return env("FMWORK_CACHE");
  if (!env("XDG_CACHE_HOME").empty()) return env("XDG_CACHE_HOME") + "/fmwork";
  if (!env("HOME").empty()) return env("HOME") + "/.cache/fmwork";
  throw usage_error("no cache folder for compiled packages: set FMWORK_CACHE (or XDG_CACHE_HOME or HOME) to a "
                    "writable folder");
}

ArtifactCache::ArtifactCache(std::string root) : root_(std::move(root)) {}

std::string ArtifactCache::key_of(const std::string& kind, const std::map<std::string, std::string>& fields) {
  ContentHasher h;
  h.update_text("fmwork-artifact-cache-key-1");  // a new text when the key's makeup changes
  h.update_text(kind);
  h.update_u64(fields.size());
  for (const auto& [name, value] : fields) {
    h.update_text(name);
    h.update_text(value);
  }
  return h.hex_digest();
}

std::optional<CacheEntry> ArtifactCache::find(const std::string& kind, const std::map<std::string, std::string>& fields,
                                              std::string* why) {
  check_kind(kind);
  const std::string key = key_of(kind, fields);
  const fs::path dir = fs::path(root_) / kind / key;
  std::string reason;
  std::optional<Checked> c = check_entry(dir, kind, key, reason);
  if (c && c->entry.fields != fields) reason = "manifest.json names other fields", c.reset();
  if (why) *why = reason;
  if (!c) {
    if (!reason.empty()) discard(dir, key);
    return std::nullopt;
  }
  mark_used(dir / kManifest);
  c->entry.last_used_unix = now_ns() / 1000000000;
  return c->entry;
}

CacheEntry ArtifactCache::store(const std::string& kind, const std::map<std::string, std::string>& fields,
                                const Builder& build) {
  check_kind(kind);
  const fs::path kind_dir = fs::path(root_) / kind;
  remove_orphaned_builds(kind_dir);
  const fs::path tmp = make_temp_dir(kind_dir, key_of(kind, fields));
  CacheEntry e;
  try {
    e = build_into(tmp, kind, fields, build);
  } catch (...) {
    remove_quietly(tmp);
    throw;
  }
  const fs::path dir = kind_dir / e.key;
  // rename() replaces nothing but an empty folder: when it finds an entry, another process was first.
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (::rename(tmp.c_str(), dir.c_str()) == 0) {
      e.dir = dir.string();
      return e;
    }
    const int err = errno;
    if (err != EEXIST && err != ENOTEMPTY) {
      remove_quietly(tmp);
      throw runtime_error(dir.string() + ": cannot store the entry (" + std::strerror(err) + ")");
    }
    if (auto existing = find(kind, fields)) {  // intact: keep it; damaged: find() removed it, try again
      remove_quietly(tmp);
      return *existing;
    }
  }
  remove_quietly(tmp);
  throw runtime_error(dir.string() + ": cannot store the entry (it keeps being replaced by a damaged one)");
}

bool ArtifactCache::forget(const std::string& kind, const std::map<std::string, std::string>& fields) {
  check_kind(kind);
  const std::string key = key_of(kind, fields);
  const fs::path dir = fs::path(root_) / kind / key;
  if (!is_dir_no_follow(dir)) return false;
  const fs::path aside = dir.parent_path() / temp_name(key, "-forgotten");
  if (::rename(dir.c_str(), aside.c_str()) != 0) return false;  // another process moved it first
  remove_quietly(aside);
  return true;
}

namespace {

// Every entry folder of the cache (<root>/<kind>/<key>, temporary folders left out), checked: `intact` gets the
// intact ones, `damaged` (when not null) the others with why.
void check_entries(const std::string& root, std::vector<Checked>& intact, std::vector<DamagedEntry>* damaged) {
  std::error_code ec;
  for (const auto& kind_de : fs::directory_iterator(root, ec)) {
    const std::string kind = kind_de.path().filename().string();
    if (!is_kind(kind) || !is_dir_no_follow(kind_de.path())) continue;
    for (const auto& de : fs::directory_iterator(kind_de.path(), ec)) {
      const std::string key = de.path().filename().string();
      std::string why;
      if (!is_key(key)) continue;
      if (auto c = check_entry(de.path(), kind, key, why)) intact.push_back(std::move(*c));
      else if (damaged && !why.empty()) damaged->push_back({kind, key, de.path().string(), why});
    }
  }
}

}  // namespace

std::vector<DamagedEntry> ArtifactCache::damaged() const {
  std::vector<Checked> intact;
  std::vector<DamagedEntry> out;
  check_entries(root_, intact, &out);
  std::sort(out.begin(), out.end(), [](const DamagedEntry& a, const DamagedEntry& b) { return a.dir < b.dir; });
  return out;
}

std::vector<CacheEntry> ArtifactCache::list() const {
  std::vector<Checked> found;
  check_entries(root_, found, nullptr);
  std::stable_sort(found.begin(), found.end(),
                   [](const Checked& a, const Checked& b) { return a.used_ns > b.used_ns; });
  std::vector<CacheEntry> out;
  for (auto& c : found) out.push_back(std::move(c.entry));
  return out;
}

size_t ArtifactCache::clear() {
  size_t removed = 0;
  std::error_code ec;
  for (const auto& kind_de : fs::directory_iterator(root_, ec)) {
    const std::string kind = kind_de.path().filename().string();
    if (!is_kind(kind) || !is_dir_no_follow(kind_de.path())) continue;
    std::vector<fs::path> doomed;  // collected first: removing while iterating is unspecified
    for (const auto& de : fs::directory_iterator(kind_de.path(), ec)) {
      const std::string name = de.path().filename().string();
      if ((is_key(name) && holds_plain_files_only(de.path())) || is_build_folder_name(name))
        doomed.push_back(de.path());
    }
    for (const auto& p : doomed) {
      std::error_code rm;
      fs::remove_all(p, rm);
      if (rm) throw runtime_error(p.string() + ": cannot remove (" + rm.message() + ")");
      if (is_key(p.filename().string())) ++removed;
    }
  }
  return removed;
}

}  // namespace fmwork
