// over 500 lines: every line kind's writer and parser, each field table checked against its lines.
#include "fmwork/log/log_format.hpp"
#include "fmwork/log/log_values.hpp"

#include <cmath>
#include <string>

#include <gtest/gtest.h>
#include <limits>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

// The message of the runtime Error parse_line throws for `line`.
std::string parse_error(const std::string& line) {
  try {
    parse_line(line);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::runtime);
    return e.what();
  }
  ADD_FAILURE() << "no error for: " << line;
  return "";
}

std::string format_error(const LogLine& line) {
  try {
    format_line(line);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

template <typename T>
T parse_as(const std::string& line) {
  auto parsed = parse_line(line);
  EXPECT_TRUE(parsed.has_value()) << line;
  EXPECT_TRUE(parsed && std::holds_alternative<T>(*parsed)) << line;
  return std::get<T>(*parsed);
}

// ---- timestamps, durations, banner ----

TEST(LogFormat, TimestampHasNineDigitsAfterThePoint) {
  EXPECT_EQ(format_timestamp(1108911088153850), "1108911.088153850");
  EXPECT_EQ(format_timestamp(1108912235531503), "1108912.235531503");
  EXPECT_EQ(format_timestamp(1000000000), "1.000000000");
  EXPECT_EQ(format_timestamp(1700000000000000005), "1700000000.000000005");
  EXPECT_EQ(format_timestamp(5), "0.000000005");
  EXPECT_EQ(format_timestamp(0), "0.000000000");
  EXPECT_THROW(format_timestamp(-1), Error);
}

TEST(LogFormat, DurationIsExactFromNanoseconds) {
  EXPECT_EQ(format_duration_seconds(3702621), "0.003702621");
  EXPECT_EQ(format_duration_seconds(757057369), "0.757057369");
  EXPECT_EQ(format_duration_seconds(1500000000), "1.500000000");
  EXPECT_EQ(format_duration_seconds(0), "0.000000000");
  EXPECT_EQ(format_duration_seconds(-3702621), "-0.003702621");  // '%.9f' % -0.003702621
  EXPECT_EQ(format_duration_seconds(123456789012), "123.456789012");
}

TEST(LogFormat, Banner) {
  const std::string rule(80, '-');
  EXPECT_EQ(banner("RUN 128 / 1"), "\n" + rule + "\nRUN 128 / 1\n" + rule + "\n\n");
}

// ---- upstream lines: exact text of the example in upstream's README ----

TEST(LogFormat, RepLinesOfTheReadme) {
  EXPECT_EQ(format_line(RepLine{1, 100, 1108911088153850, 1108911845211219}),
            "FMWORK REP 1 100 1108911.088153850 1108911.845211219 0.757057369");
  EXPECT_EQ(format_line(RepLine{2, 100, 1108911845509595, 1108911849978236}),
            "FMWORK REP 2 100 1108911.845509595 1108911.849978236 0.004468641");
  EXPECT_EQ(format_line(RepLine{100, 100, 1108912231828882, 1108912235531503}),
            "FMWORK REP 100 100 1108912.231828882 1108912.235531503 0.003702621");
}

TEST(LogFormat, ResLineOfTheReadme) {
  ResLine res{1108911088153850, 1108912235531503, "ibm-granite/granite-embedding-125m-english", "RobertaModel",
              128, 1, 3.691, 270.9};
  EXPECT_EQ(format_line(res),
            "FMWORK RES 1108911.088153850 1108912.235531503 ibm-granite/granite-embedding-125m-english "
            "RobertaModel 128 1 3.691 270.9");
}

TEST(LogFormat, SetupAndArg) {
  EXPECT_EQ(format_line(SetupLine{1.2345674}), "FMWORK SETUP 1.234567");
  EXPECT_EQ(format_line(SetupLine{12.0}), "FMWORK SETUP 12.000000");
  EXPECT_EQ(format_line(ArgLine{"--batch_sizes 1,2"}), "FMWORK ARG --batch_sizes 1,2");
  EXPECT_EQ(format_line(ArgLine{"--compile"}), "FMWORK ARG --compile");
  EXPECT_EQ(format_line(ArgLine{"--compile:dynamic@ True"}), "FMWORK ARG --compile:dynamic@ True");
}

// ---- parsing upstream lines ----

TEST(LogFormat, ParsesReadmeLines) {
  auto rep = parse_as<RepLine>("FMWORK REP 99 100 1108912.227934311 1108912.231636694 0.003702383\n");
  EXPECT_EQ(rep.rep, 99);
  EXPECT_EQ(rep.reps, 100);
  EXPECT_EQ(rep.t0, 1108912227934311);
  EXPECT_EQ(rep.t1, 1108912231636694);

  auto res = parse_as<ResLine>(
      "FMWORK RES 1108911.088153850 1108912.235531503 ibm-granite/granite-embedding-125m-english RobertaModel "
      "128 1 3.691 270.9\r\n");
  EXPECT_EQ(res.t_first, 1108911088153850);
  EXPECT_EQ(res.t_last, 1108912235531503);
  EXPECT_EQ(res.model_name, "ibm-granite/granite-embedding-125m-english");
  EXPECT_EQ(res.model_class, "RobertaModel");
  EXPECT_EQ(res.input, 128);
  EXPECT_EQ(res.batch, 1);
  EXPECT_EQ(res.latency_ms, 3.691);
  EXPECT_EQ(res.throughput, 270.9);

  EXPECT_EQ(parse_as<SetupLine>("FMWORK SETUP 1.234567").seconds, 1.234567);
  EXPECT_EQ(parse_as<ArgLine>("FMWORK ARG --reps 100").text, "--reps 100");
  EXPECT_EQ(parse_as<ArgLine>("FMWORK ARG --compile:dynamic@ True  \n").text, "--compile:dynamic@ True");
  EXPECT_EQ(parse_as<ArgLine>("FMWORK ARG").text, "");
}

TEST(LogFormat, ParsesWhatPythonsFloatAccepts) {
  auto res = parse_as<ResLine>("FMWORK RES 1.000000000 2.000000000 m c 1 1 3 1e3");
  EXPECT_EQ(res.latency_ms, 3.0);
  EXPECT_EQ(res.throughput, 1000.0);
  EXPECT_EQ(parse_as<SetupLine>("FMWORK SETUP .5").seconds, 0.5);
  EXPECT_EQ(parse_as<SetupLine>("FMWORK SETUP +2.").seconds, 2.0);
}

// nan and inf are no measurement, and JSON has no such numbers (jq refused process's output); a negative
// latency, throughput or setup time is none either. Refused naming the field; other number fields may be
// negative (a drift) but never nan or inf.
TEST(LogFormat, NumbersAreFiniteAndLatenciesNotNegative) {
  EXPECT_EQ(parse_error("FMWORK RES 1.000000000 2.000000000 m c 1 1 nan 1e3"),
            "FMWORK RES latency_ms must be a finite number >= 0, got 'nan'");
  EXPECT_EQ(parse_error("FMWORK RES 1.000000000 2.000000000 m c 1 1 3 inf"),
            "FMWORK RES throughput must be a finite number >= 0, got 'inf'");
  EXPECT_EQ(parse_error("FMWORK RES 1.000000000 2.000000000 m c 1 1 -3.5 2"),
            "FMWORK RES latency_ms must be a finite number >= 0, got '-3.5'");
  EXPECT_EQ(parse_error("FMWORK RES 1.000000000 2.000000000 m c 1 1 1e999 2"),
            "FMWORK RES latency_ms must be a finite number >= 0, got '1e999'");
  EXPECT_EQ(parse_error("FMWORK SETUP -1.0"), "FMWORK SETUP seconds must be a finite number >= 0, got '-1.0'");
  EXPECT_EQ(parse_error("FMWORK STAT input=1 batch=1 mean_ms=NaN"),
            "FMWORK STAT mean_ms must be a finite number >= 0, got 'NaN'");
  EXPECT_EQ(parse_as<ResLine>("FMWORK RES 1.000000000 2.000000000 m c 1 1 0.000 0.0").latency_ms, 0.0);
}

// RES's latency could not be negative, but STAT's p50_ms=-1 was read, shown in the summary as -1.000 and
// written to CSV with exit 0. Every time, rate, count of work and share of the extension lines is >= 0;
// NOTE's drift (a trend, either way) and CHECK's cosine ([-1, 1]) may be negative.
TEST(LogFormat, TimesRatesAndSharesOfTheExtensionLinesAreNotNegative) {
  for (const std::string line :
       {"FMWORK STAT input=1 batch=1 p50_ms=-1", "FMWORK STAT input=1 batch=1 other_ms=-0.5",
        "FMWORK STAT input=1 batch=1 tokens_per_s=-3", "FMWORK STAT input=1 batch=1 gflops=-2",
        "FMWORK STAT input=1 batch=1 of_peak=-0.1", "FMWORK STAT input=1 batch=1 wait_share=-0.2",
        "FMWORK STAT input=1 batch=1 joules_per_rep=-1", "FMWORK META gemm_gflops=-5",
        "FMWORK NOTE input=1 batch=1 verdict=ok cov=-0.1 reason=x",
        "FMWORK CHECK input=1 batch=1 max_abs=-1 result=pass",
        "FMWORK COMPILE backend=inductor shape=1x1 cache=hit build_seconds=-2"}) {
    const std::string message = parse_error(line);
    EXPECT_NE(message.find("must be a finite number >= 0, got '-"), std::string::npos) << line << ": " << message;
  }
  EXPECT_NO_THROW(parse_line("FMWORK NOTE input=1 batch=1 verdict=ok drift=-0.2 reason=x"));
  EXPECT_NO_THROW(parse_line("FMWORK CHECK input=1 batch=1 cosine=-0.5 result=fail"));
  EXPECT_NO_THROW(parse_line("FMWORK STAT input=1 batch=1 p50_ms=0 tokens_per_s=0"));
}

// A sweep stopped by a signal says where in its log's last line; another signal's name (a newer driver's) is
// read, never written.
TEST(LogFormat, TheInterruptLineReadsBack) {
  const std::string text = "FMWORK INTERRUPT input=16 batch=2 signal=SIGINT complete=5 combinations=8";
  EXPECT_EQ(format_line(make_interrupt_line(16, 2, "SIGINT", 5, 8)), text);
  EXPECT_EQ(format_line(parse_as<InterruptLine>(text)), text);
  EXPECT_NO_THROW(parse_line("FMWORK INTERRUPT input=16 batch=2 signal=SIGHUP complete=5 combinations=8"));
  EXPECT_THROW(format_line(make_interrupt_line(16, 2, "SIGHUP", 5, 8)), Error);
  EXPECT_NE(parse_error("FMWORK INTERRUPT input=16 batch=2 signal=SIGINT complete=5").find("combinations"),
            std::string::npos);
}

TEST(LogFormat, UpstreamTimestampUnderOneSecondParses) {
  // upstream's time_format writes ".000000005" for 5 ns.
  EXPECT_EQ(parse_as<RepLine>("FMWORK REP 1 2 .000000005 .000000007 0.000000002").t0, 5);
}

TEST(LogFormat, NotOurLinesGiveNothing) {
  for (const char* line : {"", "hello", "FMWORK", "FMWORK ", "FMWORKRES 1 2", " FMWORK RES 1 2 3",
                           "FMWORK EXP VLLM_SPYRE_USE_CB=1", "FMWORK ENV PATH=/usr/bin", "FMWORK GEN 1 2 3",
                           "FMWORK res 1 2", "fmwork RES 1 2", "RobertaModel(", "FMWORK ARGS --reps 1"}) {
    EXPECT_FALSE(parse_line(line).has_value()) << line;
  }
}

// ---- extension lines ----

TEST(LogFormat, MemMetaFailLines) {
  EXPECT_EQ(format_line(make_mem_line(128, 4, 1048576, 2097152)),
            "FMWORK MEM input=128 batch=4 allocated_peak_bytes=1048576 reserved_peak_bytes=2097152");
  // Defect 3: the weights apart from the combination's own peak, where the platform knows them (cuda).
  MemFacts on_cuda;
  on_cuda.allocated_peak_bytes = 1048576, on_cuda.reserved_peak_bytes = 2097152, on_cuda.weights_bytes = 1048000;
  EXPECT_EQ(format_line(make_mem_line(128, 4, on_cuda)),
            "FMWORK MEM input=128 batch=4 allocated_peak_bytes=1048576 reserved_peak_bytes=2097152 "
            "weights_bytes=1048000 activation_peak_bytes=576");
  MetaLine meta;
  meta.fields.add("driver", "0.1.0").add("torch", "2.13.0").add("threads", int64_t{2}).add("dtype", "float32");
  meta.fields.add("device", to_log_token("NVIDIA H100 80GB HBM3")).add("empty", "");
  EXPECT_EQ(format_line(meta),
            "FMWORK META driver=0.1.0 torch=2.13.0 threads=2 dtype=float32 device=NVIDIA_H100_80GB_HBM3 empty=");
  EXPECT_EQ(format_line(MetaLine{}), "FMWORK META");
}

// META is written from its field table: every key of meta_line_spec(), in the table's order, and it reads back;
// its integers are checked when read, other keys stay free.
TEST(LogFormat, MetaLineFollowsItsTable) {
  MetaFacts f;
  f.driver = "0.1.0";
  f.threads = 2;
  f.interop_threads = 1;
  f.parameters = 11104768;
  f.device = to_log_token("Intel Xeon, 2 threads");
  f.cpu = "AMD_EPYC";
  f.isa = "avx2";
  f.gemm_gflops = 87.26;
  f.gemm_probe = "at::mm_1024_float32_2threads_best_of_7_measured";
  f.warmup = "4";
  f.batching = "unpadded";
  f.lengths = "lognormal:64,512,0.8";
  f.attention = "sdpa";
  f.gelu_epilogue = "false";
  f.runtime = "openvino";
  const MetaLine meta = make_meta_line(f);
  ASSERT_EQ(meta.fields.items.size(), meta_line_spec().fields.size());
  for (size_t i = 0; i < meta.fields.items.size(); ++i)
    EXPECT_EQ(meta.fields.items[i].first, meta_line_spec().fields[i].key) << i;
  EXPECT_EQ(*meta.fields.find("threads"), "2");
  EXPECT_EQ(*meta.fields.find("device"), "Intel_Xeon,_2_threads");
  EXPECT_EQ(*meta.fields.find("gemm_gflops"), "87.3");
  // No probe, no CPU facts: those keys are left out rather than written empty.
  MetaFacts bare = f;
  bare.gemm_gflops.reset();
  bare.cpu.clear();
  const MetaLine without = make_meta_line(bare);
  EXPECT_EQ(without.fields.find("gemm_gflops"), nullptr);
  EXPECT_EQ(without.fields.find("gemm_probe"), nullptr) << "the probe's how goes with its figure";
  EXPECT_EQ(without.fields.find("cpu"), nullptr);
  EXPECT_EQ(*without.fields.find("isa"), "avx2");
  EXPECT_EQ(format_line(parse_as<MetaLine>(format_line(meta))), format_line(meta));
  EXPECT_EQ(parse_error("FMWORK META driver=0.1.0 threads=two"), "FMWORK META threads must be an integer, got 'two'");
  EXPECT_EQ(*parse_as<MetaLine>("FMWORK META engine=transformers python=3.11").fields.find("engine"), "transformers");
  EXPECT_EQ(format_line(make_fail_line(512, 256, "  CUDA out of memory.\nTried to allocate 2.00 GiB\t(x=y)\n")),
            "FMWORK FAIL input=512 batch=256 error=CUDA out of memory. Tried to allocate 2.00 GiB (x=y)");
  EXPECT_EQ(format_line(make_fail_line(1, 1, "")), "FMWORK FAIL input=1 batch=1 error=");
}

TEST(LogFormat, ParsesExtensionLines) {
  auto stat = parse_as<StatLine>(
      "FMWORK STAT input=128 batch=1 reps=20 dropped=4 mean_ms=3.712 stddev_ms=0.021 min_ms=3.690 p50_ms=3.701 "
      "p90_ms=3.730 p99_ms=3.790 max_ms=3.795");
  EXPECT_EQ(stat.fields.items.size(), 11u);
  EXPECT_EQ(*stat.fields.find("p50_ms"), "3.701");
  EXPECT_EQ(stat.fields.get_int("dropped"), 4);
  EXPECT_EQ(stat.fields.get_double("max_ms"), 3.795);
  EXPECT_EQ(stat.fields.find("nope"), nullptr);
  EXPECT_EQ(stat.fields.get_int("nope"), std::nullopt);

  auto fail = parse_as<FailLine>("FMWORK FAIL input=512 batch=256 error=CUDA out of memory. x=y  z error=again");
  ASSERT_EQ(fail.fields.items.size(), 3u);
  EXPECT_EQ(*fail.fields.find("error"), "CUDA out of memory. x=y  z error=again");

  auto meta = parse_as<MetaLine>("FMWORK META driver=0.1.0 git=abc url=http://x/?a=b empty=");
  EXPECT_EQ(*meta.fields.find("url"), "http://x/?a=b");
  EXPECT_EQ(*meta.fields.find("empty"), "");
  EXPECT_TRUE(parse_as<MetaLine>("FMWORK META").fields.items.empty());

  auto mem = parse_as<MemLine>("FMWORK MEM input=1 batch=2 allocated_peak_bytes=0 reserved_peak_bytes=9 note=x");
  EXPECT_EQ(mem.fields.get_int("reserved_peak_bytes"), 9);
}

// ---- round trips: writer -> parser -> writer ----

TEST(LogFormat, RoundTripEveryKind) {
  const ResLine res{1108911088153850, 1108912235531503, "org/model-1", "XLMRobertaModel", 512, 64, 12.345, 5184.3};
  const RepLine rep{7, 20, 5, 1000000000123};
  StatValues stat;
  stat.reps = 10;
  stat.dropped = 2;
  stat.mean_ms = 1.0;
  MetaLine meta;
  meta.fields.add("driver", "0.1.0").add("platform", "cuda:0").add("seed", int64_t{0});
  const std::vector<LogLine> lines = {ArgLine{"--torch.set:backends.cudnn.benchmark@ True"},
                                      SetupLine{3.5},
                                      rep,
                                      res,
                                      meta,
                                      make_stat_line(512, 64, stat),
                                      make_mem_line(512, 64, 123, 456),
                                      make_fail_line(4096, 1, "shape [1, 4096] exceeds max_position_embeddings=514")};
  for (const LogLine& line : lines) {
    const std::string text = format_line(line);
    auto parsed = parse_line(text);
    ASSERT_TRUE(parsed.has_value()) << text;
    EXPECT_EQ(parsed->index(), line.index()) << text;
    EXPECT_EQ(format_line(*parsed), text);
  }
  auto back = std::get<ResLine>(*parse_line(format_line(res)));
  EXPECT_EQ(back.t_first, res.t_first);
  EXPECT_EQ(back.t_last, res.t_last);
  EXPECT_EQ(back.model_name, res.model_name);
  EXPECT_EQ(back.model_class, res.model_class);
  EXPECT_EQ(back.input, res.input);
  EXPECT_EQ(back.batch, res.batch);
  EXPECT_EQ(back.latency_ms, res.latency_ms);
  EXPECT_EQ(back.throughput, res.throughput);
  auto back_rep = std::get<RepLine>(*parse_line(format_line(rep)));
  EXPECT_EQ(back_rep.rep, 7);
  EXPECT_EQ(back_rep.reps, 20);
  EXPECT_EQ(back_rep.t0, 5);
  EXPECT_EQ(back_rep.t1, 1000000000123);
  auto back_meta = std::get<MetaLine>(*parse_line(format_line(meta)));
  EXPECT_EQ(back_meta.fields.items, meta.fields.items);
}

// ---- malformed lines: every kind ----

TEST(LogFormat, MalformedRes) {
  EXPECT_EQ(parse_error("FMWORK RES 1.000000000 2.000000000 m c 128 1 3.691"),
            "FMWORK RES line has 7 values, expected 8: t_first t_last model_name model_class input batch latency_ms "
            "throughput");
  EXPECT_EQ(parse_error("FMWORK RES 1.000000000 2.000000000 m 128 1 3.691 270.9 x x"),
            "FMWORK RES line has 9 values, expected 8: t_first t_last model_name model_class input batch latency_ms "
            "throughput");
  EXPECT_EQ(parse_error("FMWORK RES"),
            "FMWORK RES line has 0 values, expected 8: t_first t_last model_name model_class input batch latency_ms "
            "throughput");
  EXPECT_EQ(parse_error("FMWORK RES 1108911.08815385 2.000000000 m c 128 1 3.691 270.9"),
            "FMWORK RES t_first must be a timestamp <seconds>.<9 digits>, got '1108911.08815385'");
  EXPECT_EQ(parse_error("FMWORK RES 1.000000000 2 m c 128 1 3.691 270.9"),
            "FMWORK RES t_last must be a timestamp <seconds>.<9 digits>, got '2'");
  EXPECT_EQ(parse_error("FMWORK RES 1.000000000 2.000000000 m c 12x 1 3.691 270.9"),
            "FMWORK RES input must be an integer, got '12x'");
  EXPECT_EQ(parse_error("FMWORK RES 1.000000000 2.000000000 m c 128 0 3.691 270.9"),
            "FMWORK RES batch must be at least 1, got '0'");
  EXPECT_EQ(parse_error("FMWORK RES 1.000000000 2.000000000 m c 128 1 fast 270.9"),
            "FMWORK RES latency_ms must be a number, got 'fast'");
  EXPECT_EQ(parse_error("FMWORK RES 1.000000000 2.000000000 m c 128 1 3.691 0x10"),
            "FMWORK RES throughput must be a number, got '0x10'");
  EXPECT_EQ(parse_error("FMWORK RES 1.000000000 2.000000000  c 128 1 3.691 270.9"),
            "FMWORK RES model_name is empty");
  EXPECT_EQ(parse_error("FMWORK RES 1.000000000 2.000000000 m c 99999999999999999999 1 3.691 270.9"),
            "FMWORK RES input must be an integer, got '99999999999999999999'");
}

TEST(LogFormat, MalformedRep) {
  EXPECT_EQ(parse_error("FMWORK REP 1 100 1.000000000 2.000000000"),
            "FMWORK REP line has 4 values, expected 5: rep reps t0 t1 dt");
  EXPECT_EQ(parse_error("FMWORK REP one 100 1.000000000 2.000000000 1.000000000"),
            "FMWORK REP rep must be an integer, got 'one'");
  EXPECT_EQ(parse_error("FMWORK REP 0 100 1.000000000 2.000000000 1.000000000"),
            "FMWORK REP rep must be at least 1, got '0'");
  EXPECT_EQ(parse_error("FMWORK REP 101 100 1.000000000 2.000000000 1.000000000"),
            "FMWORK REP rep 101 is past reps 100");
  EXPECT_EQ(parse_error("FMWORK REP 1 100 1.0 2.000000000 1.000000000"),
            "FMWORK REP t0 must be a timestamp <seconds>.<9 digits>, got '1.0'");
  EXPECT_EQ(parse_error("FMWORK REP 1 100 1.000000000 2.000000000 1.0"),
            "FMWORK REP dt must be seconds with 9 decimals, got '1.0'");
  EXPECT_EQ(parse_error("FMWORK REP 1 100 1.000000000 2.000000000 1e-3"),
            "FMWORK REP dt must be seconds with 9 decimals, got '1e-3'");
  // dt need not equal t1 - t0 (upstream computes it through a float), only be well-formed.
  EXPECT_TRUE(parse_line("FMWORK REP 1 100 1.000000000 2.000000000 0.999999999").has_value());
}

TEST(LogFormat, MalformedSetup) {
  EXPECT_EQ(parse_error("FMWORK SETUP"), "FMWORK SETUP line has 0 values, expected 1: seconds");
  EXPECT_EQ(parse_error("FMWORK SETUP 1.0 s"), "FMWORK SETUP line has 2 values, expected 1: seconds");
  EXPECT_EQ(parse_error("FMWORK SETUP slow"), "FMWORK SETUP seconds must be a number, got 'slow'");
}

TEST(LogFormat, MalformedExtensions) {
  EXPECT_EQ(parse_error("FMWORK STAT batch=1 reps=20"), "FMWORK STAT has no input= field");
  EXPECT_EQ(parse_error("FMWORK STAT input=128 reps=20"), "FMWORK STAT has no batch= field");
  EXPECT_EQ(parse_error("FMWORK STAT input=128 batch=1 mean_ms=abc"),
            "FMWORK STAT mean_ms must be a number, got 'abc'");
  EXPECT_EQ(parse_error("FMWORK STAT input=128 batch=1 dropped=-1"),
            "FMWORK STAT dropped must be at least 0, got '-1'");
  EXPECT_EQ(parse_error("FMWORK STAT input=128 batch=1 reps"), "FMWORK STAT field 'reps' is not key=value");
  EXPECT_EQ(parse_error("FMWORK STAT input=128  batch=1"), "FMWORK STAT has an empty field (two spaces in a row?)");
  EXPECT_EQ(parse_error("FMWORK STAT input=128 batch=1 input=3"), "FMWORK STAT has the key 'input' twice");
  EXPECT_EQ(parse_error("FMWORK MEM input=x batch=1"), "FMWORK MEM input must be an integer, got 'x'");
  EXPECT_EQ(parse_error("FMWORK MEM input=1 batch=1 allocated_peak_bytes=-5"),
            "FMWORK MEM allocated_peak_bytes must be at least 0, got '-5'");
  EXPECT_EQ(parse_error("FMWORK FAIL input=1 batch=1"), "FMWORK FAIL must end with an error= field");
  EXPECT_EQ(parse_error("FMWORK FAIL batch=1 error=boom"), "FMWORK FAIL has no input= field");
  EXPECT_EQ(parse_error("FMWORK META a!=b"), "FMWORK META field 'a!=b' has a bad key (expected [A-Za-z0-9_.-]+)");
  EXPECT_EQ(parse_error("FMWORK META =b"), "FMWORK META field '=b' has a bad key (expected [A-Za-z0-9_.-]+)");
  EXPECT_EQ(parse_error("FMWORK META device=NVIDIA H100"), "FMWORK META field 'H100' is not key=value");
  EXPECT_EQ(parse_error("FMWORK META a=\x01"), "FMWORK META value of 'a' holds a control character");
}

// ---- the writer refuses what would not read back ----

TEST(LogFormat, WriterRefusesWhatCannotBeReadBack) {
  ResLine res{1, 2, "my model", "BertModel", 1, 1, 1.0, 1.0};
  EXPECT_EQ(format_error(res), "FMWORK RES model_name must be non-empty without spaces, got 'my model'");
  res.model_name = "m";
  res.model_class = "";
  EXPECT_EQ(format_error(res), "FMWORK RES model_class must be non-empty without spaces, got ''");
  res.model_class = "c";
  res.t_first = -1;
  EXPECT_THROW(format_line(res), Error);

  MetaLine meta;
  meta.fields.add("device", "NVIDIA H100");
  EXPECT_EQ(format_error(meta), "FMWORK META value of 'device' must hold no spaces or control characters, got "
                                "'NVIDIA H100'");
  meta.fields.items = {{"bad key", "x"}};
  EXPECT_EQ(format_error(meta), "FMWORK META key 'bad key' is not [A-Za-z0-9_.-]+");
  meta.fields.items = {{"a", "1"}, {"a", "2"}};
  EXPECT_EQ(format_error(meta), "FMWORK META has the key 'a' twice");

  StatLine stat;
  stat.fields.add("batch", int64_t{1});
  EXPECT_EQ(format_error(stat), "FMWORK STAT has no input= field");
  stat.fields.add("input", int64_t{1}).add("mean_ms", "fast");
  EXPECT_EQ(format_error(stat), "FMWORK STAT mean_ms must be a number, got 'fast'");

  FailLine fail;
  fail.fields.add("input", int64_t{1}).add("error", "boom").add("batch", int64_t{1});
  EXPECT_EQ(format_error(fail), "FMWORK FAIL error= must be the last field");
  // FAIL's error text is made one line, never refused: a failure must always be reported.
  fail.fields.items = {{"input", "1"}, {"batch", "1"}, {"error", "two\nlines\r\n  "}};
  EXPECT_EQ(format_line(fail), "FMWORK FAIL input=1 batch=1 error=two lines");
  fail.fields.items = {{"input", "1"}, {"batch", "1"}};
  EXPECT_EQ(format_error(fail), "FMWORK FAIL must end with an error= field");

  EXPECT_EQ(format_line(ArgLine{"--a\nb"}), "FMWORK ARG --a\\nb");
}

// ---- the field tables ----

TEST(LogFormat, ResLineWritesTheNumbersItIsGiven) {
  EXPECT_EQ(format_line(make_res_line(0, 1, "m", "c", 64, 8, 12.5, 640.0)),
            "FMWORK RES 0.000000000 0.000000001 m c 64 8 12.500 640.0");
}

TEST(LogFormat, CheckLineOfTheDocs) {
  CheckFacts f;
  f.outputs = {"last_hidden_state", "pooler_output"};
  f.max_abs = 3.8147e-06, f.max_rel = 0.0484125, f.cosine = 1.0;
  f.atol = 1e-4, f.rtol = 1e-4, f.min_cosine = 0.99999;
  f.pass = true;
  EXPECT_EQ(format_line(make_check_line(128, 2, f)),
            "FMWORK CHECK input=128 batch=2 outputs=last_hidden_state,pooler_output max_abs=3.8147e-06 "
            "max_rel=0.0484125 cosine=1 atol=0.0001 rtol=0.0001 min_cosine=0.99999 result=pass");
}

// The check against the CPU eager model says so, and how many rows it compared; a newer reference reads back.
TEST(LogFormat, CheckLineAgainstTheCpuNamesItsReferenceAndRows) {
  CheckFacts f;
  f.reference = "cpu", f.rows = 2;
  f.outputs = {"output_0"};
  f.max_abs = 0, f.max_rel = 0, f.cosine = 1;
  f.atol = 1e-4, f.rtol = 1e-4, f.min_cosine = 0.99999;
  f.pass = true;
  const std::string line = format_line(make_check_line(8, 2, f));
  EXPECT_EQ(line, "FMWORK CHECK input=8 batch=2 reference=cpu rows=2 outputs=output_0 max_abs=0 max_rel=0 cosine=1 "
                  "atol=0.0001 rtol=0.0001 min_cosine=0.99999 result=pass");
  EXPECT_TRUE(parse_line(line).has_value());
  EXPECT_TRUE(parse_line("FMWORK CHECK input=8 batch=2 reference=transformers result=pass").has_value());
  EXPECT_EQ(parse_error("FMWORK CHECK input=8 batch=2 rows=0 result=pass"), "FMWORK CHECK rows must be at least 1, got '0'");
}

// A reference holding NaN (or a model giving it) made the measured figures NaN; the writer refused them
// ("FMWORK CHECK max_abs must be a finite number, got '-nan'" as the combination's error) instead of writing
// the failed check. The non-finite figures are left out now, the result is fail, and the line reads back.
TEST(LogFormat, CheckLineLeavesOutFiguresThatAreNotFinite) {
  CheckFacts f;
  f.outputs = {"last_hidden_state"};
  f.max_abs = std::nan(""), f.max_rel = std::numeric_limits<double>::infinity(), f.cosine = std::nan("");
  f.atol = 1e-4, f.rtol = 1e-4, f.min_cosine = 0.99999;
  f.pass = true;  // a caller's slip: figures that are not finite never pass
  const std::string line = format_line(make_check_line(8, 1, f));
  EXPECT_EQ(line, "FMWORK CHECK input=8 batch=1 outputs=last_hidden_state atol=0.0001 rtol=0.0001 min_cosine=0.99999 "
                  "result=fail");
  EXPECT_TRUE(parse_line(line).has_value());
  f.max_abs = 0.5, f.max_rel = 0.25, f.cosine = -0.5, f.pass = false;
  EXPECT_EQ(format_line(make_check_line(8, 1, f)),
            "FMWORK CHECK input=8 batch=1 outputs=last_hidden_state max_abs=0.5 max_rel=0.25 cosine=-0.5 atol=0.0001 "
            "rtol=0.0001 min_cosine=0.99999 result=fail");
}

TEST(LogFormat, FieldTablesCheckTheLines) {
  // Keys not listed are checked by the line's suffix rule, else not at all.
  EXPECT_EQ(parse_error("FMWORK STAT input=1 batch=1 p95_ms=x"), "FMWORK STAT p95_ms must be a number, got 'x'");
  EXPECT_EQ(parse_error("FMWORK MEM input=1 batch=1 host_bytes=-1"), "FMWORK MEM host_bytes must be at least 0, got '-1'");
  EXPECT_TRUE(parse_line("FMWORK STAT input=1 batch=1 note=x").has_value());
  EXPECT_EQ(parse_error("FMWORK CHECK input=1 batch=1 result=maybe"),
            "FMWORK CHECK result must be pass or fail, got 'maybe'");
  EXPECT_EQ(parse_error("FMWORK CHECK input=1 batch=1 max_abs=x"), "FMWORK CHECK max_abs must be a number, got 'x'");
  EXPECT_EQ(parse_error("FMWORK CHECK input=1 batch=1 cosine=1"), "FMWORK CHECK has no result= field");
}

// Each line's record names the fields of its table one for one, in order, with their kinds: a record out of
// step with its table (a key without a value, a value without a key, two swapped) fails here.
template <class Record>
void expect_record_matches_its_table() {
  const LineSpec& spec = Record::spec();
  const std::vector<KeyedValue> values = Record{}.keyed();
  ASSERT_EQ(values.size(), spec.fields.size()) << spec.word;
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(values[i].key, spec.fields[i].key) << spec.word << " field " << i + 1;
    EXPECT_EQ(values[i].kind, spec.fields[i].kind) << spec.word << " " << spec.fields[i].key;
  }
  EXPECT_NO_THROW(to_fields(Record{})) << spec.word;
}

TEST(LogFormat, EveryLineRecordMatchesItsTable) {
  expect_record_matches_its_table<MetaLineValues>();
  expect_record_matches_its_table<StatLineValues>();
  expect_record_matches_its_table<MemLineValues>();
  expect_record_matches_its_table<FailLineValues>();
  expect_record_matches_its_table<CheckLineValues>();
  expect_record_matches_its_table<CompileLineValues>();
  expect_record_matches_its_table<NoteLineValues>();
  expect_record_matches_its_table<ProfileLineValues>();
  expect_record_matches_its_table<ServeLineValues>();
  expect_record_matches_its_table<CapacityLineValues>();
  expect_record_matches_its_table<InterruptLineValues>();
}

TEST(LogFormat, ARecordIsWrittenByNameInItsTablesOrder) {
  MemLineValues v;
  v.host_rss_peak_of = std::string("reps");  // set first, written last: the table's order, not the writer's
  v.batch = 2, v.input = 1, v.reserved_peak_bytes = 4, v.allocated_peak_bytes = 3;
  const Fields f = to_fields(v);
  ASSERT_EQ(f.items.size(), 5u);
  EXPECT_EQ(f.items[0], (std::pair<std::string, std::string>{"input", "1"}));
  EXPECT_EQ(f.items[2], (std::pair<std::string, std::string>{"allocated_peak_bytes", "3"}));
  EXPECT_EQ(*f.find("reserved_peak_bytes"), "4");
  EXPECT_EQ(f.items[4].first, "host_rss_peak_of");  // the absent *_bytes left out
}

std::string keyed_fields_error(const std::vector<KeyedValue>& values) {
  try {
    keyed_fields(mem_line_spec(), values);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(LogFormat, KeyedValuesOutOfStepWithTheTableAreRefused) {
  std::string reps = "reps";
  std::vector<KeyedValue> values = MemLineValues{}.keyed();
  std::swap(values[2], values[3]);  // two values of one kind under each other's keys
  EXPECT_EQ(keyed_fields_error(values),
            "FMWORK MEM field 3 is 'allocated_peak_bytes' in its table, its record has 'reserved_peak_bytes'");
  values = MemLineValues{}.keyed();
  values[2] = keyed("allocated_peak_bytes", 3.0);
  EXPECT_EQ(keyed_fields_error(values),
            "FMWORK MEM field 3 is 'allocated_peak_bytes' in its table, its record has 'allocated_peak_bytes' of "
            "another kind");
  values.pop_back();
  EXPECT_EQ(keyed_fields_error(values),
            "FMWORK MEM has 8 fields in its table, its record 7");
  values.push_back(keyed("host_rss_peak_of", reps));
  values.push_back(keyed("extra", reps));
  EXPECT_THROW(keyed_fields(mem_line_spec(), values), Error);
}

// A CPU run's MEM: the host's peak alone, and what it covers; a device's peaks beside it where there are some.
TEST(LogFormat, MemLineOfTheHostPeak) {
  MemFacts host;
  host.host_rss_peak_bytes = 371195904;
  EXPECT_EQ(format_line(make_mem_line(128, 1, host)), "FMWORK MEM input=128 batch=1 host_rss_peak_bytes=371195904 host_rss_peak_of=reps");
  host.host_rss_of_reps = false;
  host.allocated_peak_bytes = 5, host.reserved_peak_bytes = 6;
  const std::string text = format_line(make_mem_line(128, 1, host));
  EXPECT_EQ(text, "FMWORK MEM input=128 batch=1 allocated_peak_bytes=5 reserved_peak_bytes=6 host_rss_peak_bytes=371195904 "
                  "host_rss_peak_of=process");
  EXPECT_EQ(format_line(*parse_line(text)), text);
  EXPECT_THROW(parse_line("FMWORK MEM input=1 batch=1 host_rss_peak_of=combination"), Error) << "reps or process only";
}

TEST(LogFormat, Tokens) {
  EXPECT_TRUE(is_log_token("ibm-granite/granite-embedding-125m-english"));
  EXPECT_FALSE(is_log_token(""));
  EXPECT_FALSE(is_log_token("a b"));
  EXPECT_FALSE(is_log_token("a\tb"));
  EXPECT_EQ(to_log_token("  NVIDIA  H100\t80GB "), "NVIDIA_H100_80GB");
  EXPECT_EQ(to_log_token(""), "-");
  EXPECT_EQ(to_log_token(" \n"), "-");
}

// Free text that quotes a model's files (config.json's architectures, a tensor's name) keeps its own line
// breaks and nothing else: no control character, and no "FMWORK" that process, upstream's script or a grep
// could take for a line of the log. FAIL's error, which may quote them too, likewise; read back, a log
// written by anyone has no control character in it either.
TEST(LogFormat, FreeTextCannotWriteARecord) {
  const std::string forged = "FMWORK RES 1.000000000 2.000000000 forged BertModel 8 1 0.001 9999.0";
  EXPECT_EQ(log_text("  config: architectures=Bert\n" + forged + "\rx\x1b[2J\tFMWORK"),
            "  config: architectures=Bert\n\\x46MWORK RES 1.000000000 2.000000000 forged BertModel 8 1 0.001 "
            "9999.0\\rx\\x1b[2J\\t\\x46MWORK");
  EXPECT_EQ(log_text("platform: cpu (Intel Xeon)"), "platform: cpu (Intel Xeon)");
  EXPECT_EQ(log_text(log_text("a\nFMWORK\x7f")), log_text("a\nFMWORK\x7f"));
  for (const std::string line : {"", "\n", "a\n\n"}) EXPECT_EQ(log_text(line), line);
  const std::string fail = format_line(make_fail_line(1, 2, "config.json: bad\n" + forged));
  EXPECT_EQ(fail, "FMWORK FAIL input=1 batch=2 error=config.json: bad \\x46MWORK RES 1.000000000 2.000000000 forged "
                  "BertModel 8 1 0.001 9999.0");
  EXPECT_EQ(format_line(*parse_line(fail)), fail);
  const auto read = std::get<FailLine>(*parse_line("FMWORK FAIL input=1 batch=2 error=a\x1b[2Jb\x0b\x0c" "c"));
  EXPECT_EQ(*read.fields.find("error"), "a [2Jb  c");
}

// One wording for a failed combination on stderr, from the sweep and from --isolate's parent.
TEST(LogFormat, CombinationFailureSentence) {
  EXPECT_EQ(combination_failure(512, 256, "out of memory (std::bad_alloc)"),
            "combination input 512 / batch 256 failed: out of memory (std::bad_alloc); the sweep goes on");
}

}  // namespace
}  // namespace fmwork

namespace fmwork {
namespace {

// tokens_per_s is computed from the unrounded median, not from RES's throughput rounded to 0.1.
TEST(LogFormat, StatLineComputesTokensPerSecondFromTheMedian) {
  StatValues v;
  v.reps = 10;
  v.dropped = 2;
  v.p50_ms = 2500.123456;
  const StatLine line = make_stat_line(512, 1, v);
  ASSERT_NE(line.fields.find("tokens_per_s"), nullptr);
  EXPECT_EQ(*line.fields.find("tokens_per_s"), "204.790") << "512 tokens / 2.500123456 s";
  EXPECT_EQ(format_line(line).substr(format_line(line).rfind(' ')), " tokens_per_s=204.790") << "the last field";
  EXPECT_DOUBLE_EQ(tokens_per_s(128, 4, 2.0), 256000.0);
}

// Mixed lengths: tokens_per_s counts real tokens, then real and computed tokens, padding and computed rate.
TEST(LogFormat, StatLineCarriesTheTokensOfMixedLengths) {
  StatValues v{5, 1, 0, 0, 0, 100.0};
  StatExtras extras;
  extras.tokens = TokenRates{2841.5, 9872.0, 11960.4124, 41553.9071};
  const StatLine line = make_stat_line(512, 32, v, extras);
  EXPECT_EQ(*line.fields.find("tokens_per_s"), "11960.412");
  EXPECT_EQ(*line.fields.find("real_tokens"), "2841.5");
  EXPECT_EQ(*line.fields.find("padded_tokens"), "9872.0");
  EXPECT_EQ(*line.fields.find("padding"), "0.7122");
  EXPECT_EQ(*line.fields.find("padded_tokens_per_s"), "41553.907");
  EXPECT_EQ(format_line(line).substr(format_line(line).rfind(' ')), " padded_tokens_per_s=41553.907");
  const StatLine plain = make_stat_line(512, 32, v);  // batch x input / p50, no token fields
  EXPECT_EQ(plain.fields.find("padding"), nullptr);
  EXPECT_EQ(*plain.fields.find("tokens_per_s"), "163840.000");
}

// Energy: the window's joules over its runs, per 1000 sequences, its mean power and its length.
TEST(LogFormat, StatLineCarriesTheEnergyWindow) {
  StatValues v{5, 1, 0, 0, 0, 4.0};
  StatExtras extras;
  EnergyWindow w;
  w.joules = 612.5, w.seconds = 1.25, w.runs = 250, w.updates = 25;
  extras.energy = w;
  const StatLine line = make_stat_line(512, 64, v, extras);
  EXPECT_EQ(*line.fields.find("joules_per_rep"), "2.45");
  EXPECT_EQ(*line.fields.find("joules_per_1000_seq"), "38.2812");
  EXPECT_EQ(*line.fields.find("watts"), "490.0");
  EXPECT_EQ(*line.fields.find("energy_window_s"), "1.250");
  EXPECT_EQ(make_stat_line(512, 64, v).fields.find("watts"), nullptr) << "no counter, no energy fields";
}

}  // namespace
}  // namespace fmwork
