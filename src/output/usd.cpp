#include "output/usd.h"

#include <cstdio>

namespace fabricsim::output {
namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

std::string format_usd(double usd) {
  if (usd >= 1e6) return "$" + fixed(usd / 1e6, 3) + " M";
  if (usd >= 1e4) return "$" + fixed(usd / 1e3, 1) + " k";
  return "$" + fixed(usd, 0);
}

}  // namespace fabricsim::output
