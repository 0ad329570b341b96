// The registry of congestion-control schemes added through the interface (rate_cc.h).
#include "transport/rate_cc.h"

#include "transport/scheme_registry.h"

namespace fabricsim::transport {

namespace {
// Function-local so that a registration from another translation unit's static initializer
// finds it constructed.
SchemeRegistry<RateCcFactory>& registry() {
  static SchemeRegistry<RateCcFactory> r(
      "congestion-control scheme", {"none", "dcqcn", "ib", "timely", "hpcc", "swift", "dctcp"});
  return r;
}
}  // namespace

void register_rate_cc(std::string name, RateCcFactory factory) {
  registry().add(std::move(name), std::move(factory));
}
const RateCcFactory* find_rate_cc(std::string_view name) { return registry().find(name); }
std::vector<std::string> registered_rate_cc_names() { return registry().names(); }

}  // namespace fabricsim::transport
