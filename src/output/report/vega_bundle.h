// The Vega library report.html inlines (docs/report.md): Debian's libjs-vega 5.22 modules,
// embedded into the binary at configure time (scripts/embed-vega.cmake), so fabricsim writes a
// self-contained report from any directory and the file opens offline.
//
// Debian ships one UMD file per vega-* package and no single vega bundle. Loaded one after
// another by plain <script> tags they clobber each other (their browser branch assigns
// `global.vega = {}`); their AMD branch, `define([deps...], factory)`, is used instead through a
// small loader of ours that records each factory under its package name and calls it with its
// dependencies' exports on first use. The `vega` object then holds what the report's driver needs
// (parse, View), with the transforms registered as the vega package's own entry point does
// (vega/src/transforms.js: extend(transforms, vega-transforms, vega-view-transforms, vega-encode,
// ...), restricted to the modules embedded).
#pragma once

#include <string>

namespace fabricsim::output {

// True when the build found libjs-vega (FABRICSIM_VEGA_DIR) and embedded its modules.
bool vega_available();

// JavaScript for one <script> element: the loader, every embedded module, then `var vega =
// {parse, View, version}`. Contains no "</script". REQUIRES: vega_available().
const std::string& vega_script();

}  // namespace fabricsim::output
