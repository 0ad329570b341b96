#include "cli/report.h"

#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "output/report/report.h"

namespace fabricsim::cli {

int report_command(const std::string& dir) {
  try {
    output::write_report(dir);
  } catch (const output::ReportError& e) {
    std::cerr << "fabricsim: report: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::runtime_error& e) {
    std::cerr << "fabricsim: report: " << e.what() << "\n";
    return kExitInternal;
  }
  std::cout << (std::filesystem::path(dir) / "report.html").string() << " written\n";
  return kExitOk;
}

}  // namespace fabricsim::cli
