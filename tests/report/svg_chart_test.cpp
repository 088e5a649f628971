// Tests of svg_chart: the elements drawn (series, points, error bars, fail marks, legend), the axes'
// ticks, values that cannot be placed, and escaping.
#include "fmwork/report/svg_chart.hpp"

#include <cmath>
#include <limits>
#include <regex>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "support/html_fixtures.hpp"

namespace fmwork {
namespace {

using html_fixtures::count;

// The labels of the ticks of one axis ("x-tick" or "y-tick"), in order.
std::vector<std::string> tick_labels(const std::string& svg, const std::string& axis) {
  std::vector<std::string> labels;
  const std::regex tick("<g class=\"" + axis + "\">.*?<text[^>]*>([^<]*)</text></g>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), tick), end; it != end; ++it) labels.push_back((*it)[1]);
  return labels;
}

LineChart two_series() {
  LineChart chart;
  chart.title = "Latency vs batch";
  chart.x_label = "batch size";
  chart.y_label = "latency (ms)";
  chart.series = {{"run a", 0, {{1, 2.0, 0.5, 0.5, "a1"}, {2, 3.0, 0, 0, "a2"}, {4, 5.0, 0.2, 0.2, "a4"}}},
                  {"run b", 1, {{1, 4.0, 1, 1, "b1"}, {4, 9.3, 0.1, 0.1, "b4"}}}};
  return chart;
}

TEST(SvgChart, SeriesPointsErrorBarsAndLegend) {
  const std::string svg = render_svg_chart(two_series());
  EXPECT_EQ(svg.rfind("<svg class=\"chart\"", 0), 0u) << svg;
  EXPECT_EQ(svg.substr(svg.size() - 6), "</svg>");
  EXPECT_EQ(count(svg, "<svg"), 1u);
  EXPECT_EQ(count(svg, "<g class=\"series\""), 2u);
  EXPECT_EQ(count(svg, "class=\"point\""), 5u);
  EXPECT_EQ(count(svg, "class=\"line\""), 2u);
  EXPECT_EQ(count(svg, "class=\"error-bar\""), 4u);  // a2 has none
  EXPECT_EQ(count(svg, "<g class=\"legend-entry\">"), 2u);
  EXPECT_EQ(count(svg, "class=\"fail-mark\""), 0u);
  EXPECT_NE(svg.find("<title>a4</title>"), std::string::npos);
  EXPECT_NE(svg.find(">latency (ms)</text>"), std::string::npos);
  EXPECT_NE(svg.find(series_color(0)), std::string::npos);
  EXPECT_NE(svg.find(series_color(1)), std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
}

TEST(SvgChart, Log2XTicksAndRoundYTicksFromZero) {
  const std::string svg = render_svg_chart(two_series());
  EXPECT_EQ(tick_labels(svg, "x-tick"), (std::vector<std::string>{"1", "2", "4"}));
  // Up to 9.4 (9.3 and its error bar): 0 to 10 in steps of 2.
  EXPECT_EQ(tick_labels(svg, "y-tick"), (std::vector<std::string>{"0", "2", "4", "6", "8", "10"}));
  LineChart wide;
  wide.series = {{"s", 0, {{1, 0.25, 0, 0, ""}, {1LL << 40, 0.5, 0, 0, ""}}}};
  const std::vector<std::string> x = tick_labels(render_svg_chart(wide), "x-tick");
  EXPECT_LE(x.size(), 13u);
  EXPECT_EQ(x.front(), "1");
  EXPECT_EQ(x.back(), "1099511627776");
  EXPECT_EQ(tick_labels(render_svg_chart(wide), "y-tick"),
            (std::vector<std::string>{"0.0", "0.1", "0.2", "0.3", "0.4", "0.5"}));
}

TEST(SvgChart, OneBatchSizeIsCentredBetweenItsNeighbours) {
  LineChart chart;
  chart.series = {{"s", 0, {{4, 3.0, 0, 0, ""}}}};
  const std::string svg = render_svg_chart(chart);
  EXPECT_EQ(tick_labels(svg, "x-tick"), (std::vector<std::string>{"2", "4", "8"}));
  EXPECT_EQ(count(svg, "class=\"line\""), 0u);  // one point: no line
  EXPECT_EQ(count(svg, "class=\"point\""), 1u);
  chart.series[0].points[0].x = 1;
  EXPECT_EQ(tick_labels(render_svg_chart(chart), "x-tick"), (std::vector<std::string>{"1", "2"}));
}

TEST(SvgChart, FailMarksOnTheXAxisStackedWithTheirTooltips) {
  LineChart chart = two_series();
  chart.marks = {{8, "run a: out of memory"}, {8, "run b: out of memory"}, {1, "x"}};
  const std::string svg = render_svg_chart(chart);
  EXPECT_EQ(count(svg, "<g class=\"fail-mark\"><title>"), 3u);
  EXPECT_NE(svg.find("<title>run b: out of memory</title>"), std::string::npos);
  EXPECT_EQ(count(svg, "<g class=\"legend-entry\">"), 3u);  // and the failures' entry
  EXPECT_EQ(count(svg, "stroke=\"" + fail_color() + "\""), 4u);
  EXPECT_EQ(tick_labels(svg, "x-tick").back(), "8");  // the axis reaches the failed batch size
  // Stacked: the two crosses at 8 are at different heights.
  const std::regex mark("<g class=\"fail-mark\"><title>[^<]*</title><rect x=\"([0-9.]+)\" y=\"([0-9.]+)\"");
  std::set<std::string> positions;
  for (std::sregex_iterator it(svg.begin(), svg.end(), mark), end; it != end; ++it) positions.insert((*it)[1].str() + "," + (*it)[2].str());
  EXPECT_EQ(positions.size(), 3u);
}

TEST(SvgChart, ValuesThatCannotBePlacedAreLeftOut) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  LineChart chart;
  chart.series = {{"s", 0, {{0, 1, 0, 0, ""}, {-4, 1, 0, 0, ""}, {nan, 1, 0, 0, ""}, {2, nan, 0, 0, ""}, {4, inf, 0, 0, ""},
                            {8, 1e301, 0, 0, ""}, {16, 1e300, inf, inf, ""}, {32, -1e299, 1e299, 1e299, ""}, {64, 0, 0, 0, ""}}}};
  chart.marks = {{nan, "x"}, {-1, "y"}, {inf, "z"}};
  const std::string svg = render_svg_chart(chart);
  EXPECT_EQ(count(svg, "class=\"point\""), 3u);      // 16, 32 and 64
  EXPECT_EQ(count(svg, "class=\"error-bar\""), 1u);  // 32's; 16's ends are not finite
  EXPECT_EQ(count(svg, "class=\"fail-mark\""), 0u);
  EXPECT_FALSE(std::regex_search(svg, std::regex("nan|inf", std::regex::icase))) << svg;
}

TEST(SvgChart, NothingToDrawSaysSo) {
  LineChart chart;
  chart.title = "empty";
  std::string svg = render_svg_chart(chart);
  EXPECT_NE(svg.find("class=\"empty\" fill=\"#888\">no data</text>"), std::string::npos) << svg;
  EXPECT_EQ(count(svg, "<g class=\"legend-entry\">"), 0u);
  chart.marks = {{4, "failed"}};  // only failures: the crosses, and a word on them
  svg = render_svg_chart(chart);
  EXPECT_EQ(svg.find(">no data</text>"), std::string::npos);
  EXPECT_NE(svg.find(">nothing measured: only failures (the crosses)</text>"), std::string::npos);
  EXPECT_EQ(count(svg, "class=\"fail-mark\""), 1u);
  EXPECT_EQ(tick_labels(svg, "y-tick").front(), "0.0");
}

TEST(SvgChart, LogYWithAReferenceLine) {
  LineChart chart;
  chart.y_log = true;
  chart.reference_y = 1;
  chart.reference_label = "B = A";
  chart.series = {{"s", 0, {{1, 0.8, 0.9, 0.1, ""}, {2, 1.1, 0.05, 0.05, ""}, {4, 0, 0, 0, ""}, {8, -2, 0, 0, ""}}}};
  const std::string svg = render_svg_chart(chart);
  EXPECT_EQ(tick_labels(svg, "y-tick"), (std::vector<std::string>{"0.5", "1", "2"}));
  EXPECT_EQ(count(svg, "class=\"point\""), 2u);  // 0 and -2 have no place on a log axis
  EXPECT_EQ(count(svg, "<line class=\"reference\""), 1u);
  EXPECT_NE(svg.find(">B = A</text>"), std::string::npos);
  // 0.8 - 0.9 < 0: that bar runs to the bottom without its lower cap; 1.1's has both caps.
  const std::regex bar("class=\"error-bar\" d=\"([^\"]*)\"");
  std::vector<size_t> caps;
  for (std::sregex_iterator it(svg.begin(), svg.end(), bar), end; it != end; ++it) caps.push_back(count((*it)[1], "h8"));
  EXPECT_EQ(caps, (std::vector<size_t>{1, 2}));
  chart.series[0].points = {{1, 1e-3, 0, 0, ""}, {2, 40, 0, 0, ""}};
  const std::vector<std::string> wide = tick_labels(render_svg_chart(chart), "y-tick");
  EXPECT_EQ(wide, (std::vector<std::string>{"0.001", "0.01", "0.1", "1", "10"}));  // 15 of 1-2-5: the powers alone
}

TEST(SvgChart, TextIsEscaped) {
  LineChart chart = two_series();
  chart.title = "<script>alert(1)</script>";
  chart.series[0].name = "a\" onmouseover=\"alert(1)";
  chart.series[0].points[0].tooltip = "</title><script>x</script>";
  chart.marks = {{2, "<img src=x onerror=alert(1)>"}};
  const std::string svg = render_svg_chart(chart);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("<img"), std::string::npos);
  EXPECT_EQ(svg.find("\" onmouseover"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(svg.find("data-series=\"a&quot; onmouseover=&quot;alert(1)\""), std::string::npos);
  EXPECT_NE(svg.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
}

// A page that shares one legend among charts: the charts without theirs, the legend on its own.
TEST(SvgChart, LegendApartFromTheCharts) {
  LineChart chart = two_series();
  chart.legend = false;
  chart.marks = {{2, "failed"}};
  const std::string svg = render_svg_chart(chart);
  EXPECT_EQ(count(svg, "<g class=\"legend-entry\">"), 0u);
  EXPECT_EQ(count(svg, "class=\"point\""), 5u);
  // As tall as the plot and its margins: no rows for a legend below.
  EXPECT_NE(svg.find("viewBox=\"0 0 660 388.0\""), std::string::npos) << svg.substr(0, 200);
  const std::string legend = render_svg_legend(chart);
  EXPECT_EQ(legend.rfind("<svg class=\"legend-only\"", 0), 0u);
  EXPECT_EQ(count(legend, "<g class=\"legend-entry\">"), 3u);  // two series and the failures
  EXPECT_EQ(count(legend, "class=\"point\""), 0u);
  EXPECT_NE(legend.find("<title>run b</title>"), std::string::npos);
  EXPECT_NE(legend.find("failed (hover the cross for the error)"), std::string::npos);
}

// A point whose verdict is not ok is ringed, and the legend says what a ring means; without a flag, no ring
// and no such entry. A legend drawn for several charts can ask for the entry (flag_entry).
TEST(SvgChart, FlaggedPointsAreRingedAndTheLegendSaysWhy) {
  LineChart chart = two_series();
  EXPECT_EQ(count(render_svg_chart(chart), "class=\"flagged\""), 0u);
  EXPECT_EQ(count(render_svg_chart(chart), "flagged-entry"), 0u);
  chart.series[0].points[2].flag = "noisy";
  chart.series[1].points[0].flag = "contended";
  const std::string svg = render_svg_chart(chart);
  EXPECT_EQ(count(svg, "<circle class=\"flagged\""), 2u);
  EXPECT_EQ(count(svg, "class=\"point\""), 5u) << "the ring is beside the point, not instead of it";
  EXPECT_EQ(count(svg, "<g class=\"legend-entry flagged-entry\">"), 1u);
  EXPECT_NE(svg.find(">ringed: verdict not ok (noisy, unstable, contended, too few reps; hover the point)</text>"),
            std::string::npos);
  // The ring lets the pointer through to the point's tooltip.
  EXPECT_EQ(count(svg, "r=\"8.5\" fill=\"none\" stroke=\"#222\" stroke-width=\"1.8\" pointer-events=\"none\""), 3u);
  LineChart legend_only = two_series();
  legend_only.flag_entry = true;
  EXPECT_EQ(count(render_svg_legend(legend_only), "<g class=\"legend-entry flagged-entry\">"), 1u);
  EXPECT_EQ(count(render_svg_legend(two_series()), "flagged-entry"), 0u);
}

// More than 10x between the smallest and the largest value or bar end above 0 calls for a log axis.
TEST(SvgChart, SpansDecade) {
  LineChart chart = two_series();  // 1.5 to 9.4
  EXPECT_FALSE(spans_decade(chart));
  chart.series[1].points[1].err_high = 6.0;  // 15.3 over 1.5
  EXPECT_TRUE(spans_decade(chart));
  chart = two_series();
  chart.series[0].points[0].y = 0;  // a log axis cannot place 0: not counted
  chart.series[0].points.push_back({8, std::nan(""), 0, 0, ""});
  EXPECT_FALSE(spans_decade(chart));
  EXPECT_FALSE(spans_decade(LineChart{}));
}

TEST(SvgChart, ColorsAreDistinctAndNotTheFailRed) {
  std::set<std::string> colors;
  for (size_t i = 0; i < 9; ++i) colors.insert(series_color(i));
  EXPECT_EQ(colors.size(), 9u);
  EXPECT_EQ(colors.count(fail_color()), 0u);
  EXPECT_EQ(series_color(9), series_color(0));  // then dashed: the style, not the color, tells them apart
}

}  // namespace
}  // namespace fmwork
