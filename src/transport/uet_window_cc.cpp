// The registry of UET window rules (transport/uet_window_cc.h).
#include "transport/uet_window_cc.h"

#include "transport/scheme_registry.h"

namespace fabricsim::transport {
namespace {
SchemeRegistry<UetCcFactory>& registry() {  // function-local: see rate_cc.cpp
  static SchemeRegistry<UetCcFactory> r("UET congestion-control rule", {"nscc", "fixed"});
  return r;
}
}  // namespace

void register_uet_cc(std::string name, UetCcFactory factory) {
  registry().add(std::move(name), std::move(factory));
}
const UetCcFactory* find_uet_cc(std::string_view name) { return registry().find(name); }
std::vector<std::string> registered_uet_cc_names() { return registry().names(); }

}  // namespace fabricsim::transport
