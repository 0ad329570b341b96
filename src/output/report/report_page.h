// The HTML of report.html (output/report/report.h): a header, then blocks in order, each a Vega chart,
// an HTML table or a one-line note saying which input file was absent. One file: the Vega
// library (output/report/vega_bundle.h), the chart specs (JSON in a <script type="application/json">)
// and the driver are inlined; nothing is fetched.
//
// The driver renders each chart with Vega's SVG renderer and then sets data-marks on its
// container to the number of data marks drawn (SVG path/line elements of role-mark groups, not
// axes or legends); errors (window.onerror, rejected promises, console.error, console.warn, a
// spec Vega refuses) go into <pre id="fs-errors">; when every chart is done <body> gets
// data-fs-status="ok" (or "errors"). tests/browser reads those through Chromium's --dump-dom.
#pragma once

#include <string>
#include <vector>

#include "output/report/report_data.h"

namespace fabricsim::output::report {

// A Vega spec held as JSON text: a page's specs together can hold 10^4 data points, and text
// is a tenth of the memory of the JSON tree (assigned from a Json, dumped at once).
struct SpecText {
  std::string text;  // "" = no chart
  SpecText& operator=(const Json& spec) {
    text = spec.dump();
    return *this;
  }
  bool empty() const { return text.empty(); }
};

struct Block {
  std::string title;
  std::string caption;  // what it shows and from which file (plain text)
  SpecText spec;        // a Vega spec, or none
  std::string html;     // a table (already escaped) when there is no spec
  std::string note;     // when set: the input was absent or unusable; no chart
};

// A block that is only a note: "<title>: not drawn: <why>".
Block note_block(const std::string& title, const std::string& why);

struct Page {
  std::string title;     // the scenario or directory
  std::string subtitle;  // one line: what kind of directory, fabric, time
  std::vector<std::pair<std::string, std::vector<Block>>> sections;  // heading, blocks
};

// The whole document. REQUIRES: vega_available().
std::string page_html(const Page& page);

// An HTML table from a header and rows (escaped here); every column but the first is
// right-aligned (numbers).
std::string html_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows);

}  // namespace fabricsim::output::report
