// The one place a loaded scenario is checked and completed (docs/architecture.md, "resolve").
//
// `fabricsim validate` is load (spec/load.h: every key's type and range, cross-field rules of
// the file) + resolve() (every rule between keys, every default derived from the technology) +,
// for what only a built fabric can tell (a failed link's port, an SM that cannot route the
// shape), building the engine (engine/run.h check_buildable). run, compare, sweep and describe
// call the same resolve(), so none of them can accept what another refuses.
#pragma once

#include "spec/scenario.h"
#include "transport/dcqcn.h"
#include "transport/hpcc.h"
#include "transport/ib_cc.h"
#include "transport/uet.h"

namespace fabricsim::scenario {

// A scenario with everything derived that the engines need, and the settings derived from it
// that do not live in the scenario's own structs.
struct Resolved {
  // The scenario with the technology's defaults applied: IB link tables and MTU, the NIC
  // profile, PFC/ECN thresholds and classes (Dragonfly classes widened), TCP/UET switch
  // settings, Dragonfly group_nics.
  Scenario sc;
  transport::DcqcnParams dcqcn{};  // RoCE/IB with DCQCN: the named profile with its overrides
  transport::IbCcParams ib_cc{};   // InfiniBand CC: the defaults with fabric.ib.cc.* applied
  transport::HpccParams hpcc{};    // RoCE with HPCC: T from the fabric, fabric.roce.hpcc.* applied
  transport::UetNetwork uet_net{};  // technology uet: the switches' view for the transport
};

// Checks `loaded` against every rule between keys and derives every default; throws
// InputError (core/error.h) naming the key at fault. Pure: same input, same output.
Resolved resolve(const Scenario& loaded);

// The run of one count `nodes` of a scaling scenario (scaling.nodes): a fabric of that many hosts
// (at least two) and, with GPUs, one job on `nodes` of them running the workload or training
// step. The runner (engine/run.cpp) and the pre-flight (preflight/resources.cpp) both use it.
Scenario scaling_point(const Scenario& sc, int nodes);

// The ECN marking a RoCE scenario's switches will use (derive_switch_settings' rule: on when
// fabric.ecn.marking is on, or auto with DCQCN; thresholds from the DCQCN profile unless
// fabric.ecn.* sets them), without resolving the rest: the memory pre-flight's expectation of
// the queues (preflight/resources.cpp).
net::EcnConfig resolved_roce_ecn(const Scenario& sc);

}  // namespace fabricsim::scenario
