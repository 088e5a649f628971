// The fields of our key=value log lines (META, STAT, MEM, FAIL, CHECK, COMPILE, NOTE, PROFILE, SERVE, CAPACITY,
// INTERRUPT) as data: a field's key, its kind and format, whether it is required, and the columns `process`
// shows it in. The lines' tables are written once, in log_schema.hpp; log_format writes and checks the lines
// from them, formats makes its CSV and summary columns of them. No parsing or formatting here.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace fmwork {

enum class FieldKind { integer, number, text };
// key: names the combination (input, batch), checked before any other field so that an error is about
// the line's identity first; required: must be present; optional: checked where present.
enum class FieldNeed { optional, required, key };

// A column `process` shows a field in. An empty header: the field has no such column.
struct ReportColumn {
  std::string_view header;
  int rank = 0;          // order among the line's columns, lowest first; a tie keeps the table's order
  double divisor = 1;    // the summary shows value / divisor with `decimals` decimals ...
  int decimals = -1;     // ... or, at -1, the value as written (so is a value that is not a number)
  bool when_present = false;  // the summary leaves the column out of a table where no row has the field
};

// One known field of an extension line.
struct FieldSpec {
  std::string_view key;
  FieldKind kind = FieldKind::text;
  FieldNeed need = FieldNeed::optional;
  int64_t min = 0;               // integer: the smallest value accepted
  bool non_negative = false;     // number: below 0 is refused (a latency, a rate, a share), as nan and inf are
  bool fraction = false;         // number: a part of a whole (SERVE's busy, STAT's padding): above 1 refused too
  int precision = 0;             // number, written "%.<precision>f", or "%.<precision>g" when significant
  bool significant = false;
  std::string_view choices;      // text: the accepted values, '|' between them ("pass|fail"); empty: any
  bool open_choices = false;     // text: `choices` are the words known now: a reader takes another (a newer
                                 // writer's) as unknown instead of refusing the log; a writer still refuses it
  bool to_end = false;           // text: free text to the end of the line (the field must come last)
  bool alike = false;            // META: a fact that changes the rate a model runs at (log_schema.hpp)
  int compared = -1;             // META: its rank among the keys that make results different experiments; -1: none
  ReportColumn csv;              // its column in `process --format csv`
  ReportColumn summary;          // its column in `process --format summary`
};

// The fields of one extension line, in the order the writer puts them. Keys not listed are allowed
// (readers skip them) and unchecked, except those ending with by_suffix->key, checked as by_suffix says
// (STAT's "*_ms" numbers, MEM's "*_bytes" integers).
struct LineSpec {
  std::string_view word;
  std::vector<FieldSpec> fields;
  std::optional<FieldSpec> by_suffix;
  // The spec a key is checked against: its listed field, else the suffix rule; nullptr for neither.
  const FieldSpec* find(std::string_view key) const;
  // The fields with a CSV / summary column, in column order.
  std::vector<const FieldSpec*> csv_columns() const;
  std::vector<const FieldSpec*> summary_columns() const;
};

// A field of a line's table (log_schema.hpp) as its row states it, before the row gives it its key and
// kind: each call returns a copy with one more property, so that a row reads as a phrase
// (`field().required().choices("pass|fail").csv("check")`). make() turns it into the field's FieldSpec.
struct FieldRule {
  FieldSpec spec;              // key and kind unset: the row's
  bool csv_own = false;        // the CSV / summary column is named as the key
  bool summary_own = false;
  FieldRule required() const { return with([](FieldSpec& f) { f.need = FieldNeed::required; }); }
  FieldRule at_least(int64_t min) const { return with([min](FieldSpec& f) { f.min = min; }); }
  FieldRule non_negative() const { return with([](FieldSpec& f) { f.non_negative = true; }); }
  FieldRule fraction() const { return with([](FieldSpec& f) { f.non_negative = f.fraction = true; }); }
  FieldRule decimals(int n) const { return with([n](FieldSpec& f) { f.precision = n; }); }
  FieldRule digits(int n) const { return with([n](FieldSpec& f) { f.precision = n, f.significant = true; }); }
  // `words` with '|' between them; `open`: FieldSpec::open_choices.
  FieldRule choices(std::string_view words, bool open = false) const {
    return with([words, open](FieldSpec& f) { f.choices = words, f.open_choices = open; });
  }
  FieldRule to_end() const { return with([](FieldSpec& f) { f.to_end = true; }); }
  FieldRule alike() const { return with([](FieldSpec& f) { f.alike = true; }); }
  FieldRule compared(int rank) const { return with([rank](FieldSpec& f) { f.compared = rank; }); }
  // A CSV column named `header` (empty: the key) at `rank`.
  FieldRule csv(std::string_view header = {}, int rank = 0) const {
    FieldRule r = with([header, rank](FieldSpec& f) { f.csv = {header, rank}; });
    r.csv_own = header.empty();
    return r;
  }
  // A summary column named as the key: ReportColumn's rank, divisor, decimals and when_present.
  FieldRule summary(int rank, double divisor = 1, int decimals = -1, bool when_present = false) const {
    FieldRule r = with([rank, divisor, decimals, when_present](FieldSpec& f) {
      f.summary = {{}, rank, divisor, decimals, when_present};
    });
    r.summary_own = true;
    return r;
  }
  // The same under another header (a unit: "peak_MiB", "cov_%").
  FieldRule summary_as(std::string_view header, int rank, double divisor, int decimals, bool when_present) const {
    FieldRule r = summary(rank, divisor, decimals, when_present);
    r.spec.summary.header = header;
    r.summary_own = false;
    return r;
  }
  FieldSpec make(std::string_view key, FieldKind kind) const {
    FieldSpec f = spec;
    f.key = key;
    f.kind = kind;
    if (csv_own) f.csv.header = key;
    if (summary_own) f.summary.header = key;
    return f;
  }

 private:
  template <class Change>
  FieldRule with(Change change) const {
    FieldRule r = *this;
    change(r.spec);
    return r;
  }
};

// The words of the rows (log_schema.hpp), each a FieldRule. field(): a field with no more to it than its key and
// kind. line_key(): input and batch, which name a combination: required and >= 1, checked before any other
// field so that an error is about the line's identity first. csv_number(): a number that cannot be below 0 with a
// CSV column of its own name. share(): a CPU share over an interval (base/cpu_use.hpp), 4 decimals, a CSV column.
inline FieldRule field() { return {}; }
inline FieldRule line_key() {
  FieldRule r = field().at_least(1);
  r.spec.need = FieldNeed::key;
  return r;
}
inline FieldRule csv_number(int decimals) { return field().non_negative().decimals(decimals).csv(); }
inline FieldRule share() { return csv_number(4); }
// The free text that runs to the end of its line (FAIL's error=, the reason= of NOTE, SERVE and CAPACITY).
inline FieldRule free_text(std::string_view csv_header) { return field().required().to_end().csv(csv_header); }

}  // namespace fmwork
