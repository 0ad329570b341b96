#include "calibration.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

namespace fabricsim::calibration {

namespace calibration_table {

struct Row {
  Figure figure;
  bool pass = false;
};

std::vector<Row>& rows() {
  static std::vector<Row> r;
  return r;
}

std::string format_value(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string cell(std::string s) {
  for (char& c : s) {
    if (c == '|') c = '/';
    if (c == '\n') c = ' ';
  }
  return s;
}

// Writes the table when the whole binary has run (one process: the generator runs it directly,
// not through CTest, which starts one process per test).
class TableWriter : public ::testing::Environment {
 public:
  void TearDown() override {
    const char* path = std::getenv("FABRICSIM_CALIBRATION_TABLE");
    if (path == nullptr || *path == '\0') return;
    std::ofstream out(path);
    out << "| figure | published | source | fabricsim scenario | fabricsim | tolerance | result |\n"
        << "|---|---|---|---|---|---|---|\n";
    for (const Row& r : rows()) {
      const Figure& f = r.figure;
      out << "| " << cell(f.name) << " | " << cell(f.published) << " | " << cell(f.source)
          << " | " << cell(f.scenario) << " | " << format_value(f.value) << ' ' << f.unit
          << " | " << format_value(f.lo) << " - " << format_value(f.hi) << ' ' << f.unit
          << " | " << (r.pass ? "pass" : "**FAIL**") << " |\n";
    }
  }
};

const bool kRegistered = [] {
  ::testing::AddGlobalTestEnvironment(new TableWriter);
  return true;
}();

}  // namespace calibration_table

void check_figure(const Figure& f) {
  const bool pass = f.value >= f.lo && f.value <= f.hi;
  EXPECT_TRUE(pass) << f.name << ": fabricsim " << f.value << ' ' << f.unit << " outside ["
                    << f.lo << ", " << f.hi << "] (published " << f.published << ", "
                    << f.source << ")";
  calibration_table::rows().push_back(calibration_table::Row{f, pass});
}

}  // namespace fabricsim::calibration
