// Shared helpers of the ASTRA-sim importer tests (astra_import_test.cpp: the DAGs built from the
// published files and the parallelism policies; astra_input_test.cpp: which text is accepted and
// which refused): the files read independently of the importer, DAG inspection and timing, and
// scratch files. Header-only, in its own namespace, so that both files, and the unity build that
// compiles them together, see one definition of each.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "workload/astra_import.h"

namespace fabricsim::workload::astra_test {

inline const std::string kData =
    std::string(FABRICSIM_SOURCE_DIR) + "/tests/workload/data/astra-sim/";

// --- the file, read independently of the importer -------------------------------------------

struct RawLayer {
  std::vector<std::string> f;  // the 12 fields
  int64_t num(int k) const { return std::stoll(f[k]); }
};

inline std::vector<RawLayer> raw_layers(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<RawLayer> out;
  int n = 0;
  while (std::getline(in, line)) {
    if (++n <= 2) continue;
    std::istringstream ss(line);
    RawLayer l;
    std::string t;
    while (ss >> t) l.f.push_back(t);
    if (!l.f.empty()) out.push_back(l);
  }
  return out;
}

// --- DAG inspection ---------------------------------------------------------------------------

inline AstraOptions options(uint32_t gpus, uint32_t per_node = 8,
                            int64_t clock_hz = 1'000'000'000) {
  AstraOptions o;
  o.gpus = gpus;
  o.gpus_per_node = per_node;
  o.clock_hz = clock_hz;
  return o;
}

struct Coll {
  uint32_t layer;
  Phase phase;
  CollOp op;
  int64_t size;
  std::vector<uint32_t> ranks;
};

inline std::vector<Coll> collectives(const Dag& d) {
  std::vector<Coll> out;
  for (const DagOp& op : d.ops) {
    if (op.kind != DagOp::Kind::kCollective) continue;
    const DagCollective& c = d.collectives[op.collective];
    out.push_back({op.layer, op.phase, c.op, c.size_bytes, d.groups[c.group]});
  }
  return out;
}

// Sum of compute durations of `rank` in `phase`.
inline int64_t compute_ps(const Dag& d, uint32_t rank, Phase phase) {
  int64_t sum = 0;
  for (const DagOp& op : d.ops) {
    if (op.kind == DagOp::Kind::kCompute && op.rank == rank && op.phase == phase)
      sum += op.duration_ps;
  }
  return sum;
}

// Structural soundness: dependencies point backwards, computes take time on a real rank,
// collectives run over at least two distinct ranks.
inline void expect_well_formed(const Dag& d) {
  for (size_t i = 0; i < d.ops.size(); ++i) {
    const DagOp& op = d.ops[i];
    for (uint32_t k = 0; k < op.num_deps; ++k) ASSERT_LT(d.deps[op.first_dep + k], i) << "op " << i;
    if (op.kind == DagOp::Kind::kCompute) {
      EXPECT_GT(op.duration_ps, 0) << "op " << i;
      EXPECT_LT(op.rank, d.ranks) << "op " << i;
    } else {
      const auto& g = d.groups[d.collectives[op.collective].group];
      EXPECT_GE(g.size(), 2u);
      EXPECT_EQ(std::set<uint32_t>(g.begin(), g.end()).size(), g.size());
    }
  }
}

// Finish time of every op when an op starts as soon as its dependencies end (no compute-stream
// contention) and every collective takes `coll_ps`.
inline std::vector<int64_t> finish_times(const Dag& d, int64_t coll_ps) {
  std::vector<int64_t> end(d.ops.size(), 0);
  for (size_t i = 0; i < d.ops.size(); ++i) {
    const DagOp& op = d.ops[i];
    int64_t start = 0;
    for (uint32_t k = 0; k < op.num_deps; ++k)
      start = std::max(start, end[d.deps[op.first_dep + k]]);
    end[i] = start + (op.kind == DagOp::Kind::kCompute ? op.duration_ps : coll_ps);
  }
  return end;
}

inline int64_t makespan(const Dag& d, int64_t coll_ps) {
  const auto end = finish_times(d, coll_ps);
  return end.empty() ? 0 : *std::max_element(end.begin(), end.end());
}

// Does op `later` depend (transitively) on op `earlier`?
inline bool depends_on(const Dag& d, uint32_t later, uint32_t earlier) {
  std::vector<uint32_t> stack{later};
  std::vector<bool> seen(d.ops.size(), false);
  while (!stack.empty()) {
    const uint32_t i = stack.back();
    stack.pop_back();
    if (i == earlier) return true;
    if (seen[i]) continue;
    seen[i] = true;
    const DagOp& op = d.ops[i];
    for (uint32_t k = 0; k < op.num_deps; ++k) stack.push_back(d.deps[op.first_dep + k]);
  }
  return false;
}

inline uint32_t find_op(const Dag& d, DagOp::Kind kind, Phase phase, uint32_t layer,
                        uint32_t rank = 0, int nth = 0) {
  for (uint32_t i = 0; i < d.ops.size(); ++i) {
    const DagOp& op = d.ops[i];
    if (op.kind != kind || op.phase != phase || op.layer != layer) continue;
    if (kind == DagOp::Kind::kCompute && op.rank != rank) continue;
    if (kind == DagOp::Kind::kCollective) {
      const auto& g = d.groups[d.collectives[op.collective].group];
      if (std::find(g.begin(), g.end(), rank) == g.end()) continue;
    }
    if (nth-- == 0) return i;
  }
  ADD_FAILURE() << "no such op: layer " << layer << " rank " << rank;
  return 0;
}

// The process id keeps concurrent test runs (ctest -j, two build trees) off each other's files;
// they are removed when the test process exits.
struct TempFiles {
  std::set<std::string> paths;
  ~TempFiles() {
    for (const std::string& p : paths) std::remove(p.c_str());
  }
};
inline TempFiles temp_files;

inline std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path =
      testing::TempDir() + "astra_" + std::to_string(getpid()) + "_" + name + ".txt";
  std::ofstream(path, std::ios::binary) << text;
  temp_files.paths.insert(path);
  return path;
}

}  // namespace fabricsim::workload::astra_test
