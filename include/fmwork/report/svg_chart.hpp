// A small line chart as inline SVG, for the HTML report (process --format html): x on a log2 scale (batch
// sizes), y linear with round ticks, one polyline per series with markers and error bars, red crosses on
// the x axis for what failed, an optional horizontal reference line, a legend below. Text in it (titles,
// names, tooltips) is escaped here (html_escape): callers pass it as the log wrote it. No script, no
// external resource. No LibTorch here.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fmwork {

// One measured point: y at x, with an error bar from y - err_low to y + err_high when either is above 0.
// The tooltip is the point's <title> (a browser shows it on hover). `flag`: "" when the point's numbers can
// be trusted; else the verdict that says why not ("noisy", "contended", or for a ratio "A contended"): the
// point is drawn ringed, and the legend says what a ring means.
struct ChartPoint {
  double x = 0, y = 0;
  double err_low = 0, err_high = 0;
  std::string tooltip;
  std::string flag;
};

// A series: its points are joined in the order of x. `style` picks the color, marker shape and dash
// (series_color(style) is its color): give one run the same style in every chart so it reads the same.
struct ChartSeries {
  std::string name;
  size_t style = 0;
  std::vector<ChartPoint> points;
};

// Something that has no value at x (a failed combination): a red cross on the x axis, its tooltip the
// reason. Marks at the same x are stacked upwards.
struct ChartMark {
  double x = 0;
  std::string tooltip;
};

struct LineChart {
  std::string title, x_label, y_label;
  std::vector<ChartSeries> series;
  std::vector<ChartMark> marks;
  std::optional<double> reference_y;  // a dashed horizontal line (B/A = 1), labelled reference_label
  std::string reference_label;
  bool y_from_zero = true;            // the y axis includes 0 (latency, throughput); false: fitted to the data
  bool y_log = false;                 // y on a log scale (ratios): only y > 0 is drawn; y_from_zero is ignored
  int width = 660, plot_height = 300; // pixels of the SVG's viewBox; the legend adds rows below
  bool legend = true;                 // false: no legend (a page that draws one legend for several charts)
  bool flag_entry = false;            // the legend's "ringed" entry even when no point here is flagged (a
                                      // legend drawn once for several charts)
};

// The chart as one <svg class="chart"> element (width 100% up to `width` pixels, scaled by the viewBox).
// Inside, for tests and styling: <g class="series"> per series with a <path class="line"> (when it has two
// points or more) and one element of class "point" per drawn point (its <title> the tooltip), one
// <path class="error-bar"> per drawn error bar, <circle class="flagged"> around each drawn point with a
// flag (a dark ring), <g class="fail-mark"> per mark (<title> first), <g class="legend"> holding a <g
// class="legend-entry"> per series (and one for the failures when there are marks, one of class
// "legend-entry flagged-entry" for the rings when a point is flagged or flag_entry is set), <line
// class="reference"> for the reference line. Axis ticks are <g class="x-tick"> / <g
// class="y-tick">: x at the powers of two over the data (every k-th when there would be more than 12), y at
// 1, 2, 2.5 or 5 times a power of ten (log y: at 1, 2 and 5 times powers of ten, or the powers alone).
// Values a log2 or linear axis cannot place are left out, never drawn as NaN: a point or mark with x <= 0
// or a non-finite x, a point with a non-finite y or |y| > 1e300; an error bar whose ends are not finite
// or beyond 1e300 (the point is drawn without it); with y_log, y below 1e-300, and an error bar's lower end
// at or below it is drawn to the bottom of the plot, without a cap. A chart with no point to draw says so
// in a <text class="empty">: "no data", or with marks "nothing measured: only failures (the crosses)".
std::string render_svg_chart(const LineChart& chart);

// The legend of `chart` alone (its series' names, lines and markers, the failures' entry when it has marks,
// the rings' entry as render_svg_chart's) as one <svg class="legend-only">, as wide as the chart: one legend above charts that share series.
std::string render_svg_legend(const LineChart& chart);

// Whether the chart's y values span more than 10x: the largest over the smallest of its drawable y values
// and error-bar ends that are above 0 (what a log axis can place). A report draws such a chart on a log y
// axis, so that one slow series does not flatten the others.
bool spans_decade(const LineChart& chart);

// The y axis a report asks for (process --chart-scale): auto is log where spans_decade(), else linear.
enum class ChartScale { automatic, linear, log };

// "auto", "linear", "log" as ChartScale; nullopt for any other word.
std::optional<ChartScale> chart_scale_named(const std::string& name);

// The stroke color (#rrggbb) of a series style: 9 colors, none of them the red of the fail marks.
std::string series_color(size_t style);

// The red of the fail marks (#rrggbb).
std::string fail_color();

}  // namespace fmwork
