// core/rank_exchange.h without MPI (FABRICSIM_MPI=OFF): one process, as always. Started by
// mpirun anyway, each process runs the whole simulation on its own; main() says so.
#include <cstdlib>

#include "core/rank_exchange.h"

namespace fabricsim {

RankExchange* process_ranks() { return nullptr; }
const char* rank_backend() { return ""; }

bool start_process_ranks(int& /*argc*/, char**& /*argv*/, std::string& why) {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr) {
    why = "started by an MPI launcher, but this fabricsim was built without MPI "
          "(cmake -DFABRICSIM_MPI=ON, with libopenmpi-dev installed)";
    return false;
  }
  return true;
}

void stop_process_ranks() {}

}  // namespace fabricsim
