// Prices as the terminal shows them (the compare table's cost row, `fabricsim describe`).
#pragma once

#include <string>

namespace fabricsim::output {

// "$1.234 M", "$45.0 k", "$950": three or four significant digits.
std::string format_usd(double usd);

}  // namespace fabricsim::output
