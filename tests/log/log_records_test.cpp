// Tests of log_records: what belongs to each RES line of a log.
#include "fmwork/log/log_records.hpp"

#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "fmwork/log/log_format.hpp"
#include "support/process_fixtures.hpp"

namespace fmwork {
namespace {

using namespace process_fixtures;

// ---- reading logs ----

TEST(LogRecords, OptsAreEveryArgOfTheFileLikeUpstream) {
  // Upstream's records share one opts list, printed after the whole file is read.
  const std::string log =
      "FMWORK ARG --a 1\n"
      "FMWORK RES 1.000000000 2.000000000 m c 1 1 1.000 1000.0\n"
      "FMWORK ARG --b 2\n";
  ParsedLog parsed;
  std::istringstream in(log);
  parsed = parse_log(in, "-");
  ASSERT_EQ(parsed.results.size(), 1u);
  EXPECT_EQ(parsed.opts, (std::vector<std::string>{"--a 1", "--b 2"}));
}

// A full disk cuts a log mid-line: the cut last line (no newline, does not parse) is left out with a note,
// the combinations before it are kept; the same line with its newline is a malformed line, an Error.
TEST(LogRecords, ACutLastLineIsLeftOutWithANote) {
  const std::string res = "FMWORK RES 1.000000000 2.000000000 m c 8 1 1.000 1000.0\n";
  const ParsedLog log = parse_log_text("FMWORK ARG --a 1\n" + res + "FMWORK REP 29 30 1795490538.289988147 17", "x.log");
  EXPECT_EQ(log.results.size(), 1u);
  EXPECT_EQ(log.fmwork_lines, 2u);
  ASSERT_EQ(log.notes.size(), 1u);
  EXPECT_EQ(log.notes[0], "x.log:3: the last line is cut short (no newline at its end; FMWORK REP line has 4 values, "
                          "expected 5: rep reps t0 t1 dt): left out, the lines before it are read");
  EXPECT_THROW(parse_log_text(res + "FMWORK REP 29 30 1795490538.289988147 17\n", "x.log"), Error);
  EXPECT_TRUE(parse_log_text(res, "x.log").notes.empty());
  EXPECT_EQ(parse_log_text("no driver here\n", "x.log").fmwork_lines, 0u);
}

// A log cut mid-value can still parse: a RES throughput 4548.0 cut to 45, STAT's tokens_per_s=72768.6 cut
// to 72. A line without its newline is no record: left out with a note, whatever it reads as.
TEST(LogRecords, ACutLastLineThatParsesIsLeftOutToo) {
  const std::string head = "FMWORK ARG --a 1\nFMWORK RES 1.000000000 2.000000000 m c 8 1 1.000 1000.0\n";
  const std::string res = "FMWORK RES 3.000000000 4.000000000 m c 8 2 0.440 4548.0";
  const ParsedLog cut_res = parse_log_text(head + res.substr(0, res.size() - 4), "x.log");
  ASSERT_EQ(cut_res.results.size(), 1u);
  EXPECT_EQ(cut_res.results[0].res.batch, 1);
  ASSERT_EQ(cut_res.notes.size(), 1u);
  EXPECT_EQ(cut_res.notes[0], "x.log:3: the last line is cut short (no newline at its end, so its last value may be "
                              "cut): left out, the lines before it are read");
  const std::string stat = "FMWORK STAT input=8 batch=1 reps=3 dropped=1 p50_ms=0.110 tokens_per_s=72768.6";
  const ParsedLog cut_stat = parse_log_text(head + stat.substr(0, stat.size() - 5), "x.log");
  ASSERT_EQ(cut_stat.results.size(), 1u);
  EXPECT_FALSE(cut_stat.results[0].stat);
  EXPECT_EQ(cut_stat.notes.size(), 1u);
  // Whole, the same lines are read; a cut line of a word process does not read, or text that is no FMWORK
  // line, is left out without a note.
  EXPECT_EQ(parse_log_text(head + res + "\n", "x.log").results.size(), 2u);
  EXPECT_TRUE(parse_log_text(head + stat + "\n", "x.log").results[0].stat);
  EXPECT_TRUE(parse_log_text(head + "FMWOR", "x.log").notes.empty());
  EXPECT_TRUE(parse_log_text(head + "progress 10%", "x.log").notes.empty());
}

// Defect: a NOTE verdict word this process did not know refused the whole log ("FMWORK NOTE verdict must be ok
// or ..."), though a newer driver may judge by a new word: it is read as unknown and said once per word.
TEST(LogRecords, AnUnknownNoteVerdictIsNotedNotRefused) {
  const std::string res = "FMWORK RES 1.000000000 2.000000000 m c 8 1 1.000 1000.0\n";
  const std::string note = "FMWORK NOTE input=8 batch=1 verdict=sluggish kept=2 reason=a word of a newer driver\n";
  const ParsedLog log = parse_log_text(res + note + res + note + "FMWORK NOTE input=8 batch=1 verdict=ok reason=-\n",
                                       "x.log");
  EXPECT_EQ(log.results.size(), 2u);
  ASSERT_EQ(log.notes.size(), 1u) << "once per word";
  EXPECT_EQ(log.notes[0], "x.log:2: FMWORK NOTE verdict 'sluggish' is none this process knows (ok noisy unstable "
                          "too-few-reps contended implausible): read as unknown (a newer driver's word?); its "
                          "combination is judged from its timings as the others are");
  // The writer still writes only the words it knows; every other field of the line is held as before.
  EXPECT_THROW(format_line(*parse_line(note.substr(0, note.size() - 1))), Error);
  EXPECT_THROW(parse_log_text(res + "FMWORK NOTE input=8 batch=1 verdict=sluggish kept=x reason=y\n", "x.log"), Error);
}

TEST(LogRecords, StatAndMemBelongToTheirResult) {
  const std::string log =
      // STAT and MEM after their RES (our driver's order)
      "FMWORK REP 1 2 1.000000000 1.500000000 0.500000000\n"
      "FMWORK REP 2 2 1.500000000 1.600000000 0.100000000\n"
      "FMWORK RES 1.000000000 1.600000000 m c 8 1 100.000 10.0\n"
      "FMWORK STAT input=8 batch=1 reps=2 dropped=1\n"
      "FMWORK MEM input=8 batch=1 allocated_peak_bytes=5\n"
      // STAT before its RES
      "FMWORK STAT input=8 batch=2 reps=2 dropped=1 p50_ms=9\n"
      "FMWORK RES 2.000000000 3.000000000 m c 8 2 9.000 222.2\n"
      // a STAT of another size does not attach to the RES before it
      "FMWORK STAT input=16 batch=2 reps=2 dropped=1\n"
      "FMWORK RES 4.000000000 5.000000000 m c 16 2 9.000 222.2\n"
      "FMWORK RES 6.000000000 7.000000000 m c 32 2 9.000 222.2\n"
      "FMWORK FAIL input=64 batch=2 error=boom\n";
  std::istringstream in(log);
  ParsedLog parsed = parse_log(in, "x.log");
  ASSERT_EQ(parsed.results.size(), 4u);
  ASSERT_TRUE(parsed.results[0].stat && parsed.results[0].mem);
  EXPECT_EQ(parsed.results[0].rep_durations, (std::vector<Nanos>{500000000, 100000000}));
  EXPECT_EQ(parsed.results[0].line, 3u);
  EXPECT_EQ(parsed.results[0].timestamp, "1.000000000");
  ASSERT_TRUE(parsed.results[1].stat);
  EXPECT_EQ(*parsed.results[1].stat->fields.find("p50_ms"), "9");
  EXPECT_FALSE(parsed.results[1].mem);
  EXPECT_TRUE(parsed.results[1].rep_durations.empty());
  ASSERT_TRUE(parsed.results[2].stat);
  EXPECT_EQ(*parsed.results[2].stat->fields.find("input"), "16");
  EXPECT_FALSE(parsed.results[3].stat);
  ASSERT_EQ(parsed.failures.size(), 1u);
  EXPECT_EQ(parsed.failure_lines, (std::vector<size_t>{11}));
  EXPECT_EQ(*parsed.failures[0].fields.find("error"), "boom");
}

// The plausibility check runs when the log is read, each combination against the earlier ones of its model:
// what `process` then shows as the verdict `implausible`.
TEST(LogRecords, ACombinationFarSlowerThanAnEarlierOneOfItsModelIsImplausible) {
  const std::string log =
      "FMWORK RES 1.000000000 2.000000000 m c 64 1 1.000 1000.0\n"
      "FMWORK STAT input=64 batch=1 reps=20 dropped=4 p50_ms=1 flops=1e+09 flops_from=formula gflops=1000.000\n"
      "FMWORK RES 3.000000000 4.000000000 m c 64 8 20.000 400.0\n"
      "FMWORK STAT input=64 batch=8 reps=20 dropped=4 p50_ms=20 flops=8e+09 flops_from=formula gflops=400.000\n"
      "FMWORK RES 5.000000000 6.000000000 other c 64 8 20.000 400.0\n"
      "FMWORK STAT input=64 batch=8 reps=20 dropped=4 p50_ms=20 flops=8e+09 flops_from=formula gflops=400.000\n";
  std::istringstream in(log);
  const ParsedLog parsed = parse_log(in, "x.log");
  ASSERT_EQ(parsed.results.size(), 3u);
  EXPECT_EQ(parsed.results[0].implausible, "");
  EXPECT_EQ(parsed.results[1].implausible, "gflops 400.000 < half of input 64 batch 1's 1000.000, with no more work");
  EXPECT_EQ(parsed.results[2].implausible, "") << "another model's combinations are no measure";
}

// Runs are alike where every META fact the schema marks alike (a fact that changes the rate) is the same: another
// thread count is another run, another seed is not.
TEST(LogRecords, OnlyRunsAlikeInTheSchemasFactsAreHeldToEachOther) {
  const std::string first = "FMWORK RES 1.000000000 2.000000000 m c 64 1 1.000 1000.0\n"
                            "FMWORK STAT input=64 batch=1 reps=20 dropped=4 p50_ms=1 flops=1e+09 gflops=1000.000\n";
  const std::string second = "FMWORK RES 3.000000000 4.000000000 m c 64 8 20.000 400.0\n"
                             "FMWORK STAT input=64 batch=8 reps=20 dropped=4 p50_ms=20 flops=8e+09 gflops=400.000\n";
  const auto second_judged = [&](const std::string& meta_a, const std::string& meta_b) {
    return parse_log_text(meta_a + first + meta_b + second, "x.log").results.at(1).implausible;
  };
  EXPECT_EQ(second_judged("FMWORK META threads=4\n", "FMWORK META threads=2\n"), "");
  EXPECT_NE(second_judged("FMWORK META threads=4 seed=1\n", "FMWORK META threads=4 seed=2\n"), "");
}

// Defect: a SERVE line saying its device was busy 7.5 of the time was read as written. busy (and STAT's
// padding) is a part of a whole: the line is refused, naming the field and its range.
TEST(LogRecords, AFractionAboveOneIsRefused) {
  const std::string serve = "FMWORK SERVE level=1 phase=levels arrival=poisson busy=";
  EXPECT_EQ(parse_log_text(serve + "0.9990 verdict=VALID reason=x\n", "x.log").serve.size(), 1u);
  EXPECT_EQ(parse_log_text(serve + "1 verdict=VALID reason=x\n", "x.log").serve.size(), 1u);
  try {
    parse_log_text(serve + "7.5 verdict=VALID reason=x\n", "x.log");
    ADD_FAILURE() << "busy=7.5 was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("FMWORK SERVE busy must be a fraction from 0 to 1, got '7.5'"),
              std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_log_text("FMWORK RES 1.000000000 2.000000000 m c 8 1 1.000 1000.0\n"
                              "FMWORK STAT input=8 batch=1 reps=2 dropped=1 padding=1.5\n", "x.log"),
               Error);
  // Hostile round six: a forged steal_share of 3 (steal's share of the machine's CPU time) was read as written.
  // cpu_pressure stays unbounded above: PSI's total, updated in steps, reads past 1 of a short interval.
  EXPECT_THROW(parse_log_text(serve + "0.5 steal_share=3 verdict=VALID reason=x\n", "x.log"), Error);
  EXPECT_EQ(parse_log_text(serve + "0.5 steal_share=0.25 verdict=VALID reason=x\n", "x.log").serve.size(), 1u);
  EXPECT_EQ(parse_log_text(serve + "0.5 cpu_pressure=1.35 verdict=VALID reason=x\n", "x.log").serve.size(), 1u);
}

// Hostile round six: a CAPACITY line that contradicts itself was read as written. Refused, naming the fields.
TEST(LogRecords, ACapacityLineThatContradictsItselfIsRefused) {
  const std::string capacity = "FMWORK CAPACITY bound=p99<=100ms result=found steps=3 ";
  EXPECT_EQ(parse_log_text(capacity + "timing=contended contended_levels=2 reason=x\n", "x.log").capacity.size(), 1u);
  EXPECT_EQ(parse_log_text(capacity + "timing=ok reason=x\n", "x.log").capacity.size(), 1u);
  const auto refused = [&](const std::string& fields, const std::string& says) {
    try {
      parse_log_text(capacity + fields + " reason=x\n", "x.log");
      ADD_FAILURE() << fields << " was read";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "x.log:1: FMWORK CAPACITY " + says) << fields;
    }
  };
  refused("timing=contended contended_levels=9", "contended_levels=9 is more than the steps=3 it ran");
  refused("timing=ok contended_levels=1",
          "timing=ok over contended_levels=1: a capacity found on contended levels is timing=contended");
}

// Hostile round seven: lines whose figures contradict each other were read as written: a STAT or SERVE p50
// above its p99 (or min above p50), a capacity at or above the lowest rate that failed, an interrupt at
// combination 10 of 2. Refused, naming the fields; equal figures (a run of identical reps) still read.
TEST(LogRecords, AFigureThatContradictsItsLineIsRefused) {
  const std::string res = "FMWORK RES 1.000000000 2.000000000 m c 8 1 1.000 1000.0\n";
  const std::string stat = "FMWORK STAT input=8 batch=1 reps=2 dropped=1 ";
  const std::string serve = "FMWORK SERVE level=1 phase=levels arrival=poisson ";
  const std::string capacity = "FMWORK CAPACITY bound=p99:100 result=found steps=3 ";
  const std::string interrupt = "FMWORK INTERRUPT input=8 batch=1 signal=SIGINT ";
  EXPECT_EQ(parse_log_text(res + stat + "min_ms=1 p50_ms=1 p90_ms=1 p99_ms=1 max_ms=1\n", "x.log").results.size(), 1u);
  EXPECT_EQ(parse_log_text(serve + "p50_ms=2 p99_ms=3 max_ms=3 verdict=VALID reason=x\n", "x.log").serve.size(), 1u);
  EXPECT_EQ(parse_log_text(capacity + "capacity_qps=50 lowest_failed_qps=60 reason=x\n", "x.log").capacity.size(), 1u);
  EXPECT_EQ(parse_log_text(interrupt + "complete=3 combinations=4\n", "x.log").interrupts.size(), 1u);
  const auto refused = [](const std::string& text, const std::string& says) {
    try {
      parse_log_text(text, "x.log");
      ADD_FAILURE() << text << " was read";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused(res + stat + "p50_ms=9 p90_ms=1 p99_ms=1\n",
          "x.log:2: FMWORK STAT p50_ms=9 is above p90_ms=1: a latency's percentiles rise with the percent");
  refused(res + stat + "min_ms=5 p50_ms=1\n", "FMWORK STAT min_ms=5 is above p50_ms=1");
  refused(serve + "p50_ms=999 p99_ms=1 verdict=VALID reason=x\n", "x.log:1: FMWORK SERVE p50_ms=999 is above p99_ms=1");
  refused(capacity + "capacity_qps=60 lowest_failed_qps=0.5 reason=x\n",
          "x.log:1: FMWORK CAPACITY capacity_qps=60 is not below lowest_failed_qps=0.5");
  refused(interrupt + "complete=9 combinations=2\n", "x.log:1: FMWORK INTERRUPT complete=9 is not below combinations=2");
}

// Defect: runs appended to one log were judged against each other across thread counts: a 1-thread run after a
// 4-thread one was "implausible". Only runs alike (the same META facts and length options) are compared.
TEST(LogRecords, OnlyRunsAlikeAreComparedForPlausibility) {
  const auto run = [](const std::string& threads, const std::string& batching, const std::string& batch,
                      const std::string& gflops) {
    return "FMWORK ARG --batching " + batching + "\n"
           "FMWORK META driver=0.1.0 platform=cpu threads=" + threads + " dtype=float32\n"
           "FMWORK RES 1.000000000 2.000000000 m c 64 " + batch + " 1.000 1000.0\n"
           "FMWORK STAT input=64 batch=" + batch + " reps=20 dropped=4 p50_ms=1 flops=1e+09 flops_from=formula gflops=" +
           gflops + "\n";
  };
  const ParsedLog threads = parse_log_text(run("4", "padded", "1", "1000.000") + run("1", "padded", "8", "300.000"), "x.log");
  ASSERT_EQ(threads.results.size(), 2u);
  EXPECT_EQ(threads.results[1].implausible, "") << "1 thread against 4";
  const ParsedLog batching = parse_log_text(run("4", "padded", "1", "1000.000") + run("4", "sorted", "8", "300.000"), "x.log");
  EXPECT_EQ(batching.results[1].implausible, "") << "another batching mode";
  const ParsedLog alike = parse_log_text(run("4", "padded", "1", "1000.000") + run("4", "padded", "8", "300.000"), "x.log");
  EXPECT_EQ(alike.results[1].implausible, "gflops 300.000 < half of input 64 batch 1's 1000.000, with no more work")
      << "appended runs alike are still compared";
}

TEST(LogRecords, SetupAndPrecisionAreTheLastBeforeEachResult) {
  const std::string log =
      "FMWORK RES 1.000000000 2.000000000 m c 1 1 1.000 1000.0\n"
      "FMWORK SETUP 1.5\n"
      "FMWORK META dtype=float16\n"
      "FMWORK RES 1.000000000 2.000000000 m c 1 1 1.000 1000.0\n"
      "FMWORK SETUP 2.5\n"
      "FMWORK META driver=0.1.0\n"
      "FMWORK RES 1.000000000 2.000000000 m c 1 1 1.000 1000.0\n";
  std::istringstream in(log);
  ParsedLog parsed = parse_log(in, "-");
  ASSERT_EQ(parsed.results.size(), 3u);
  EXPECT_FALSE(parsed.results[0].setup_seconds);
  EXPECT_FALSE(parsed.results[0].precision);
  EXPECT_EQ(parsed.results[1].setup_seconds, 1.5);
  EXPECT_EQ(parsed.results[1].precision, "float16");
  EXPECT_EQ(parsed.results[2].setup_seconds, 2.5);
  EXPECT_EQ(parsed.results[2].precision, "float16");
  EXPECT_EQ(engine_name(parsed), "fmwork-cpp/embed");
}

// ---- reading in pieces ----

std::string fields_text(const Fields& fields) {
  std::string out;
  for (const auto& [key, value] : fields.items) out += " " + key + "=" + value;
  return out + "\n";
}

// Everything a ParsedLog holds, as text, so that two reads can be compared whole.
std::string dump(const ParsedLog& log) {
  std::string out = log.source + " fmwork_lines=" + std::to_string(log.fmwork_lines) + "\n";
  for (const CombinationRecord& r : log.results) {
    out += "RES " + std::to_string(r.line) + " " + r.timestamp + " " + r.res.model_name + " " + r.res.model_class +
           " " + std::to_string(r.res.input) + " " + std::to_string(r.res.batch) + " " +
           std::to_string(r.res.latency_ms) + " setup=" + (r.setup_seconds ? std::to_string(*r.setup_seconds) : "-") +
           " precision=" + r.precision.value_or("-") + "\n";
    if (r.stat) out += " stat" + fields_text(r.stat->fields);
    if (r.mem) out += " mem" + fields_text(r.mem->fields);
    if (r.check) out += " check" + fields_text(r.check->fields);
    for (const ProfileLine& p : r.profile) out += " profile" + fields_text(p.fields);
    for (Nanos d : r.rep_durations) out += " " + std::to_string(d);
    out += "\n";
  }
  for (size_t i = 0; i < log.failures.size(); ++i)
    out += "FAIL " + std::to_string(log.failure_lines[i]) + fields_text(log.failures[i].fields);
  for (const MetaLine& m : log.meta) out += "META" + fields_text(m.fields);
  for (const std::string& o : log.opts) out += "ARG " + o + "\n";
  for (const std::string& n : log.notes) out += "NOTE " + n + "\n";
  return out;
}

// Every line kind, the three line ends, another program's lines, and a last line cut short.
const std::string kMixedLog = kUpstreamLog + "progress 10%\rprogress 20%\r\n" + kOurLog +
                              "FMWORK SETUP 1.5\r\n"
                              "FMWORK REP 1 2 5.000000000 5.500000000 0.500000000\r"
                              "FMWORK REP 2 2 5.500000000 5.600000000 0.100000000\r\n"
                              "FMWORK RES 5.000000000 5.600000000 m c 8 1 100.000 10.0\r"
                              "FMWORK STAT input=8 batch=1 reps=2 dropped=1\n"
                              "FMWORK REP 1 2 6.000000000 6.5";

// A stream that hands over at most `piece` bytes a read, as a pipe does.
class PieceBuf : public std::streambuf {
 public:
  PieceBuf(std::string text, size_t piece) : text_(std::move(text)), piece_(piece) {}

 protected:
  int_type underflow() override {
    if (pos_ >= text_.size()) return traits_type::eof();
    const size_t n = std::min(piece_, text_.size() - pos_);
    setg(&text_[pos_], &text_[pos_], &text_[pos_] + n);
    pos_ += n;
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::string text_;
  size_t piece_;
  size_t pos_ = 0;
};

TEST(LogRecords, PiecesGiveTheSameRecordsAsTheWholeText) {
  const std::string whole = dump(parse_log_text(kMixedLog, "x.log"));
  EXPECT_EQ(parse_log_text(kMixedLog, "x.log").results.size(), 4u);
  EXPECT_EQ(parse_log_text(kMixedLog, "x.log").notes.size(), 1u);
  // Cut in two at every byte: a "\r\n" cut between its bytes is still one line end.
  for (size_t cut = 0; cut <= kMixedLog.size(); ++cut) {
    LogStreamParser parser("x.log");
    parser.feed(std::string_view(kMixedLog).substr(0, cut));
    parser.feed("");
    parser.feed(std::string_view(kMixedLog).substr(cut));
    ASSERT_EQ(dump(parser.finish()), whole) << "cut at " << cut;
  }
  LogStreamParser bytes("x.log");
  for (char c : kMixedLog) bytes.feed(std::string_view(&c, 1));
  EXPECT_EQ(dump(bytes.finish()), whole);
  // Through a stream in 7-byte pieces, and long enough to cross parse_log's 64 KiB reads.
  PieceBuf buf(kMixedLog, 7);
  std::istream in(&buf);
  EXPECT_EQ(dump(parse_log(in, "x.log")), whole);
  std::string repeated;
  while (repeated.size() < (size_t{3} << 16)) repeated += kOurLog + "\r";
  PieceBuf long_buf(repeated, 4093);
  std::istream long_in(&long_buf);
  EXPECT_EQ(dump(parse_log(long_in, "x.log")), dump(parse_log_text(repeated, "x.log")));
}

TEST(LogRecords, LineEndsAndLineNumbers) {
  const std::string bad = "FMWORK RES 1.000000000 2.000000000 m c 8 1 1.000\n";
  for (const std::string end : {"\n", "\r\n", "\r"}) {
    const std::string text = "a" + end + "FMWORK ARG --a 1" + end + "b\n" + bad;
    try {
      parse_log_text(text, "-");
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "<stdin>:4: FMWORK RES line has 7 values, expected 8: t_first t_last model_name "
                                       "model_class input batch latency_ms throughput");
    }
  }
  // A text that ends in "\r" ends its last line: a malformed one is an Error, not a cut-short note.
  EXPECT_THROW(parse_log_text("FMWORK REP 1 2\r", "x.log"), Error);
  EXPECT_EQ(parse_log_text("FMWORK REP 1 2", "x.log").notes.size(), 1u);
  EXPECT_EQ(parse_log_text("", "x.log").fmwork_lines, 0u);
}

TEST(LogRecords, AnOverlongLineIsRefusedNamingIt) {
  const std::string long_arg = "FMWORK ARG " + std::string(kMaxLogLineBytes, 'x') + "\n";
  try {
    parse_log_text("FMWORK ARG --a 1\n" + long_arg, "x.log");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    EXPECT_EQ(std::string(e.what()), "x.log:2: the line is longer than 1 MiB; a driver's FMWORK lines are a few KiB "
                                     "at most: is this a driver log?");
  }
  // Only FMWORK lines are held: another program's line of any length is skipped, as before.
  LogLimits small;
  small.line_bytes = 32;
  const std::string other = std::string(1000, 'p') + "\nFMWORK ARG --a 1\n";
  EXPECT_EQ(parse_log_text(other, "x.log", small).opts, (std::vector<std::string>{"--a 1"}));
  EXPECT_THROW(parse_log_text("FMWORK ARG " + std::string(22, 'a'), "x.log", small), Error);
  EXPECT_EQ(parse_log_text("FMWORK ARG " + std::string(21, 'a') + "\n", "x.log", small).opts.size(), 1u);
}

TEST(LogRecords, WhatALogKeepsIsBounded) {
  LogLimits limits;
  limits.kept_bytes = 64 << 10;
  std::string res_lines;
  for (int i = 1; i <= 1000; ++i)
    res_lines += "FMWORK RES 1.000000000 2.000000000 m c " + std::to_string(i) + " 1 1.000 1000.0\n";
  try {
    parse_log_text(res_lines, "x.log", limits);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("x.log:", 0), 0u) << what;
    EXPECT_NE(what.find(": the log's records take more than 64 KiB of memory here ("), std::string::npos) << what;
    EXPECT_NE(what.find(" combinations, 0 failures, 0 REP durations so far); process reads at most that from one "
                        "log: split it into several logs"),
              std::string::npos)
        << what;
  }
  // REP durations count too, those waiting for their RES included.
  std::string reps;
  for (int i = 1; i <= 10000; ++i)
    reps += "FMWORK REP " + std::to_string(i) + " 10000 1.000000000 1.500000000 0.500000000\n";
  EXPECT_THROW(parse_log_text(reps + "FMWORK RES 1.000000000 2.000000000 m c 1 1 1.000 1000.0\n", "x.log", limits),
               Error);
  std::string blocks;  // a REP 1 starts a new block: the ones before it are not kept
  for (int i = 1; i <= 10000; ++i) blocks += "FMWORK REP 1 2 1.000000000 1.500000000 0.500000000\n";
  EXPECT_EQ(parse_log_text(blocks, "x.log", limits).results.size(), 0u);
}

// ---- what cannot be a log: /dev/zero, /dev/urandom, a stream with no end ----

// The message a parse throws ("" when it throws none).
std::string records_error(const std::string& text, LogLimits limits = {}) {
  try {
    parse_log_text(text, "x.log", limits);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    return e.what();
  }
  return "";
}

TEST(LogRecords, BinaryDataBeforeAnyFmworkLineIsRefusedAtOnce) {
  EXPECT_EQ(records_error(std::string(100, '\0')),
            "x.log:1: binary data (a NUL byte) before any FMWORK line; a driver log is text: is this a driver log?");
  EXPECT_EQ(records_error("text\nmore\x01\xff\n" + std::string(1, '\0')).rfind("x.log:3: binary data", 0), 0u);
  // After FMWORK lines, NUL bytes (the zero-filled tail a crash can leave) are another program's bytes.
  EXPECT_EQ(parse_log_text(kUpstreamLog + std::string(4096, '\0'), "x.log").results.size(),
            parse_log_text(kUpstreamLog, "x.log").results.size());
}

// A stream of lines that never holds an FMWORK line ends at the bound, whatever its line ends: the parser is
// fed piece after piece and must throw within the bound's worth of pieces (no clock involved).
TEST(LogRecords, BytesWithoutAnFmworkLineAreBounded) {
  LogLimits limits;
  limits.gap_bytes = 4096;
  for (const std::string& piece : {std::string(100, 'z'), std::string("junk\n"), std::string("a\rb\r\n")}) {
    LogStreamParser parser("x.log", limits);
    std::string what;
    for (int i = 0; i < 10000 && what.empty(); ++i) {
      try {
        parser.feed(piece);
      } catch (const Error& e) {
        what = e.what();
      }
    }
    EXPECT_NE(what.find(": no FMWORK line in the 4 KiB read since the start; a driver writes one per rep: is this a "
                        "driver log, or a stream with no end?"),
              std::string::npos)
        << what;
  }
  // After an FMWORK line the count starts again, and names it.
  const std::string after = records_error(kUpstreamLog + std::string(5000, 'y') + "\n", limits);
  EXPECT_NE(after.find(" read since line "), std::string::npos) << after;
  // Other programs' lines between FMWORK lines, under the bound each time, are read; so is a log far longer
  // than the bound, given whole.
  std::string log;
  for (int i = 0; i < 100; ++i) log += std::string(3000, 'w') + "\n" + kUpstreamLog;
  EXPECT_EQ(records_error(log, limits), "");
  EXPECT_EQ(parse_log_text(log, "x.log", limits).results.size(), 100 * parse_log_text(kUpstreamLog, "x.log").results.size());
}

}  // namespace
}  // namespace fmwork
