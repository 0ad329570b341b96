#include "output/report/vega_bundle.h"

#include <iterator>
#include <stdexcept>

namespace fabricsim::output {
namespace {

struct VegaModule {
  const char* name;    // the npm package name, as the modules' define() calls name it
  const char* source;  // its minified UMD file without the sourceMappingURL line
};

// Generated: {"vega-util", R"fsvega(...)fsvega"}, ... (empty without libjs-vega).
constexpr VegaModule kModules[] = {
#include "vega_modules.inc"
    {nullptr, nullptr}};
constexpr size_t kModuleCount = std::size(kModules) - 1;

// The AMD subset the modules use: define(deps, factory) once per file. `define.current` names
// the file being evaluated (set before each one). Dependencies resolve on first load, so the
// order of the files does not matter. vega-functions 5.x imports "vega-selections", the npm
// package Debian installs as vega-selection.js.
constexpr const char* kLoader = R"js(
var fsVega = (function () {
  var factories = {}, modules = {}, aliases = {'vega-selections': 'vega-selection'};
  function define(deps, factory) { factories[define.current] = {deps: deps, factory: factory}; }
  define.amd = true;
  define.current = null;
  function load(name) {
    name = aliases[name] || name;
    if (modules[name]) return modules[name];
    var f = factories[name];
    if (!f) throw new Error('vega bundle: module ' + name + ' is missing');
    var exports = {};
    modules[name] = exports;
    f.factory.apply(null, f.deps.map(function (d) { return d === 'exports' ? exports : load(d); }));
    return exports;
  }
  return {define: define, load: load};
})();
)js";

// What the report's driver uses of the `vega` package entry, and the transform registry filled
// as vega/src/transforms.js fills it (only the embedded transform packages).
constexpr const char* kAssemble = R"js(
var vega = (function (load) {
  Object.assign(load('vega-dataflow').transforms, load('vega-transforms'),
                load('vega-view-transforms'), load('vega-encode'));
  return {parse: load('vega-parser').parse, View: load('vega-view').View, version: '5.22'};
})(fsVega.load);
)js";

std::string build_script() {
  std::string js = kLoader;
  for (size_t i = 0; i < kModuleCount; ++i) {
    // Each file inside a function whose `define` is the loader's and whose `exports`/`module`
    // are undefined, so the UMD header takes its AMD branch.
    js += "fsVega.define.current = '" + std::string(kModules[i].name) + "';\n";
    js += "(function (define, exports, module) {\n";
    js += kModules[i].source;
    js += "\n})(fsVega.define);\n";
  }
  js += kAssemble;
  if (js.find("</script") != std::string::npos) {
    throw std::logic_error("an embedded Vega module contains </script");
  }
  return js;
}

}  // namespace

bool vega_available() { return kModuleCount > 0; }

const std::string& vega_script() {
  static const std::string script = build_script();
  return script;
}

}  // namespace fabricsim::output
