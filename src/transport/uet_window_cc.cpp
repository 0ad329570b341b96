// The registry of UET window rules (transport/uet_window_cc.h).
#include "transport/uet_window_cc.h"

#include <map>
#include <stdexcept>

namespace fabricsim::transport {
namespace {
std::map<std::string, UetCcFactory, std::less<>>& registry() {
  static std::map<std::string, UetCcFactory, std::less<>> r;
  return r;
}
}  // namespace

void register_uet_cc(std::string name, UetCcFactory factory) {
  if (name.empty()) throw std::invalid_argument("a UET congestion-control rule needs a name");
  if (name == "nscc" || name == "fixed") {
    throw std::invalid_argument("'" + name + "' is a built-in UET congestion-control rule");
  }
  if (!factory) throw std::invalid_argument("UET rule '" + name + "' has no factory");
  if (!registry().emplace(name, std::move(factory)).second) {
    throw std::invalid_argument("UET congestion-control rule '" + name + "' is registered twice");
  }
}

const UetCcFactory* find_uet_cc(std::string_view name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

std::vector<std::string> registered_uet_cc_names() {
  std::vector<std::string> names;
  for (const auto& [n, f] : registry()) names.push_back(n);
  return names;
}

}  // namespace fabricsim::transport
