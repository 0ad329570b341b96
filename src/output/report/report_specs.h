// Vega specifications of the report's chart kinds (output/report/report.h), data inlined as "values".
// Each returns a complete Vega 5 spec rendered by the page's driver with the SVG renderer. Field
// names inside the data are fixed per kind (documented on each function), so callers build the
// rows and the spec stays one place.
#pragma once

#include <string>
#include <vector>

#include "output/report/report_data.h"

namespace fabricsim::output::report {

struct Axes {
  std::string x_title;
  std::string y_title;
  bool x_log = false;  // log scale (callers check every x > 0)
  bool y_log = false;
  bool x_categorical = false;  // errorbar_spec: x values are names, not numbers (no line)
};

// Fixed colours by name (name, CSS colour): charts that show the same things (a step's parts)
// colour them alike. Empty = Vega's category scheme in order of appearance.
using Palette = std::vector<std::pair<std::string, std::string>>;

// Lines, one per series: rows {x, y, series}. `step`: step-after interpolation (CDFs, sampled
// time series). A legend when more than one series.
Json line_spec(Json rows, const Axes& axes, bool step);

// Vertical bars grouped by category: rows {category, group, value}; `categories` and `groups`
// give the order. One colour per group, a legend when more than one group.
Json grouped_bar_spec(Json rows, const std::vector<std::string>& categories,
                      const std::vector<std::string>& groups, const Axes& axes);

// Horizontal stacked bars, one per category: rows {category, part, order, value}; parts stack
// in `order`, coloured in the order `parts` lists them; each bar's total is written at its end
// with `unit` ("12.34 ms"). `categories` gives the top-to-bottom order.
Json stacked_bar_spec(Json rows, const std::vector<std::string>& categories,
                      const std::vector<std::string>& parts, const Axes& axes,
                      const std::string& unit, const Palette& palette = {});

// Small multiples, one bar chart per metric with its own y scale: rows {metric, group, value};
// `metrics` and `groups` give the order.
Json metric_bars_spec(Json rows, const std::vector<std::string>& metrics,
                      const std::vector<std::string>& groups);

// A heatmap: rows {row, col, value}; `rows_order`, `cols_order` give the order of each axis.
Json heatmap_spec(Json rows, const std::vector<std::string>& row_order,
                  const std::vector<std::string>& col_order, const Axes& axes,
                  const std::string& value_title);

// A Gantt chart: rows {lane, start, end, kind, label}, one bar per row from start to end on its
// lane, coloured by kind; `lanes` gives the lane order.
Json gantt_spec(Json rows, const std::vector<std::string>& lanes, const Axes& axes,
                const Palette& palette = {});

// Means with error bars against a categorical x: rows {x, mean, lo, hi, series}; `xs` gives the
// x order. Points joined by a line per series; rule from lo to hi where both are present.
Json errorbar_spec(Json rows, const std::vector<std::string>& xs, const Axes& axes);

}  // namespace fabricsim::output::report
