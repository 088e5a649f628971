// The line chart of the HTML report as SVG text. Every coordinate is computed from values that passed the
// checks of drawable() / error_bar(), so that the text never holds "nan" or "inf".
#include "fmwork/report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "fmwork/base/error.hpp"
#include "fmwork/report/html_text.hpp"

namespace fmwork {

namespace {

constexpr double kLimit = 1e300;  // beyond this a value is not drawn: the axis arithmetic stays finite
constexpr int kLeft = 78, kRight = 20, kTop = 36, kBottom = 48;  // margins around the plot area
constexpr int kInset = 14;                                        // keeps markers off the frame
constexpr int kLegendRow = 18;
constexpr const char* kFont = "font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\"";

const char* const kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                               "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr size_t kColorCount = sizeof kColors / sizeof kColors[0];

std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

bool placeable(double y, bool y_log) {
  return std::isfinite(y) && std::fabs(y) <= kLimit && (!y_log || y >= 1 / kLimit);
}

bool drawable(const ChartPoint& p, bool y_log) {
  return std::isfinite(p.x) && p.x > 0 && placeable(p.y, y_log);
}

// A drawable point's error bar. On a log axis a lower end at or below 0 has no place: the bar is open
// below, drawn down to the bottom of the plot without a cap.
struct Bar {
  double lo = 0, hi = 0;
  bool open_below = false;
};

std::optional<Bar> error_bar(const ChartPoint& p, bool y_log) {
  if (!(p.err_low > 0 || p.err_high > 0)) return std::nullopt;
  Bar bar{p.y - std::max(p.err_low, 0.0), p.y + std::max(p.err_high, 0.0), false};
  if (!placeable(bar.hi, y_log)) return std::nullopt;
  if (y_log && std::isfinite(bar.lo) && bar.lo < 1 / kLimit) bar.open_below = true, bar.lo = p.y;
  if (!placeable(bar.lo, y_log)) return std::nullopt;
  return bar;
}

struct Extent {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double v) { lo = std::min(lo, v), hi = std::max(hi, v); }
  bool empty() const { return lo > hi; }
};

// A map from [lo, hi] to pixels [from, to] (to < from for y, which grows downwards): linear, or linear in
// log10 of the value (lo and hi are then log10 of the ends).
struct Scale {
  double lo = 0, hi = 1, from = 0, to = 1;
  bool log = false;
  double operator()(double v) const { return from + ((log ? std::log10(v) : v) - lo) / (hi - lo) * (to - from); }
};

struct Ticks {
  std::vector<double> at;            // positions in the scale's units (log2 of x for the x axis)
  std::vector<std::string> labels;
};

// x ticks: integer powers of two over [lo2, hi2], every step-th when there would be more than 12.
Ticks x_ticks(int lo2, int hi2) {
  const int step = std::max(1, (hi2 - lo2 + 11) / 12);
  Ticks t;
  for (int k = lo2 - ((lo2 % step) + step) % step; k <= hi2; k += step) {
    if (k < lo2) continue;
    char buf[32];
    if (k >= 0 && k < 63) std::snprintf(buf, sizeof buf, "%lld", 1LL << k);
    else if (k < 0 && k >= -6) std::snprintf(buf, sizeof buf, "%g", std::ldexp(1.0, k));
    else std::snprintf(buf, sizeof buf, "2^%d", k);
    t.at.push_back(k);
    t.labels.emplace_back(buf);
  }
  return t;
}

// A y range widened to multiples of a round step (1, 2, 2.5 or 5 times a power of ten), about 5 steps.
Ticks y_ticks(double& lo, double& hi) {
  if (!(hi - lo >= 1e-290)) {  // one value (or values too close for a step): a range around it
    const double v = lo, pad = std::fabs(v) >= 1e-280 ? std::fabs(v) * 0.1 : 1;
    lo = v == 0 ? 0 : v - pad;  // 0 alone, as a chart from zero has it: [0, 1]
    hi = v + pad;
  }
  const double raw = (hi - lo) / 5, mag = std::pow(10.0, std::floor(std::log10(raw))), f = raw / mag;
  const double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
  const double step = nice * mag;
  lo = std::floor(lo / step) * step;
  hi = std::ceil(hi / step) * step;
  const bool exponent = std::max(std::fabs(lo), std::fabs(hi)) >= 1e7 || step < 1e-5;
  const int decimals = std::clamp(static_cast<int>(-std::floor(std::log10(step) + 1e-9)) + (nice == 2.5 ? 1 : 0), 0, 10);
  Ticks t;
  for (int i = 0; i <= 24; ++i) {  // bounded: with a step near the precision of lo, lo + i * step may stall
    const double v = lo + i * step;
    if (v > hi + step * 1e-6) break;
    char buf[64];
    if (exponent) std::snprintf(buf, sizeof buf, "%.3g", v);
    else std::snprintf(buf, sizeof buf, "%.*f", decimals, std::fabs(v) < step * 1e-9 ? 0.0 : v);
    t.at.push_back(v);
    t.labels.emplace_back(buf);
  }
  return t;
}

// y ticks on a log axis: 1, 2 and 5 times powers of ten (only the powers when that would make more than 12
// ticks, every k-th beyond 12 of those); lo and hi (> 0) widened to the nearest such values around them.
Ticks y_log_ticks(double& lo, double& hi) {
  if (!(hi > lo)) lo /= 2, hi *= 2;
  const int e_lo = static_cast<int>(std::floor(std::log10(lo))), e_hi = static_cast<int>(std::ceil(std::log10(hi)));
  std::vector<double> all, decades;
  for (int e = e_lo; e <= e_hi; ++e)
    for (double m : {1.0, 2.0, 5.0}) all.push_back(m * std::pow(10.0, e));
  double new_lo = all.front(), new_hi = all.back();  // all ascends: the last one <= lo, the first one >= hi
  for (double v : all)
    if (v <= lo * (1 + 1e-12)) new_lo = v;
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    if (*it >= hi * (1 - 1e-12)) new_hi = *it;
  lo = new_lo, hi = new_hi;
  std::vector<double> kept;
  for (double v : all)
    if (v >= lo * (1 - 1e-12) && v <= hi * (1 + 1e-12)) kept.push_back(v);
  if (kept.size() > 12) {
    const int step = std::max(1, (e_hi - e_lo + 12) / 12);
    kept.clear();
    for (int e = e_lo; e <= e_hi; e += step)
      if (const double v = std::pow(10.0, e); v >= lo * (1 - 1e-12) && v <= hi * (1 + 1e-12)) kept.push_back(v);
  }
  Ticks t;
  for (double v : kept) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    t.at.push_back(v);
    t.labels.emplace_back(buf);
  }
  return t;
}

// The marker of a style at (x, y), of class `cls`: circle, square, triangle, diamond, inverted triangle.
std::string marker(const char* cls, size_t style, double x, double y, const std::string& color, const std::string& inner) {
  const std::string attrs = std::string("class=\"") + cls + "\" fill=\"" + color + "\" stroke=\"#fff\" stroke-width=\"1\"";
  std::string d;
  switch (style % 5) {
    case 0: return "<circle " + attrs + " cx=\"" + px(x) + "\" cy=\"" + px(y) + "\" r=\"4.5\">" + inner + "</circle>";
    case 1: d = "M" + px(x - 4) + " " + px(y - 4) + "h8v8h-8z"; break;
    case 2: d = "M" + px(x) + " " + px(y - 5.5) + "l5 9h-10z"; break;
    case 3: d = "M" + px(x) + " " + px(y - 5.5) + "l5.5 5.5-5.5 5.5-5.5-5.5z"; break;
    default: d = "M" + px(x) + " " + px(y + 5.5) + "l5-9h-10z"; break;
  }
  return "<path " + attrs + " d=\"" + d + "\">" + inner + "</path>";
}

const char* dash(size_t style) {
  switch ((style / kColorCount) % 3) {
    case 0: return "";
    case 1: return " stroke-dasharray=\"7 4\"";
    default: return " stroke-dasharray=\"2 3\"";
  }
}

std::string text(double x, double y, const std::string& anchor, const std::string& body, const std::string& extra = "") {
  return "<text x=\"" + px(x) + "\" y=\"" + px(y) + "\" text-anchor=\"" + anchor + "\"" + extra + ">" + body + "</text>";
}

// A legend entry's label: at most 90 bytes (whole UTF-8 characters), the full name in its <title>.
std::string legend_label(const std::string& name) { return excerpt(name, 90); }

struct LegendEntry {
  double x, y;
  std::string label, title;
  std::optional<size_t> style;  // nullopt: the failures' or the rings' entry
  bool flagged = false;         // the rings' entry
};

// The ring around a flagged point: dark, so that it is none of the series' colors nor the fail red; it lets
// the pointer through to the point's own <title>.
std::string ring(double x, double y, const std::string& cls) {
  return "<circle class=\"" + cls + "\" cx=\"" + px(x) + "\" cy=\"" + px(y) +
         "\" r=\"8.5\" fill=\"none\" stroke=\"#222\" stroke-width=\"1.8\" pointer-events=\"none\"/>";
}

bool any_flagged(const LineChart& chart) {
  for (const ChartSeries& s : chart.series)
    for (const ChartPoint& p : s.points)
      if (!p.flag.empty()) return true;
  return chart.flag_entry;
}

// Entries flow left to right, wrapping at the chart's width; widths estimated at 6.6 px a character.
std::vector<LegendEntry> legend_layout(const LineChart& chart, double top) {
  std::vector<LegendEntry> entries;
  for (const ChartSeries& s : chart.series) entries.push_back({0, 0, legend_label(s.name), s.name, s.style});
  if (!chart.marks.empty()) entries.push_back({0, 0, "failed (hover the cross for the error)", "", std::nullopt});
  if (any_flagged(chart))
    entries.push_back({0, 0, "ringed: verdict not ok (noisy, unstable, contended, too few reps; hover the point)",
                       "", std::nullopt, true});
  double x = kLeft, y = top;
  for (LegendEntry& e : entries) {
    const double w = 34 + 6.6 * static_cast<double>(e.label.size()) + 18;
    if (x > kLeft && x + w > chart.width - kRight) x = kLeft, y += kLegendRow;
    e.x = x, e.y = y;
    x += w;
  }
  return entries;
}

std::string cross(double x, double y, double r, double width) {
  return "<path d=\"M" + px(x - r) + " " + px(y - r) + "l" + px(2 * r) + " " + px(2 * r) + "m0 " + px(-2 * r) + "l" +
         px(-2 * r) + " " + px(2 * r) + "\" stroke=\"" + fail_color() + "\" stroke-width=\"" + px(width) + "\"/>";
}

std::string render_legend(const std::vector<LegendEntry>& entries) {
  std::string out = "<g class=\"legend\" font-size=\"12\">";
  for (const LegendEntry& e : entries) {
    out += e.flagged ? "<g class=\"legend-entry flagged-entry\">" : "<g class=\"legend-entry\">";
    if (!e.title.empty()) out += "<title>" + html_escape(e.title) + "</title>";
    if (e.style) {
      const std::string color = series_color(*e.style);
      out += "<path d=\"M" + px(e.x) + " " + px(e.y) + "h26\" stroke=\"" + color + "\" stroke-width=\"2\"" +
             dash(*e.style) + "/>" + marker("legend-marker", *e.style, e.x + 13, e.y, color, "");
    } else if (e.flagged) {
      out += "<circle cx=\"" + px(e.x + 13) + "\" cy=\"" + px(e.y) + "\" r=\"4.5\" fill=\"#999\" stroke=\"#fff\"/>" +
             ring(e.x + 13, e.y, "legend-ring");
    } else {
      out += cross(e.x + 13, e.y, 5, 2.5);
    }
    out += text(e.x + 32, e.y + 4, "start", html_escape(e.label)) + "</g>";
  }
  return out + "</g>";
}

// What the axes span: x in log2 units, y in the data's.
struct Frame {
  Scale x, y;
  Ticks xt, yt;
  bool empty = true;
  bool y_log = false;
};

bool has_reference(const LineChart& chart) {
  return chart.reference_y && placeable(*chart.reference_y, chart.y_log);
}

Frame frame_of(const LineChart& chart) {
  Extent xs, ys;
  for (const ChartSeries& s : chart.series) {
    for (const ChartPoint& p : s.points) {
      if (!drawable(p, chart.y_log)) continue;
      xs.add(std::log2(p.x));
      ys.add(p.y);
      if (auto bar = error_bar(p, chart.y_log)) ys.add(bar->lo), ys.add(bar->hi);
    }
  }
  Frame f;
  f.empty = xs.empty();
  f.y_log = chart.y_log;
  for (const ChartMark& m : chart.marks)
    if (std::isfinite(m.x) && m.x > 0) xs.add(std::log2(m.x));
  if (xs.empty()) xs.add(0);
  if (has_reference(chart)) ys.add(*chart.reference_y);
  if (chart.y_log && ys.empty()) ys.add(1);
  if (!chart.y_log && (chart.y_from_zero || ys.empty())) ys.add(0);
  int lo2 = static_cast<int>(std::floor(xs.lo)), hi2 = static_cast<int>(std::ceil(xs.hi));
  if (lo2 == hi2) {  // one batch size: a power of two either side (batch 1: 1 and 2)
    if (lo2 != 0) lo2 -= 1;
    hi2 += 1;
  }
  f.xt = x_ticks(lo2, hi2);
  f.x = Scale{static_cast<double>(lo2), static_cast<double>(hi2), kLeft + kInset, static_cast<double>(chart.width - kRight - kInset)};
  f.yt = chart.y_log ? y_log_ticks(ys.lo, ys.hi) : y_ticks(ys.lo, ys.hi);
  f.y = Scale{ys.lo, ys.hi, static_cast<double>(kTop + chart.plot_height), static_cast<double>(kTop), chart.y_log};
  if (chart.y_log) f.y.lo = std::log10(ys.lo), f.y.hi = std::log10(ys.hi);
  return f;
}

std::string render_axes(const LineChart& chart, const Frame& f) {
  const double bottom = kTop + chart.plot_height, right = chart.width - kRight;
  std::string out = "<rect x=\"" + px(kLeft) + "\" y=\"" + px(kTop) + "\" width=\"" + px(right - kLeft) + "\" height=\"" +
                    px(chart.plot_height) + "\" fill=\"#fff\" stroke=\"#999\"/>";
  for (size_t i = 0; i < f.yt.at.size(); ++i) {
    const double y = f.y(f.yt.at[i]);
    out += "<g class=\"y-tick\"><path d=\"M" + px(kLeft) + " " + px(y) + "H" + px(right) + "\" stroke=\"#e4e4e4\"/>" +
           text(kLeft - 6, y + 4, "end", f.yt.labels[i]) + "</g>";
  }
  for (size_t i = 0; i < f.xt.at.size(); ++i) {
    const double x = f.x(f.xt.at[i]);
    out += "<g class=\"x-tick\"><path d=\"M" + px(x) + " " + px(kTop) + "V" + px(bottom + 5) + "\" stroke=\"#eee\"/>" +
           text(x, bottom + 18, "middle", f.xt.labels[i]) + "</g>";
  }
  out += text((kLeft + right) / 2, bottom + 38, "middle", html_escape(chart.x_label), " class=\"x-label\"");
  out += text(16, kTop + chart.plot_height / 2.0, "middle", html_escape(chart.y_label),
              " class=\"y-label\" transform=\"rotate(-90 16 " + px(kTop + chart.plot_height / 2.0) + ")\"");
  return out;
}

std::string render_series(const ChartSeries& s, const Frame& f) {
  const std::string color = series_color(s.style);
  std::vector<const ChartPoint*> points;
  for (const ChartPoint& p : s.points)
    if (drawable(p, f.y_log)) points.push_back(&p);
  std::stable_sort(points.begin(), points.end(), [](const ChartPoint* a, const ChartPoint* b) { return a->x < b->x; });
  std::string out = "<g class=\"series\" data-series=\"" + html_escape(s.name) + "\">";
  for (const ChartPoint* p : points) {
    const auto bar = error_bar(*p, f.y_log);
    if (!bar) continue;
    const double x = f.x(std::log2(p->x)), y1 = bar->open_below ? f.y.from : f.y(bar->lo), y2 = f.y(bar->hi);
    const std::string low_cap = bar->open_below ? "" : "M" + px(x - 4) + " " + px(y1) + "h8";
    out += "<path class=\"error-bar\" d=\"M" + px(x) + " " + px(y1) + "V" + px(y2) + low_cap + "M" + px(x - 4) + " " +
           px(y2) + "h8\" stroke=\"" + color + "\" stroke-width=\"1.3\"/>";
  }
  if (points.size() > 1) {
    std::string d;
    for (const ChartPoint* p : points) d += (d.empty() ? "M" : "L") + px(f.x(std::log2(p->x))) + " " + px(f.y(p->y));
    out += "<path class=\"line\" d=\"" + d + "\" fill=\"none\" stroke=\"" + color + "\" stroke-width=\"2\"" + dash(s.style) + "/>";
  }
  for (const ChartPoint* p : points) {
    out += marker("point", s.style, f.x(std::log2(p->x)), f.y(p->y), color, "<title>" + html_escape(p->tooltip) + "</title>");
    if (!p->flag.empty()) out += ring(f.x(std::log2(p->x)), f.y(p->y), "flagged");
  }
  return out + "</g>";
}

std::string render_marks(const LineChart& chart, const Frame& f) {
  std::string out;
  std::map<double, int> stacked;  // marks already drawn at an x
  for (const ChartMark& m : chart.marks) {
    if (!std::isfinite(m.x) || m.x <= 0) continue;
    const double x = f.x(std::log2(m.x)), y = kTop + chart.plot_height - 9 - 12 * stacked[m.x]++;
    out += "<g class=\"fail-mark\"><title>" + html_escape(m.tooltip) + "</title><rect x=\"" + px(x - 7) + "\" y=\"" +
           px(y - 7) + "\" width=\"14\" height=\"14\" fill=\"#fff\" fill-opacity=\"0.01\"/>" + cross(x, y, 5, 2.5) + "</g>";
  }
  return out;
}

std::string render_reference(const LineChart& chart, const Frame& f) {
  if (!has_reference(chart)) return "";
  const double y = f.y(*chart.reference_y), right = chart.width - kRight;
  return "<line class=\"reference\" x1=\"" + px(kLeft) + "\" y1=\"" + px(y) + "\" x2=\"" + px(right) + "\" y2=\"" + px(y) +
         "\" stroke=\"#444\" stroke-dasharray=\"5 4\"/>" +
         text(right - 4, y - 5, "end", html_escape(chart.reference_label), " fill=\"#444\"");
}

}  // namespace

std::string render_svg_legend(const LineChart& chart) {
  const std::vector<LegendEntry> legend = legend_layout(chart, 12);
  const double height = legend.empty() ? 4 : legend.back().y + kLegendRow - 4;
  return "<svg class=\"legend-only\" viewBox=\"0 0 " + std::to_string(chart.width) + " " + px(height) + "\" width=\"" +
         std::to_string(chart.width) + "\" " + kFont + " font-size=\"12\">" + render_legend(legend) + "</svg>";
}

bool spans_decade(const LineChart& chart) {
  Extent ys;
  for (const ChartSeries& s : chart.series)
    for (const ChartPoint& p : s.points) {
      if (!drawable(p, true)) continue;
      ys.add(p.y);
      if (const auto bar = error_bar(p, true)) ys.add(bar->hi), ys.add(bar->open_below ? p.y : bar->lo);
    }
  return !ys.empty() && ys.hi > 10 * ys.lo;
}

std::optional<ChartScale> chart_scale_named(const std::string& name) {
  if (name == "auto") return ChartScale::automatic;
  if (name == "linear") return ChartScale::linear;
  if (name == "log") return ChartScale::log;
  return std::nullopt;
}

std::string series_color(size_t style) { return kColors[style % kColorCount]; }

std::string fail_color() { return "#d62728"; }

std::string render_svg_chart(const LineChart& chart) {
  const Frame f = frame_of(chart);
  const double legend_top = kTop + chart.plot_height + kBottom + 12;
  const std::vector<LegendEntry> legend = chart.legend ? legend_layout(chart, legend_top) : std::vector<LegendEntry>{};
  const double height = (legend.empty() ? kTop + chart.plot_height + kBottom : legend.back().y + kLegendRow) + 4;
  std::string out = "<svg class=\"chart\" viewBox=\"0 0 " + std::to_string(chart.width) + " " + px(height) + "\" width=\"" +
                    std::to_string(chart.width) + "\" role=\"img\" " + kFont + " font-size=\"12\">";
  out += "<title>" + html_escape(chart.title) + "</title>";
  out += text(chart.width / 2.0, 22, "middle", html_escape(chart.title), " class=\"chart-title\" font-size=\"14\" font-weight=\"bold\"");
  out += render_axes(chart, f) + render_reference(chart, f);
  if (f.empty) {
    const char* what = chart.marks.empty() ? "no data" : "nothing measured: only failures (the crosses)";
    out += text(chart.width / 2.0, kTop + chart.plot_height / 2.0, "middle", what, " class=\"empty\" fill=\"#888\"");
  }
  for (const ChartSeries& s : chart.series) out += render_series(s, f);
  out += render_marks(chart, f);
  if (!legend.empty()) out += render_legend(legend);  // a chart of a group with one legend above has none
  return out + "</svg>";
}

}  // namespace fmwork
