#include "output/report/report_page.h"

#include "output/report/vega_bundle.h"

namespace fabricsim::output::report {
namespace {

// Error capture first, before any other script runs.
constexpr const char* kHooks = R"js(
(function () {
  var errors = [];
  function record(kind, args) {
    var text = kind + ': ' + Array.prototype.map.call(args, function (a) {
      return a && a.stack ? a.stack : String(a);
    }).join(' ');
    errors.push(text);
    var pre = document.getElementById('fs-errors');
    if (pre) { pre.textContent = errors.join('\n'); pre.hidden = false; }
  }
  window.fsErrors = errors;
  window.fsRecord = record;
  window.onerror = function (message, source, line) { record('error', [message + ' (line ' + line + ')']); };
  window.addEventListener('unhandledrejection', function (e) { record('rejection', [e.reason]); });
  var error = console.error, warn = console.warn;
  console.error = function () { record('console.error', arguments); error.apply(console, arguments); };
  console.warn = function () { record('console.warn', arguments); warn.apply(console, arguments); };
})();
)js";

constexpr const char* kDriver = R"js(
(async function () {
  var charts = JSON.parse(document.getElementById('fs-specs').textContent);
  for (var i = 0; i < charts.length; ++i) {
    var el = document.getElementById(charts[i].target);
    try {
      var view = new vega.View(vega.parse(charts[i].spec), {renderer: 'svg', container: el, hover: true});
      await view.runAsync();
      el.setAttribute('data-marks', el.querySelectorAll('g.role-mark > path, g.role-mark > line').length);
    } catch (e) {
      el.setAttribute('data-marks', '0');
      window.fsRecord('chart ' + charts[i].target, [e]);
    }
  }
  document.body.setAttribute('data-fs-status', window.fsErrors.length ? 'errors' : 'ok');
})();
)js";

constexpr const char* kStyle = R"css(
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1000px; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { font-size: 1.05em; margin-bottom: 0.2em; }
p.sub, p.caption { color: #555; margin-top: 0.2em; font-size: 0.9em; }
p.note { color: #7a5b00; background: #fff8e0; padding: 0.3em 0.6em; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ddd; padding: 2px 8px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
div.scroll { overflow-x: auto; max-width: 100%; }
pre#fs-errors { color: #b00; background: #fee; padding: 0.5em; white-space: pre-wrap; }
)css";

// JSON inside <script>: "</" written as "<\/", which JSON reads back as the same text.
std::string script_safe(std::string text) {
  for (size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3)) {
    text.replace(at, 2, "<\\/");
  }
  return text;
}

}  // namespace

Block note_block(const std::string& title, const std::string& why) {
  Block b;
  b.title = title;
  b.note = why;
  return b;
}

std::string html_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows) {
  // Wrapped so that a wide table (a compare of many fabrics) scrolls instead of running off
  // the page.
  std::string out = "<div class=\"scroll\"><table><tr>";
  for (const std::string& h : header) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      out += std::string(i == 0 ? "<td>" : "<td class=\"num\">") + html_escape(row[i]) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table></div>\n";
}

std::string page_html(const Page& page) {
  std::string body;
  std::string charts = "[";  // [{"target": "chart-N", "spec": {...}}, ...]
  size_t chart_count = 0;
  for (const auto& [heading, blocks] : page.sections) {
    body += "<h2>" + html_escape(heading) + "</h2>\n";
    for (const Block& b : blocks) {
      body += "<section>\n<h3>" + html_escape(b.title) + "</h3>\n";
      if (!b.note.empty()) {
        body += "<p class=\"note\">Not drawn: " + html_escape(b.note) + "</p>\n</section>\n";
        continue;
      }
      if (!b.caption.empty()) body += "<p class=\"caption\">" + html_escape(b.caption) + "</p>\n";
      if (!b.spec.empty()) {
        const std::string target = "chart-" + std::to_string(chart_count);
        body += "<div class=\"chart\" id=\"" + target + "\"></div>\n";
        charts += std::string(charts.size() > 1 ? "," : "") + "{\"target\":\"" + target +
                  "\",\"spec\":" + b.spec.text + "}";
        ++chart_count;
      }
      body += b.html;
      body += "</section>\n";
    }
  }
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<title>" + html_escape(page.title) + " - fabricsim report</title>\n";
  html += "<style>" + std::string(kStyle) + "</style>\n";
  html += "<script>" + std::string(kHooks) + "</script>\n";
  html += "<script>\n" + vega_script() + "</script>\n";
  html += "</head>\n<body>\n<h1>" + html_escape(page.title) + "</h1>\n";
  html += "<p class=\"sub\">" + html_escape(page.subtitle) + "</p>\n";
  html += "<pre id=\"fs-errors\" hidden></pre>\n";
  html += body;
  html += "<p class=\"sub\">Written by fabricsim; charts drawn by Vega " +
          std::string("(Debian libjs-vega, inlined). See docs/report.md.</p>\n");
  html += "<script type=\"application/json\" id=\"fs-specs\">" + script_safe(charts + "]") +
          "</script>\n";
  html += "<script>" + std::string(kDriver) + "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace fabricsim::output::report
