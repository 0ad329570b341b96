// The calibration suite's one assertion: a published figure, where it comes from, how fabricsim
// reproduces it, and the band it must fall in. Every check also becomes a row of the table in
// docs/calibration.md, which `make calibration` regenerates (scripts/calibration-table runs this
// binary once with FABRICSIM_CALIBRATION_TABLE set to the file to write).
#pragma once

#include <string>

namespace fabricsim::calibration {

struct Figure {
  std::string name;       // what is measured, e.g. "ib_write_lat 2 B, back to back (IB)"
  std::string published;  // the published figure as its source states it, e.g. "1.01 us"
  std::string source;     // where it is published (paper, datasheet, spec section, README)
  std::string scenario;   // how fabricsim reproduces it (test name and what it runs)
  std::string unit;       // of value, lo and hi, e.g. "us"
  double value = 0;       // fabricsim's figure
  double lo = 0;          // the tolerance band: lo <= value <= hi passes
  double hi = 0;
};

// EXPECTs lo <= value <= hi (a gtest failure names the figure) and records the row.
void check_figure(const Figure& f);

}  // namespace fabricsim::calibration
