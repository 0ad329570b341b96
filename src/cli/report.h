// `fabricsim report DIR`: writes DIR/report.html for a directory `run`, `compare` or `sweep`
// wrote (output/report/report.h, docs/report.md).
#pragma once

#include <string>

namespace fabricsim::cli {

// Exit 0 and "DIR/report.html written" on stdout; a DIR that is not such a directory is bad
// input (one line on stderr, exit 2); a file that cannot be read or written exits 1.
int report_command(const std::string& dir);

}  // namespace fabricsim::cli
