// A pre-flight estimate of a run's peak memory, from the scenario alone (issue 9 item 2).
//
// Nothing is built: the topology's counts are topo::shape_counts (the builders' closed forms),
// the workload's from its parameters (a Poisson run's expected flow count, a ring all-reduce's
// n x 2(n-1) x slices messages), and every byte figure is sizeof() of the type the simulator
// really allocates times that count, so the estimate follows the types as they change. Where
// the simulator's use depends on the traffic (packets queued in switch buffers, pending events),
// the estimate takes the bound the model imposes (the switches' shared buffers, the traffic's own
// bytes) and says so next to it. docs/reliability.md ("Pre-flight memory estimate") compares it with measured peaks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spec/scenario.h"

namespace fabricsim::scenario {

// One component of the estimate. `key` is the scenario key that drives it most (named when the
// run is refused or the arithmetic overflows).
struct MemoryPart {
  std::string name;  // "topology", "routing", "transport", "workload", "packets", ...
  int64_t bytes = 0;
  std::string key;
  // The scenario keys whose values the part grows with (a refusal names those the file sets:
  // size_drivers_set in cli/commands.cpp); empty = just `key`.
  std::vector<std::string> drivers;
};

struct ResourceEstimate {
  // Closed-form counts (no topology built, no flow expanded).
  int64_t nics = 0;
  int64_t switches = 0;
  int64_t cables = 0;
  int64_t ports = 0;     // two per cable
  int64_t lids = 0;      // InfiniBand: highest LID + 1 (0 on RoCE)
  int64_t qps = 0;       // upper bound: distinct (src, dst) pairs the workload uses
  int64_t messages = 0;  // messages (= flow records) the run posts; Poisson: mean + 4 sigma
  int64_t packets = 0;   // bound on packets held at once in queues and on cables
  // The packets' ring slots if every one of `packets` were held at once (the "packets" part
  // holds what is expected, less where congestion control keeps queues near a threshold): how
  // far the rings may grow past the estimate, which a run watches (core/ring.h RingMemory).
  int64_t packets_bound_bytes = 0;
  // What the rings (core/ring.h) are expected to hold at the peak: the "packets" part and every
  // port's first slots (counted in "topology"). A run's ring budget is this plus what the memory
  // limit leaves above the projected peak (cli/ring_budget.h).
  int64_t ring_bytes = 0;
  // The simulation's peak, by component (their sum is simulation_bytes()).
  std::vector<MemoryPart> parts;
  // After the simulation is freed: the run's result plus the text of flows.csv and the
  // capture's frames being written. Peak = max(simulation, outputs).
  int64_t output_bytes = 0;
  // What one run hands back (flow records, captured frames): `compare` holds every earlier
  // run's while it simulates the next.
  int64_t result_bytes = 0;

  int64_t simulation_bytes() const;
  // Peak bytes beyond the process's baseline: max(simulation, outputs).
  int64_t peak_bytes() const;
  // The part with the most bytes.
  const MemoryPart& largest() const;
};

// How many simulations the run holds at once: its `threads`, at most the independent
// simulations it is made of (the ideal-network twin, scaling's node counts; engine/run.cpp).
int64_t concurrent_runs(const Scenario& sc);

// Throws InputError naming the key whose count makes the arithmetic overflow (a run that would
// need more than 2^62 bytes). REQUIRES: resolve(sc) passed.
ResourceEstimate estimate_resources(const Scenario& sc);

// "topology 1.2 MiB, routing 3.4 GiB, ..." over the parts worth at least 0.05% of the total,
// largest first, then "outputs" when writing them needs more than the simulation.
std::string describe_parts(const ResourceEstimate& e);

// The memory yaml-cpp needs to parse a scenario file of `file_bytes`, before any estimate of the
// run can be made: 80 bytes per byte of file. Measured (peak RSS of `fabricsim validate` minus
// its ~10 MiB baseline): a 200k-flow list written as sequences, 7.1 MB, 497 MB (70 B/B); the
// same list as mappings, 11.7 MB, 879 MB (75 B/B); a 500k-flow list, 17.0 MB, 1.23 GB (72 B/B).
// A node per scalar costs about the same whatever the scalar, so the figure holds for any
// scenario that is mostly a flow list, the only kind that gets large.
inline constexpr int64_t kParseBytesPerFileByte = 80;
int64_t parse_peak_bytes(int64_t file_bytes);

// Resident memory of this process now (/proc/self/statm), the baseline an estimate adds to;
// 0 when unavailable.
int64_t current_rss_bytes();
// The code of this program and of the shared libraries it maps (libstdc++, yaml-cpp, libc ...)
// that is not resident yet (/proc/self/smaps: Size - Rss of every executable file mapping): the
// simulation and the output writers page it in as they run. The libraries count as the program's
// own text does: RSS counts a mapped file page whoever else maps it (ib-vs-roce at its test size,
// session 24: the run peaked 1.5 MiB above an estimate that counted the program's text alone).
int64_t code_to_page_in_bytes();
// MemAvailable from /proc/meminfo (the kernel's estimate of memory available to a new process
// without swapping, proc(5)); 0 when unavailable.
int64_t available_memory_bytes();

}  // namespace fabricsim::scenario
