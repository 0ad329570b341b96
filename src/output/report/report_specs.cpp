#include "output/report/report_specs.h"

#include <algorithm>
#include <set>

namespace fabricsim::output::report {
namespace {

constexpr int kWidth = 640;
constexpr const char* kNumberFormat = ",.4~r";
constexpr int kHeight = 260;

Json base_spec(Json rows, int width = kWidth, int height = kHeight) {
  Json spec;
  spec["width"] = width;
  spec["height"] = height;
  spec["padding"] = 5;
  spec["autosize"] = "pad";
  spec["data"] = Json::array({Json{{"name", "table"}, {"values", std::move(rows)}}});
  return spec;
}

size_t distinct(const Json& rows, const char* field) {
  std::set<std::string> seen;
  for (const Json& r : rows) seen.insert(r.value(field, std::string()));
  return seen.size();
}

Json linear_or_log(const char* name, bool log, const char* field, const char* range, bool zero) {
  Json s = {{"name", name},
            {"type", log ? "log" : "linear"},
            {"domain", {{"data", "table"}, {"field", field}}},
            {"range", range},
            {"nice", true}};
  if (!log) s["zero"] = zero;
  return s;
}

Json axis(const char* orient, const char* scale, const std::string& title) {
  // ",.4~r": four significant digits, never an exponent ("40,000", not "4e+4"), on every axis.
  return {{"orient", orient}, {"scale", scale},       {"title", title},
          {"grid", true},     {"labelOverlap", true}, {"format", kNumberFormat}};
}

Json color_scale(const Json& domain) {
  return {{"name", "color"}, {"type", "ordinal"}, {"domain", domain}, {"range", "category"}};
}

// A colour scale from a palette (its names, in its order), or the category scheme over `domain`.
Json palette_scale(const Palette& palette, const Json& domain) {
  if (palette.empty()) return color_scale(domain);
  Json names = Json::array(), colours = Json::array();
  for (const auto& [name, colour] : palette) {
    names.push_back(name);
    colours.push_back(colour);
  }
  return {{"name", "color"}, {"type", "ordinal"}, {"domain", names}, {"range", colours}};
}

Json value_signal(const char* field) {
  return {{"signal", std::string("format(datum.") + field + ", ',.4~r')"}};
}

}  // namespace

Json line_spec(Json rows, const Axes& axes, bool step) {
  const bool legend = distinct(rows, "series") > 1;
  Json spec = base_spec(std::move(rows));
  spec["scales"] = Json::array({linear_or_log("x", axes.x_log, "x", "width", false),
                                linear_or_log("y", axes.y_log, "y", "height", true),
                                color_scale({{"data", "table"}, {"field", "series"}})});
  spec["axes"] = Json::array({axis("bottom", "x", axes.x_title), axis("left", "y", axes.y_title)});
  if (legend) spec["legends"] = Json::array({Json{{"stroke", "color"}, {"title", "series"}}});
  Json line = {{"type", "line"},
               {"from", {{"data", "series"}}},
               {"encode",
                {{"enter",
                  {{"x", {{"scale", "x"}, {"field", "x"}}},
                   {"y", {{"scale", "y"}, {"field", "y"}}},
                   {"stroke", {{"scale", "color"}, {"field", "series"}}},
                   {"strokeWidth", {{"value", 1.5}}},
                   {"interpolate", {{"value", step ? "step-after" : "linear"}}}}}}}};
  spec["marks"] = Json::array(
      {Json{{"type", "group"},
            {"from", {{"facet", {{"name", "series"}, {"data", "table"}, {"groupby", "series"}}}}},
            {"marks", Json::array({line})}}});
  return spec;
}

Json grouped_bar_spec(Json rows, const std::vector<std::string>& categories,
                      const std::vector<std::string>& groups, const Axes& axes) {
  Json spec = base_spec(std::move(rows));
  spec["scales"] =
      Json::array({Json{{"name", "x"},
                        {"type", "band"},
                        {"domain", categories},
                        {"range", "width"},
                        {"padding", 0.2}},
                   linear_or_log("y", false, "value", "height", true), color_scale(groups)});
  Json x_axis = axis("bottom", "x", axes.x_title);
  x_axis.erase("format");
  x_axis["grid"] = false;
  // Band labels are never dropped (labelOverlap would hide some); long ones are slanted so that
  // neighbours do not overlap, and cut at 200 px.
  x_axis["labelOverlap"] = false;
  size_t longest = 0;
  for (const std::string& c : categories) longest = std::max(longest, c.size());
  if (longest * 7 > static_cast<size_t>(kWidth) / std::max<size_t>(1, categories.size())) {
    x_axis["labelAngle"] = -30;
    x_axis["labelAlign"] = "right";
    x_axis["labelBaseline"] = "top";
    x_axis["labelLimit"] = 200;
  }
  spec["axes"] = Json::array({x_axis, axis("left", "y", axes.y_title)});
  if (groups.size() > 1) spec["legends"] = Json::array({Json{{"fill", "color"}}});
  Json bar = {{"type", "rect"},
              {"from", {{"data", "facet"}}},
              {"encode",
               {{"enter",
                 {{"x", {{"scale", "pos"}, {"field", "group"}}},
                  {"width", {{"scale", "pos"}, {"band", 1}}},
                  {"y", {{"scale", "y"}, {"field", "value"}}},
                  {"y2", {{"scale", "y"}, {"value", 0}}},
                  {"fill", {{"scale", "color"}, {"field", "group"}}},
                  {"tooltip", value_signal("value")}}}}}};
  spec["marks"] = Json::array({Json{
      {"type", "group"},
      {"from", {{"facet", {{"data", "table"}, {"name", "facet"}, {"groupby", "category"}}}}},
      {"encode", {{"enter", {{"x", {{"scale", "x"}, {"field", "category"}}}}}}},
      {"signals", Json::array({Json{{"name", "width"}, {"update", "bandwidth('x')"}}})},
      {"scales", Json::array({Json{
                     {"name", "pos"}, {"type", "band"}, {"range", "width"}, {"domain", groups}}})},
      {"marks", Json::array({bar})}}});
  return spec;
}

Json metric_bars_spec(Json rows, const std::vector<std::string>& metrics,
                      const std::vector<std::string>& groups) {
  constexpr int kCellWidth = 200;
  constexpr int kCellHeight = 120;
  Json spec;
  spec["padding"] = 5;
  spec["autosize"] = "pad";
  spec["layout"] = {{"columns", 3}, {"padding", 30}, {"bounds", "full"}};
  spec["data"] = Json::array({Json{{"name", "table"}, {"values", std::move(rows)}},
                              Json{{"name", "metrics"}, {"values", [&] {
                                                           Json m = Json::array();
                                                           for (const std::string& name : metrics) {
                                                             m.push_back({{"metric", name}});
                                                           }
                                                           return m;
                                                         }()}}});
  spec["scales"] = Json::array({color_scale(groups)});
  if (groups.size() > 1) spec["legends"] = Json::array({Json{{"fill", "color"}}});
  Json bar = {{"type", "rect"},
              {"from", {{"data", "cell"}}},
              {"encode",
               {{"enter",
                 {{"x", {{"scale", "x"}, {"field", "group"}}},
                  {"width", {{"scale", "x"}, {"band", 1}}},
                  {"y", {{"scale", "y"}, {"field", "value"}}},
                  {"y2", {{"scale", "y"}, {"value", 0}}},
                  {"fill", {{"scale", "color"}, {"field", "group"}}},
                  {"tooltip", value_signal("value")}}}}}};
  Json y_axis = {{"orient", "left"}, {"scale", "y"}, {"format", ",.4~r"}, {"tickCount", 4}};
  // The metric's name above its cell (a text mark: `parent` is the cell's metric row).
  Json name = {{"type", "text"},
               {"encode",
                {{"enter",
                  {{"x", {{"value", 0}}},
                   {"y", {{"value", -8}}},
                   {"text", {{"signal", "parent.metric"}}},
                   {"fontWeight", {{"value", "bold"}}},
                   {"fontSize", {{"value", 11}}}}}}}};
  spec["marks"] = Json::array({Json{
      {"type", "group"},
      {"from", {{"data", "metrics"}}},
      {"encode",
       {{"enter", {{"width", {{"value", kCellWidth}}}, {"height", {{"value", kCellHeight}}}}}}},
      {"data",
       Json::array(
           {Json{{"name", "cell"},
                 {"source", "table"},
                 {"transform", Json::array({Json{{"type", "filter"},
                                                 {"expr", "datum.metric === parent.metric"}}})}}})},
      {"scales", Json::array({Json{{"name", "x"},
                                   {"type", "band"},
                                   {"domain", groups},
                                   {"range", Json::array({0, kCellWidth})},
                                   {"padding", 0.2}},
                              Json{{"name", "y"},
                                   {"type", "linear"},
                                   {"domain", {{"data", "cell"}, {"field", "value"}}},
                                   {"range", Json::array({kCellHeight, 0})},
                                   {"nice", true},
                                   {"zero", true}}})},
      {"axes", Json::array({Json{{"orient", "bottom"}, {"scale", "x"}}, y_axis})},
      {"marks", Json::array({name, bar})}}});
  return spec;
}

Json heatmap_spec(Json rows, const std::vector<std::string>& row_order,
                  const std::vector<std::string>& col_order, const Axes& axes,
                  const std::string& value_title) {
  // Cells of at least 6 px so a 64 x 64 map stays readable; axis labels only when they fit.
  const int cell =
      std::max(6, std::min(40, 640 / static_cast<int>(std::max<size_t>(1, col_order.size()))));
  Json spec = base_spec(std::move(rows), cell * static_cast<int>(col_order.size()),
                        cell * static_cast<int>(row_order.size()));
  spec["scales"] = Json::array(
      {Json{{"name", "x"}, {"type", "band"}, {"domain", col_order}, {"range", "width"}},
       Json{{"name", "y"}, {"type", "band"}, {"domain", row_order}, {"range", "height"}},
       Json{{"name", "color"},
            {"type", "linear"},
            {"domain", {{"data", "table"}, {"field", "value"}}},
            {"range", {{"scheme", "viridis"}}},
            {"zero", true}}});
  Json x_axis = {{"orient", "bottom"},   {"scale", "x"},          {"title", axes.x_title},
                 {"labelAngle", -90},    {"labelAlign", "right"}, {"labelBaseline", "middle"},
                 {"labelOverlap", true}, {"labelFontSize", 9}};
  Json y_axis = {{"orient", "left"},
                 {"scale", "y"},
                 {"title", axes.y_title},
                 {"labelOverlap", true},
                 {"labelFontSize", 9}};
  spec["axes"] = Json::array({x_axis, y_axis});
  spec["legends"] =
      Json::array({Json{{"fill", "color"}, {"title", value_title}, {"format", kNumberFormat}}});
  spec["marks"] = Json::array(
      {Json{{"type", "rect"},
            {"from", {{"data", "table"}}},
            {"encode",
             {{"enter",
               {{"x", {{"scale", "x"}, {"field", "col"}}},
                {"width", {{"scale", "x"}, {"band", 1}}},
                {"y", {{"scale", "y"}, {"field", "row"}}},
                {"height", {{"scale", "y"}, {"band", 1}}},
                {"fill", {{"scale", "color"}, {"field", "value"}}},
                {"tooltip",
                 {{"signal",
                   "datum.row + ' -> ' + datum.col + ': ' + format(datum.value, ',.4~r')"}}}}}}}}});
  return spec;
}

Json gantt_spec(Json rows, const std::vector<std::string>& lanes, const Axes& axes,
                const Palette& palette) {
  // Lanes of 22 px at most 900 px in all: a few lanes stay legible, 64 still fit.
  const int height = std::max(60, std::min(22 * static_cast<int>(lanes.size()), 900));
  Json spec = base_spec(std::move(rows), 900, height);
  spec["scales"] =
      Json::array({Json{{"name", "x"},
                        {"type", "linear"},
                        {"domain", {{"data", "table"}, {"fields", Json::array({"start", "end"})}}},
                        {"range", "width"},
                        {"zero", false}},
                   Json{{"name", "y"},
                        {"type", "band"},
                        {"domain", lanes},
                        {"range", "height"},
                        {"padding", 0.15}},
                   palette_scale(palette, {{"data", "table"}, {"field", "kind"}})});
  Json y_axis = {{"orient", "left"},
                 {"scale", "y"},
                 {"title", axes.y_title},
                 {"labelOverlap", true},
                 {"labelFontSize", 9}};
  spec["axes"] = Json::array({axis("bottom", "x", axes.x_title), y_axis});
  spec["legends"] = Json::array({Json{{"fill", "color"}, {"title", "category"}}});
  spec["marks"] = Json::array(
      {Json{{"type", "rect"},
            {"from", {{"data", "table"}}},
            {"encode",
             {{"enter",
               {{"x", {{"scale", "x"}, {"field", "start"}}},
                {"x2", {{"scale", "x"}, {"field", "end"}}},
                {"y", {{"scale", "y"}, {"field", "lane"}}},
                {"height", {{"scale", "y"}, {"band", 1}}},
                {"fill", {{"scale", "color"}, {"field", "kind"}}},
                {"tooltip",
                 {{"signal",
                   "datum.label + ' (' + format(datum.end - datum.start, ',.4~r') + ')'"}}}}}}}}});
  return spec;
}

Json errorbar_spec(Json rows, const std::vector<std::string>& xs, const Axes& axes) {
  const bool legend = distinct(rows, "series") > 1;
  Json spec = base_spec(std::move(rows), 420, 220);
  spec["scales"] = Json::array(
      {Json{{"name", "x"}, {"type", "point"}, {"domain", xs}, {"range", "width"}, {"padding", 0.5}},
       Json{{"name", "y"},
            {"type", "linear"},
            {"domain", {{"data", "table"}, {"fields", Json::array({"mean", "lo", "hi"})}}},
            {"range", "height"},
            {"nice", true},
            {"zero", false}},
       color_scale({{"data", "table"}, {"field", "series"}}),
       // Series side by side at one x, a few pixels apart, so their error bars do not overlap.
       Json{{"name", "dodge"},
            {"type", "point"},
            {"domain", {{"data", "table"}, {"field", "series"}}},
            {"range", Json::array({-8, 8})},
            {"padding", 0.5}}});
  Json x_axis = axis("bottom", "x", axes.x_title);
  x_axis.erase("format");
  spec["axes"] = Json::array({x_axis, axis("left", "y", axes.y_title)});
  if (legend)
    spec["legends"] = Json::array({Json{{"stroke", "color"}, {"title", "other parameters"}}});
  const Json x_dodged = {
      {"scale", "x"}, {"field", "x"}, {"offset", {{"scale", "dodge"}, {"field", "series"}}}};
  Json enter_xy = {{"x", x_dodged},
                   {"y", {{"scale", "y"}, {"field", "mean"}}},
                   {"stroke", {{"scale", "color"}, {"field", "series"}}}};
  // Points joined by a line only along a numeric axis: a line between categorical values
  // (fabric names, algorithms) would suggest an order and values in between that do not exist.
  Json line = {{"type", "line"}, {"from", {{"data", "series"}}}, {"encode", {{"enter", enter_xy}}}};
  Json points = enter_xy;
  points["fill"] = {{"scale", "color"}, {"field", "series"}};
  points["tooltip"] = {{"signal",
                        "format(datum.mean, ',.4~r') + (datum.hi != null ? ' ± ' + format(datum.hi "
                        "- datum.mean, ',.4~r') : '')"}};
  Json symbol = {
      {"type", "symbol"}, {"from", {{"data", "series"}}}, {"encode", {{"enter", points}}}};
  Json bars = {{"type", "rule"},
               {"from", {{"data", "bars"}}},
               {"encode",
                {{"enter",
                  {{"x", x_dodged},
                   {"y", {{"scale", "y"}, {"field", "lo"}}},
                   {"y2", {{"scale", "y"}, {"field", "hi"}}},
                   {"stroke", {{"scale", "color"}, {"field", "series"}}}}}}}};
  spec["marks"] = Json::array({Json{
      {"type", "group"},
      {"from", {{"facet", {{"name", "series"}, {"data", "table"}, {"groupby", "series"}}}}},
      {"data",
       Json::array({Json{
           {"name", "bars"},
           {"source", "series"},
           {"transform", Json::array({Json{{"type", "filter"},
                                           {"expr", "datum.lo != null && datum.hi != null"}}})}}})},
      {"marks", axes.x_categorical ? Json::array({symbol, bars})
                                    : Json::array({line, symbol, bars})}}});
  return spec;
}

Json stacked_bar_spec(Json rows, const std::vector<std::string>& categories,
                      const std::vector<std::string>& parts, const Axes& axes,
                      const std::string& unit, const Palette& palette) {
  constexpr int kBarHeight = 34;
  Json spec = base_spec(std::move(rows), kWidth,
                        kBarHeight * static_cast<int>(std::max<size_t>(1, categories.size())));
  spec["data"][0]["transform"] = Json::array(
      {Json{{"type", "stack"},
            {"groupby", Json::array({"category"})},
            {"sort", {{"field", "order"}}},
            {"field", "value"}}});
  spec["data"].push_back({{"name", "totals"},
                          {"source", "table"},
                          {"transform", Json::array({Json{{"type", "aggregate"},
                                                          {"groupby", Json::array({"category"})},
                                                          {"fields", Json::array({"value"})},
                                                          {"ops", Json::array({"sum"})},
                                                          {"as", Json::array({"total"})}}})}});
  spec["scales"] = Json::array(
      {Json{{"name", "x"},
            {"type", "linear"},
            {"domain", {{"data", "totals"}, {"field", "total"}}},
            {"range", "width"},
            {"nice", true},
            {"zero", true}},
       Json{{"name", "y"},
            {"type", "band"},
            {"domain", categories},
            {"range", "height"},
            {"padding", 0.25}},
       palette_scale(palette, parts)});
  Json y_axis = {{"orient", "left"}, {"scale", "y"}, {"labelLimit", 220}};
  spec["axes"] = Json::array({axis("bottom", "x", axes.x_title), y_axis});
  // The legend below the chart: on the right it would sit on the totals written past each bar.
  spec["legends"] = Json::array({Json{{"fill", "color"},
                                      {"title", "part"},
                                      {"orient", "bottom"},
                                      {"direction", "horizontal"},
                                      {"columns", 4}}});
  Json bars = {{"type", "rect"},
               {"from", {{"data", "table"}}},
               {"encode",
                {{"enter",
                  {{"x", {{"scale", "x"}, {"field", "y0"}}},
                   {"x2", {{"scale", "x"}, {"field", "y1"}}},
                   {"y", {{"scale", "y"}, {"field", "category"}}},
                   {"height", {{"scale", "y"}, {"band", 1}}},
                   {"fill", {{"scale", "color"}, {"field", "part"}}},
                   {"tooltip",
                    {{"signal", std::string("datum.part + ': ' + format(datum.value, '") +
                                    kNumberFormat + "') + ' " + unit + "'"}}}}}}}};
  // The total at the end of each bar, one label per bar: labels never sit on the segments.
  Json totals = {{"type", "text"},
                 {"from", {{"data", "totals"}}},
                 {"encode",
                  {{"enter",
                    {{"x", {{"scale", "x"}, {"field", "total"}, {"offset", 4}}},
                     {"y", {{"scale", "y"}, {"field", "category"}, {"band", 0.5}}},
                     {"baseline", {{"value", "middle"}}},
                     {"fontSize", {{"value", 11}}},
                     {"text", {{"signal", std::string("format(datum.total, '") + kNumberFormat +
                                              "') + ' " + unit + "'"}}}}}}}};
  spec["marks"] = Json::array({bars, totals});
  return spec;
}

}  // namespace fabricsim::output::report
