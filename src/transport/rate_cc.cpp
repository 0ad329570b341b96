// The registry of congestion-control schemes added through the interface (rate_cc.h).
#include "transport/rate_cc.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace fabricsim::transport {

namespace {
// Function-local so that a registration from another translation unit's static initializer
// finds it constructed.
std::map<std::string, RateCcFactory, std::less<>>& registry() {
  static std::map<std::string, RateCcFactory, std::less<>> r;
  return r;
}
}  // namespace

void register_rate_cc(std::string name, RateCcFactory factory) {
  if (name.empty()) throw std::invalid_argument("a congestion-control scheme needs a name");
  if (name == "none" || name == "dcqcn" || name == "ib" || name == "timely" ||
      name == "hpcc" || name == "swift" || name == "dctcp") {
    throw std::invalid_argument("'" + name + "' is a built-in congestion-control scheme");
  }
  if (!factory) throw std::invalid_argument("scheme '" + name + "' has no factory");
  if (!registry().emplace(name, std::move(factory)).second) {
    throw std::invalid_argument("congestion-control scheme '" + name + "' is registered twice");
  }
}

const RateCcFactory* find_rate_cc(std::string_view name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

std::vector<std::string> registered_rate_cc_names() {
  std::vector<std::string> names;
  for (const auto& [name, f] : registry()) names.push_back(name);
  return names;  // std::map keeps them sorted
}

}  // namespace fabricsim::transport
