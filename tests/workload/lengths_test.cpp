// Tests of workload/lengths: the length-distribution syntax and its one-line refusals, files of lengths and
// their bounds, the seeded sampler (repeatable, in range, the shape each kind promises), the batching modes'
// table, the sorted mode's windowing and the token counts.
#include "fmwork/workload/lengths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "fmwork/base/error.hpp"
#include "support/temp_dir.hpp"

namespace fmwork {
namespace {

constexpr const char* kOption = "--input_lengths";

// The usage Error's message for `text`; a test failure when it parses.
std::string refusal(const std::string& text) {
  try {
    parse_length_spec(text, kOption);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage) << text;
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(std::string(kOption), 0), 0u) << "the message names the option: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "'" << text << "' was accepted";
  return "";
}

TEST(LengthSpec, ReadsEachKind) {
  LengthSpec fixed = parse_length_spec("128", kOption);
  EXPECT_EQ(fixed.kind, LengthKind::fixed);
  EXPECT_EQ(fixed.min, 128);
  EXPECT_EQ(fixed.max, 128);
  EXPECT_EQ(parse_length_spec("fixed:7", kOption).max, 7);

  const LengthSpec uniform = parse_length_spec("uniform:16,512", kOption);
  EXPECT_EQ(uniform.kind, LengthKind::uniform);
  EXPECT_EQ(uniform.min, 16);
  EXPECT_EQ(uniform.max, 512);
  EXPECT_EQ(parse_length_spec("uniform:9,9", kOption).max, 9);

  const LengthSpec lognormal = parse_length_spec("lognormal:64,512", kOption);
  EXPECT_EQ(lognormal.kind, LengthKind::lognormal);
  EXPECT_DOUBLE_EQ(lognormal.median, 64);
  EXPECT_EQ(lognormal.min, 1);
  EXPECT_EQ(lognormal.max, 512);
  EXPECT_DOUBLE_EQ(lognormal.sigma, kDefaultLognormalSigma);
  const LengthSpec spread = parse_length_spec("lognormal:40.5,300,1.25", kOption);
  EXPECT_DOUBLE_EQ(spread.median, 40.5);
  EXPECT_DOUBLE_EQ(spread.sigma, 1.25);
}

TEST(LengthSpec, TextNamesTheDistribution) {
  EXPECT_EQ(length_spec_text(parse_length_spec("128", kOption)), "fixed:128");
  EXPECT_EQ(length_spec_text(parse_length_spec("uniform:16,512", kOption)), "uniform:16,512");
  EXPECT_EQ(length_spec_text(parse_length_spec("lognormal:64,512", kOption)), "lognormal:64,512,0.8");
  EXPECT_EQ(length_spec_text(parse_length_spec("lognormal:64.5,512,1.5", kOption)), "lognormal:64.5,512,1.5");
}

TEST(LengthSpec, RefusesEachBadValueInOneLine) {
  EXPECT_NE(refusal("").find("is empty"), std::string::npos);
  EXPECT_NE(refusal("normal:3,4").find("no length distribution"), std::string::npos);
  EXPECT_NE(refusal("0").find("out of range"), std::string::npos);
  EXPECT_NE(refusal("-5").find("no integer"), std::string::npos);
  EXPECT_NE(refusal("12x").find("no integer"), std::string::npos);
  EXPECT_NE(refusal("99999999999999999999999").find("no integer"), std::string::npos);
  EXPECT_NE(refusal("16777217").find("out of range"), std::string::npos);
  EXPECT_NE(refusal("uniform:16").find("expects uniform:MIN,MAX"), std::string::npos);
  EXPECT_NE(refusal("uniform:1,2,3").find("got 3 values"), std::string::npos);
  EXPECT_NE(refusal("uniform:512,16").find("MAX 16 is below its MIN 512"), std::string::npos);
  EXPECT_NE(refusal("uniform:0,16").find("out of range"), std::string::npos);
  EXPECT_NE(refusal("uniform:,16").find("no integer"), std::string::npos);
  EXPECT_NE(refusal("lognormal:64").find("expects lognormal:MEDIAN,MAX[,SIGMA]"), std::string::npos);
  EXPECT_NE(refusal("lognormal:600,512").find("below its MEDIAN"), std::string::npos);
  EXPECT_NE(refusal("lognormal:0.5,512").find("MEDIAN"), std::string::npos);
  EXPECT_NE(refusal("lognormal:6.,512").find("MEDIAN"), std::string::npos);
  EXPECT_NE(refusal("lognormal:64,512,0").find("SIGMA"), std::string::npos);
  EXPECT_NE(refusal("lognormal:64,512,4.5").find("SIGMA"), std::string::npos);
  EXPECT_NE(refusal("lognormal:64,512,nan").find("SIGMA"), std::string::npos);
  EXPECT_NE(refusal("file:").find("needs a path"), std::string::npos);
  // A control character in the value is written out, never printed.
  EXPECT_NE(refusal("uniform:1,\n2").find("\\n"), std::string::npos);
}

TEST(LengthSpec, ReadsAFileOfLengths) {
  TempDir dir;
  const std::string path = dir.write("lengths.txt", "12\n  300\r\n\n7\n");
  const LengthSpec spec = parse_length_spec("file:" + path, kOption);
  EXPECT_EQ(spec.kind, LengthKind::file);
  EXPECT_EQ(spec.lengths, (std::vector<int64_t>{12, 300, 7}));
  EXPECT_EQ(spec.min, 7);
  EXPECT_EQ(spec.max, 300);
  EXPECT_EQ(spec.path, path);
  EXPECT_EQ(length_spec_text(spec), "file:" + path);
  // No final newline: the last line still counts.
  EXPECT_EQ(parse_length_spec("file:" + dir.write("one.txt", "5"), kOption).lengths, std::vector<int64_t>{5});
  // Defect: a UTF-8 byte order mark (a Windows editor's) made line 1 "no integer", the mark invisible in the
  // message. It is skipped; one anywhere else is still no integer.
  EXPECT_EQ(parse_length_spec("file:" + dir.write("bom.txt", "\xEF\xBB\xBF" "12\r\n300\r\n"), kOption).lengths,
            (std::vector<int64_t>{12, 300}));
  EXPECT_EQ(lengths_from_text("\xEF\xBB\xBF" "5", "x", kOption), std::vector<int64_t>{5});
  EXPECT_THROW(lengths_from_text("5\n\xEF\xBB\xBF" "6\n", "x", kOption), Error);
  // Defect: a UTF-16 file (Windows' "Unicode", PowerShell's `>`) was "line 1: '\xff\xfe1\x002\x00' is no integer".
  const std::string utf16 = "the lengths: is not UTF-8 or ASCII text (a UTF-16 byte order mark, or NUL bytes, as Windows' "
                            "\"Unicode\" text has): save it as UTF-8 or ASCII, one token count per line";
  for (const std::string text : {std::string("\xFF\xFE" "1\0" "2\0\n\0", 9), std::string("\xFE\xFF" "\0" "1\0\n", 6),
                                 std::string("1\0" "2\0\n\0", 6)}) {
    try {
      lengths_from_text(text, "the lengths:", kOption);
      ADD_FAILURE() << "taken";
    } catch (const Error& e) {
      EXPECT_EQ(e.what(), std::string(kOption) + ": " + utf16);
    }
  }
}

TEST(LengthSpec, RefusesABadFileInOneLine) {
  TempDir dir;
  EXPECT_NE(refusal("file:" + dir.file("missing.txt")).find("does not exist"), std::string::npos);
  EXPECT_NE(refusal("file:" + dir.path()).find("a directory"), std::string::npos);
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(refusal("file:" + fifo).find("a FIFO"), std::string::npos);  // refused before it is opened: no hang
  ASSERT_EQ(::symlink(dir.file("nowhere").c_str(), dir.file("dangling").c_str()), 0);
  EXPECT_NE(refusal("file:" + dir.file("dangling")).find("dangling"), std::string::npos);
  EXPECT_NE(refusal("file:" + dir.write("empty.txt", "")).find("holds no lengths"), std::string::npos);
  EXPECT_NE(refusal("file:" + dir.write("blank.txt", "\n \n\r\n")).find("holds no lengths"), std::string::npos);
  EXPECT_NE(refusal("file:" + dir.write("word.txt", "12\nabc\n")).find("line 2: 'abc' is no integer"), std::string::npos);
  EXPECT_NE(refusal("file:" + dir.write("two.txt", "12 13\n")).find("line 1: '12 13' is no integer"), std::string::npos);
  EXPECT_NE(refusal("file:" + dir.write("float.txt", "1.5\n")).find("no integer"), std::string::npos);
  EXPECT_NE(refusal("file:" + dir.write("neg.txt", "4\n-3\n")).find("line 2"), std::string::npos);
  EXPECT_NE(refusal("file:" + dir.write("zero.txt", "4\n0\n")).find("line 2: 0 is out of range"), std::string::npos);
  EXPECT_NE(refusal("file:" + dir.write("long.txt", std::string(kMaxLengthLineBytes + 1, '1') + "\n"))
                .find("line 1 is longer than"), std::string::npos);
  // A binary file: refused at its first bad line, its bytes written out rather than printed.
  const std::string binary = refusal("file:" + dir.write("binary.bin", std::string("\x01\x02\x1b[2J\n", 6)));
  EXPECT_NE(binary.find("line 1"), std::string::npos);
  EXPECT_EQ(binary.find('\x1b'), std::string::npos);
}

TEST(LengthSpec, BoundsTheFileOfLengths) {
  TempDir dir;
  std::string many;
  many.reserve((kMaxLengthFileLines + 1) * 2);
  for (size_t i = 0; i <= kMaxLengthFileLines; ++i) many += "1\n";
  EXPECT_NE(refusal("file:" + dir.write("many.txt", many)).find("more than 1000000 lengths"), std::string::npos);
  const std::string big = dir.file("big.txt");
  ASSERT_EQ(::truncate(dir.write("big.txt", "1\n").c_str(), static_cast<off_t>(kMaxLengthFileBytes + 1)), 0);
  EXPECT_NE(refusal("file:" + big).find("more than the"), std::string::npos);
}

TEST(LengthSpec, ChecksTheModelsLimit) {
  const LengthSpec spec = parse_length_spec("lognormal:64,600", kOption);
  EXPECT_NO_THROW(check_lengths_fit(spec, 600, kOption));
  try {
    check_lengths_fit(spec, 512, kOption, "the model's position table of");
    ADD_FAILURE() << "600 fitted into 512";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_EQ(std::string(e.what()),
              "--input_lengths can draw lengths up to 600 (lognormal:64,600,0.8), beyond the model's position table of "
              "512 tokens; give a distribution whose longest length is at most 512");
  }
}

TEST(LengthSampler, RepeatsForASeedAndDiffersAcrossSeeds) {
  for (const char* text : {"uniform:1,1000", "lognormal:64,512", "lognormal:64,512,2"}) {
    const LengthSpec spec = parse_length_spec(text, kOption);
    LengthSampler a(spec, 7), b(spec, 7), c(spec, 8);
    const std::vector<int64_t> first = a.draw(200);
    EXPECT_EQ(first, b.draw(200)) << text;
    EXPECT_NE(first, c.draw(200)) << text;
  }
}

// The draws of seed 1, recorded: the transforms are written from mt19937_64's raw output (fixed by the
// standard), so these are the same with every compiler and standard library.
TEST(LengthSampler, DrawsTheSameLengthsOnEveryMachine) {
  LengthSampler uniform(parse_length_spec("uniform:1,100", kOption), 1);
  EXPECT_EQ(uniform.draw(8), (std::vector<int64_t>{29, 63, 31, 47, 85, 10, 29, 66}));
  LengthSampler lognormal(parse_length_spec("lognormal:64,512", kOption), 1);
  EXPECT_EQ(lognormal.draw(8), (std::vector<int64_t>{183, 215, 174, 73, 171, 35, 154, 100}));
}

TEST(LengthSampler, UniformCoversItsRangeEvenly) {
  LengthSampler sampler(parse_length_spec("uniform:10,19", kOption), 3);
  std::map<int64_t, int> seen;
  for (int64_t length : sampler.draw(100000)) ++seen[length];
  ASSERT_EQ(seen.size(), 10u);
  EXPECT_EQ(seen.begin()->first, 10);
  EXPECT_EQ(seen.rbegin()->first, 19);
  for (const auto& [length, count] : seen) EXPECT_NEAR(count, 10000, 500) << length;  // > 5 sigma
  LengthSampler fixed(parse_length_spec("33", kOption), 3);
  EXPECT_EQ(fixed.draw(5), std::vector<int64_t>(5, 33));
  EXPECT_EQ(fixed.max(), 33);
}

TEST(LengthSampler, LognormalHasItsMedianAndStaysUnderItsCap) {
  LengthSampler sampler(parse_length_spec("lognormal:64,512", kOption), 11);
  EXPECT_EQ(sampler.max(), 512);
  std::vector<int64_t> lengths = sampler.draw(100001);
  EXPECT_GE(*std::min_element(lengths.begin(), lengths.end()), 1);
  EXPECT_LE(*std::max_element(lengths.begin(), lengths.end()), 512);
  std::nth_element(lengths.begin(), lengths.begin() + 50000, lengths.end());
  EXPECT_NEAR(lengths[50000], 64, 2);  // the cap at 512 (e^2.6 sigma) moves the median by far less
  // sigma 0.8: the 84th percentile near 64 * e^0.8 = 142.
  std::nth_element(lengths.begin(), lengths.begin() + 84134, lengths.end());
  EXPECT_NEAR(lengths[84134], 142, 6);
}

TEST(LengthSampler, FileDrawsItsLengthsEvenly) {
  TempDir dir;
  LengthSampler sampler(parse_length_spec("file:" + dir.write("l.txt", "5\n9\n9\n200\n"), kOption), 5);
  EXPECT_EQ(sampler.max(), 200);
  std::map<int64_t, int> seen;
  for (int64_t length : sampler.draw(40000)) ++seen[length];
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_NEAR(seen[5], 10000, 600);
  EXPECT_NEAR(seen[9], 20000, 600);  // listed twice: drawn twice as often
  EXPECT_NEAR(seen[200], 10000, 600);
}

TEST(Batching, NameTableReadsAndWrites) {
  EXPECT_EQ(batching_names(), (std::vector<std::string>{"padded", "sorted", "unpadded"}));
  for (const Batching mode : batching_modes()) EXPECT_EQ(parse_batching(batching_name(mode), "--batching"), mode);
  try {
    parse_batching("packed", "--batching");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_EQ(std::string(e.what()), "--batching expects one of padded, sorted, unpadded; got 'packed'; did you mean padded?");
  }
}

TEST(Batching, SortedCutsAWindowLongestFirst) {
  const std::vector<int64_t> window = {5, 100, 7, 100, 3, 50, 9};
  const auto batches = sorted_batches(window, 3);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0], (std::vector<size_t>{1, 3, 5}));  // 100, 100 (arrival order kept), 50
  EXPECT_EQ(batches[1], (std::vector<size_t>{6, 2, 0}));  // 9, 7, 5
  EXPECT_EQ(batches[2], (std::vector<size_t>{4}));        // the rest
  EXPECT_TRUE(sorted_batches({}, 4).empty());
  // Sorting pads less than batching in arrival order, never more.
  LengthSampler sampler(parse_length_spec("lognormal:64,512", kOption), 2);
  const std::vector<int64_t> lengths = sampler.draw(1024);
  int64_t arrival_padded = 0, sorted_padded = 0, sorted_real = 0;
  for (size_t start = 0; start < lengths.size(); start += 32)
    arrival_padded += token_counts({lengths.begin() + start, lengths.begin() + start + 32}).padded;
  std::set<size_t> seen;
  for (const auto& batch : sorted_batches(lengths, 32)) {
    std::vector<int64_t> members;
    for (size_t i : batch) members.push_back(lengths[i]), seen.insert(i);
    sorted_padded += token_counts(members).padded;
    sorted_real += token_counts(members).real;
  }
  EXPECT_EQ(seen.size(), lengths.size());
  EXPECT_LT(sorted_padded, arrival_padded);
  EXPECT_GE(sorted_padded, sorted_real);
}

TEST(Batching, TokenCountsOfABatch) {
  const TokenCounts counts = token_counts({10, 30, 20});
  EXPECT_EQ(counts.real, 60);
  EXPECT_EQ(counts.padded, 90);
  EXPECT_DOUBLE_EQ(counts.padding_fraction(), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(token_counts({}).padding_fraction(), 0.0);
  EXPECT_DOUBLE_EQ(token_counts({8, 8}).padding_fraction(), 0.0);
}

}  // namespace
}  // namespace fmwork
