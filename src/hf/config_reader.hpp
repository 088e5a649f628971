// The typed, bounded reads of config.json fields shared by the family parsers (config.cpp,
// rotary_configs.cpp): each names the file and the field in its error, and bounds every number.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "fmwork/base/error.hpp"
#include "fmwork/base/json_input.hpp"

namespace fmwork::hf {

using json = nlohmann::json;

class Reader {
 public:
  // `prefix` names a nested object in messages ("rope_parameters.", for its keys).
  Reader(const json& j, std::string source, std::string prefix = "")
      : j_(j), src_(std::move(source)), prefix_(std::move(prefix)) {}

  // The object at `key` (which must be one) read with the same file name and a longer prefix.
  Reader object(const std::string& key) const {
    if (!j_[key].is_object())
      throw runtime_error(src_ + ": " + prefix_ + key + " must be an object, not " + json_excerpt(j_[key]));
    return Reader(j_[key], src_, prefix_ + key + ".");
  }
  const json& raw(const std::string& key) const { return j_[key]; }
  // The full name of `key` in messages: "rope_parameters.rope_theta".
  std::string name(const std::string& key) const { return prefix_ + key; }

  bool has(const std::string& key) const { return j_.contains(key) && !j_[key].is_null(); }
  bool present(const std::string& key) const { return j_.contains(key); }  // null included

  // An integer field in [lo, hi]; `what` explains it when it is missing.
  int64_t integer(const std::string& key, int64_t lo, int64_t hi, const std::string& what) const {
    if (!j_.contains(key)) throw runtime_error(src_ + ": missing field \"" + prefix_ + key + "\" (" + what + ")");
    return integer_value(key, lo, hi);
  }
  int64_t integer_or(const std::string& key, int64_t fallback, int64_t lo, int64_t hi) const {
    return has(key) ? integer_value(key, lo, hi) : fallback;
  }
  std::optional<int64_t> optional_integer(const std::string& key, int64_t lo, int64_t hi) const {
    if (!has(key)) return std::nullopt;
    return integer_value(key, lo, hi);
  }
  double number_or(const std::string& key, double fallback, double lo_exclusive, double hi_exclusive) const {
    if (!has(key)) return fallback;
    const json& v = j_[key];
    if (!v.is_number()) throw runtime_error(src_ + ": " + prefix_ + key + " must be a number, not " + json_excerpt(v));
    double d = v.get<double>();
    if (!(d > lo_exclusive && d < hi_exclusive) || !std::isfinite(d)) {
      std::ostringstream os;
      os << src_ << ": " << prefix_ << key << " (" << json_excerpt(v) << ") must be greater than " << lo_exclusive << " and less than "
         << hi_exclusive;
      throw runtime_error(os.str());
    }
    return d;
  }
  std::string string(const std::string& key, const std::string& what) const {
    if (!j_.contains(key)) throw runtime_error(src_ + ": missing field \"" + prefix_ + key + "\" (" + what + ")");
    return string_value(key);
  }
  std::string string_or(const std::string& key, const std::string& fallback) const {
    return has(key) ? string_value(key) : fallback;
  }
  bool boolean_or(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!j_[key].is_boolean()) throw runtime_error(src_ + ": " + prefix_ + key + " must be true or false, not " + json_excerpt(j_[key]));
    return j_[key].get<bool>();
  }

 private:
  int64_t integer_value(const std::string& key, int64_t lo, int64_t hi) const {
    const json& v = j_[key];
    if (!v.is_number_integer()) throw runtime_error(src_ + ": " + prefix_ + key + " must be an integer, not " + json_excerpt(v));
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      throw runtime_error(src_ + ": " + prefix_ + key + " (" + json_excerpt(v) + ") must be between " + std::to_string(lo) + " and " +
                          std::to_string(hi));
    int64_t i = v.get<int64_t>();
    if (i < lo || i > hi)
      throw runtime_error(src_ + ": " + prefix_ + key + " (" + std::to_string(i) + ") must be between " + std::to_string(lo) +
                          " and " + std::to_string(hi));
    return i;
  }
  std::string string_value(const std::string& key) const {
    const json& v = j_[key];
    if (!v.is_string()) throw runtime_error(src_ + ": " + prefix_ + key + " must be a string, not " + json_excerpt(v));
    return v.get<std::string>();
  }
  const json& j_;
  std::string src_, prefix_;
};

constexpr int64_t kMaxHidden = 1 << 16, kMaxLayers = 1024, kMaxIntermediate = 1 << 20, kMaxVocab = 1 << 24,
                  kMaxPositions = 1 << 20, kMaxTypes = 1 << 16;

struct EncoderConfig;

// The rotary families' fields (rotary_configs.cpp): their shapes, layer types, rotary bases and biases.
void read_modernbert_shape(const Reader& r, EncoderConfig& c);
void read_qwen3_shape(const Reader& r, EncoderConfig& c);
// Relations only the rotary families have (grouped-query heads, an even head size), as runtime Errors.
void check_rotary_relations(const EncoderConfig& c);
// EncoderConfig::summary() for a rotary family.
std::string rotary_summary(const EncoderConfig& c);

}  // namespace fmwork::hf
