// A build cache for compiled model artifacts (AOTInductor packages first), like MLAgility's build cache:
// the driver asks for an entry with some key fields and, when there is none (or it is damaged), builds one
// into a temporary folder and stores it. No LibTorch here: the builder is a callback.
//
// Layout: <root>/<kind>/<key>/ holds the artifact files and manifest.json; a build in progress is
// <root>/<kind>/.tmp-<key>-<pid>-<random>@<host>/. The manifest is written last and the folder renamed into place
// only when complete, so a killed build leaves only a temporary folder (ignored by find() and list(),
// removed by clear(), and by the next store() of its kind once its process, on this host, is gone). The cache's contents are untrusted input: every entry is checked against its
// manifest (bounded in size, plain file names only, no symlinks) before it is returned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fmwork/cache/content_hash.hpp"  // hash_files: the key fields name the model by its hash

namespace fmwork {

// The cache folder: $FMWORK_CACHE, else $XDG_CACHE_HOME/fmwork, else $HOME/.cache/fmwork (an empty
// variable counts as unset). A usage Error when none of the three is set.
std::string default_cache_root();

// One stored build.
struct CacheEntry {
  std::string kind;                               // what was built: "aoti"
  std::string key;                                // ArtifactCache::key_of(kind, fields)
  std::string dir;                                // the entry's folder: <root>/<kind>/<key>
  std::map<std::string, std::string> fields;      // what the key was made of (model hash, torch version, ...)
  std::map<std::string, std::string> facts;       // what the builder reported (e.g. vec_isa), free
  uint64_t size_bytes = 0;                        // the artifact files together (the manifest not counted)
  double build_seconds = 0;                       // how long build() ran
  int64_t created_unix = 0, last_used_unix = 0;  // seconds since the epoch
};

// An entry folder that is not intact (list() leaves it out, find() would remove it): where it is and why.
struct DamagedEntry {
  std::string kind, key, dir;
  std::string why;  // find()'s reason: "manifest.json is missing", "model.pt2 has changed (...)"
};

class ArtifactCache {
 public:
  // The folder is created on the first store(); an absent one is an empty cache.
  explicit ArtifactCache(std::string root);

  const std::string& root() const { return root_; }

  // The entry's key: 32 hex digits of a digest of kind and the fields (sorted by name, each name and value
  // length-prefixed, so no two field sets share a text). The same for the same kind and fields, whatever
  // the order they were inserted in.
  static std::string key_of(const std::string& kind, const std::map<std::string, std::string>& fields);

  // The complete, intact entry for kind and fields: its manifest parses, names this kind, key and these
  // fields, and every file it lists is a regular file in the entry with the recorded size and content
  // hash. Marks the entry used (last_used_unix). nullopt when there is none: `why` (when not null) is then
  // empty when the entry was absent, or says what was wrong with one that was damaged or half-written,
  // which has been removed. Throws a runtime Error for a kind that is no plain name ([a-z0-9_-]+).
  std::optional<CacheEntry> find(const std::string& kind, const std::map<std::string, std::string>& fields,
                                 std::string* why = nullptr);

  // The builder: writes the artifact files (plain files, no folders or symlinks, none named manifest.json)
  // into the empty folder it is given and returns facts to record.
  using Builder = std::function<std::map<std::string, std::string>(const std::string& tmp_dir)>;

  // First removes the kind's build folders whose process (of this host) is gone. Then runs build() in a
  // fresh temporary folder beside the entries (unique to this call), times it, writes
  // the manifest (fields, facts, each file's size and hash, build seconds, timestamps) and renames the
  // folder into place. When another process stored the same key meanwhile, its intact entry is kept and
  // ours discarded (a damaged one is replaced). When build() throws, the temporary folder is removed and
  // the exception propagates. A runtime Error when the builder leaves anything but plain files, or the
  // cache folder cannot be written.
  CacheEntry store(const std::string& kind, const std::map<std::string, std::string>& fields,
                   const Builder& build);

  // Removes the entry of kind and fields, if any (renamed aside first, so no reader sees it half removed),
  // so that the next store() puts a new one in its place; whether there was one. Throws a runtime Error
  // for a kind that is no plain name.
  bool forget(const std::string& kind, const std::map<std::string, std::string>& fields);

  // Every intact entry of every kind, most recently used first. Damaged entries are skipped, not
  // removed (listing never changes the cache); temporary folders are ignored.
  std::vector<CacheEntry> list() const;

  // The entries list() leaves out, by folder: each key folder whose entry is not intact, with why. Nothing is
  // changed (a damaged entry is removed by the find() that meets it, or by clear()).
  std::vector<DamagedEntry> damaged() const;

  // Removes every entry (intact or not) and every leftover temporary folder; returns how many entries.
  // Only what the cache makes is touched, so a mistaken root loses nothing else: an entry is a folder
  // named by a key that holds plain files only, a temporary folder is named .tmp-<hex>-<pid>-<8 hex>[@...].
  size_t clear();

 private:
  std::string root_;
};

}  // namespace fmwork
