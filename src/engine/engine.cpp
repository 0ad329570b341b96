#include "engine/engine.h"

#include "engine/packet/simulation.h"

namespace fabricsim::scenario {

std::unique_ptr<Engine> make_engine(const Resolved& resolved) {
  return std::make_unique<Simulation>(resolved);
}

std::unique_ptr<Engine> make_engine(const Resolved& resolved, RankExchange* ranks) {
  return std::make_unique<Simulation>(resolved, ranks);
}

}  // namespace fabricsim::scenario
