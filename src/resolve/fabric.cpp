#include "resolve/fabric.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "net/nic_profile.h"
#include "resolve/infiniband.h"
#include "transport/rate_cc.h"
#include "transport/tcp_window_cc.h"
#include "transport/uet_window_cc.h"

namespace fabricsim::scenario {

void resolve_nic(Scenario& sc) {
  const net::NicProfile* profile = net::find_nic_profile(sc.nic_spec.profile);
  if (profile == nullptr) {  // the registry's enum refuses other names; a Scenario built in code
    throw InputError("fabric.nic.profile", "unknown profile '" + sc.nic_spec.profile +
                                               "'; one of " + net::nic_profile_names());
  }
  net::NicConfig c = profile->config;
  c.rx_buffer_bytes = sc.nic.rx_buffer_bytes;  // its own key, not part of a profile
  const NicSpec& o = sc.nic_spec;
  override_with(c.tx_latency_ps, o.tx_latency_ps);
  override_with(c.rx_latency_ps, o.rx_latency_ps);
  override_with(c.host_post_ps, o.host_post_ps);
  override_with(c.doorbell_ps, o.doorbell_ps);
  override_with(c.dma_read_ps, o.dma_read_ps);
  override_with(c.inline_max_bytes, o.inline_max_bytes);
  override_with(c.mem_write_ps, o.mem_write_ps);
  override_with(c.host_poll_ps, o.host_poll_ps);
  sc.nic = c;
}

namespace {
// A rule a `*.cc_scheme` key names must be registered by the program running the scenario
// (docs/cc.md): else the error lists what is.
void require_registered(const char* key, const std::string& name, const char* what, bool found,
                        const std::vector<std::string>& registered) {
  if (found) return;
  std::string known;
  for (const std::string& n : registered) known += (known.empty() ? "" : ", ") + n;
  throw InputError(key, std::string("no ") + what + " '" + name + "' is registered (" +
                            (known.empty() ? std::string("none is") : "registered: " + known) +
                            "; docs/cc.md shows how to add one)");
}

// fabric.roce.cc_scheme: a scheme registered through transport/rate_cc.h.
void resolve_cc_scheme(Scenario& sc) {
  const std::string& name = sc.roce.cc_scheme;
  if (name.empty()) return;
  const char* key = "fabric.roce.cc_scheme";
  if (sc.technology != Technology::kRoce && sc.technology != Technology::kInfiniband) {
    throw InputError(key, "a registered scheme paces the RDMA transport (roce or ib); " +
                              std::string("this fabric's technology has its own"));
  }
  if (sc.roce.cc != transport::CongestionControl::kNone) {
    throw InputError(key, "fabric.roce.cc already chooses a scheme: set one of the two");
  }
  require_registered(key, name, "congestion-control scheme", transport::find_rate_cc(name),
                     transport::registered_rate_cc_names());
  sc.roce.cc = transport::CongestionControl::kScheme;
}

// fabric.tcp.cc_scheme: a rule registered through transport/tcp_window_cc.h.
void resolve_tcp_cc_scheme(Scenario& sc) {
  const std::string& name = sc.tcp.cc_scheme;
  if (name.empty()) return;
  const char* key = "fabric.tcp.cc_scheme";
  if (sc.technology != Technology::kTcp && sc.technology != Technology::kIwarp) {
    throw InputError(key, "a registered TCP rule runs on the TCP transport (tcp or iwarp)");
  }
  require_registered(key, name, "TCP congestion-control rule", transport::find_tcp_cc(name),
                     transport::registered_tcp_cc_names());
  sc.tcp.cc = transport::TcpCc::kScheme;
}

// fabric.uet.cc_scheme: a window rule registered through transport/uet_window_cc.h; it takes
// NSCC's place.
void resolve_uet_cc_scheme(Scenario& sc) {
  const std::string& name = sc.uet.cc_scheme;
  if (name.empty()) return;
  const char* key = "fabric.uet.cc_scheme";
  if (sc.technology != Technology::kUet) {
    throw InputError(key, "a registered UET rule runs on the UET transport (technology: uet)");
  }
  require_registered(key, name, "UET congestion-control rule", transport::find_uet_cc(name),
                     transport::registered_uet_cc_names());
  sc.uet.nscc = false;  // the rule is the window
}
}  // namespace

void resolve_fabric(Scenario& sc) {
  resolve_nic(sc);
  apply_infiniband(sc);
  resolve_cc_scheme(sc);
  resolve_tcp_cc_scheme(sc);
  resolve_uet_cc_scheme(sc);
  if (sc.roce.operation == transport::Operation::kRead) {
    const char* why = nullptr;
    if (sc.roce.service != transport::Service::kRc) {
      why = "RDMA READ exists only on RC (and the obsolete RD): use service rc";
    } else if (sc.roce.cc != transport::CongestionControl::kNone) {
      why = "congestion control paces a requester; READ data flows from the responder, which has no reaction "
            "point in this model: use cc none";
    } else if (sc.roce.plb.enabled) {
      why = "PLB re-paths a requester's packets, not READ responses: turn PLB off";
    } else if (sc.roce.spray) {
      why = "spraying spreads a requester's packets, not READ responses: turn "
            "fabric.roce.spray off";
    }
    if (why) throw InputError("fabric.transport.operation", why);
  }
}

}  // namespace fabricsim::scenario
