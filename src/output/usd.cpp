#include "output/usd.h"

#include "core/units.h"

namespace fabricsim::output {

std::string format_usd(double usd) {
  if (usd >= 1e6) return "$" + format_fixed(usd / 1e6, 3) + " M";
  if (usd >= 1e4) return "$" + format_fixed(usd / 1e3, 1) + " k";
  return "$" + format_fixed(usd, 0);
}

}  // namespace fabricsim::output
