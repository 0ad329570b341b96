// run_scenario: resolve, build the engine the scenario asks for, run it, harvest; and the two
// runs made of several runs (scaling: one per node count; jobs_alone: each job alone).
#include "engine/run.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/checked.h"
#include "core/error.h"
#include "core/rss.h"
#include "engine/engine.h"
#include "resolve/resolve.h"

namespace fabricsim::scenario {

namespace {

// A run only its step or end times are read from: no flow record kept, no flows.csv written.
RunOptions without_flows(const RunOptions& options) {
  RunOptions o = options;
  o.flows = FlowHarvest{.keep_records = false, .csv_dir = {}};
  return o;
}

// A run beside another: without flows, and no progress line (one run at a time reports it).
RunOptions quiet(const RunOptions& options) {
  RunOptions o = without_flows(options);
  o.progress = nullptr;
  return o;
}

// Step (or collective) time of a run's first job, -1 when it did not finish.
int64_t scaling_time_ps(const RunResult& r) {
  if (!r.jobs.empty() && r.jobs[0].training.present) return r.jobs[0].training.step_time_ps;
  return r.collective.present ? r.collective.time_ps : -1;
}

// Work per step: the generator's global batch (samples), else proportional to the GPUs (a job
// whose per-GPU work is fixed, e.g. an imported data-parallel step or a collective of a fixed
// per-rank size).
double scaling_work(const RunResult& r, int gpus) {
  if (!r.jobs.empty() && r.jobs[0].training.samples_per_step > 0) {
    return r.jobs[0].training.samples_per_step;
  }
  return gpus;
}

RunResult run_scaling(const Scenario& sc, const RunOptions& options) {
  RunResult last;
  std::vector<ScalingPoint> points;
  double base_rate = 0;  // work per second per node at the first count
  // threads > 1: the counts run side by side (each on one core, its own twin run in turn), the
  // last one with the progress line and the flow records, as the sequential loop leaves them.
  // Interrupted, each stops where it was: the points up to the first partial one are kept.
  const size_t count = sc.scaling_nodes.size();
  std::vector<RunResult> ahead;
  if (sc.threads > 1 && count > 1) {
    ahead.resize(count);
    for_each_run(count, sc.threads, [&](size_t i) {
      Scenario s = scaling_point(sc, sc.scaling_nodes[i]);
      s.threads = 1;
      ahead[i] = run_scenario(s, i + 1 == count ? options : quiet(options));
    });
  }
  for (size_t i = 0; i < count; ++i) {
    const int n = sc.scaling_nodes[i];
    last = ahead.empty() ? run_scenario(scaling_point(sc, n), options) : std::move(ahead[i]);
    ScalingPoint p;
    p.nodes = n;
    p.gpus = last.jobs.empty() ? last.topology.nics : static_cast<int>(last.jobs[0].gpus.size());
    p.step_time_ps = scaling_time_ps(last);
    if (!last.jobs.empty() && !last.jobs[0].collectives.empty()) {
      const CollectiveRow& c = last.jobs[0].collectives[0];
      p.algorithm = c.algorithm;
      p.protocol = c.protocol;
      p.channels = c.channels;
      p.busbw_gbytes_per_s = c.time_ps >= 0 ? c.busbw_gbytes_per_s : 0;
    }
    if (!last.jobs.empty() && last.jobs[0].training.ideal_step_ps >= 0) {
      p.ideal_step_time_ps = last.jobs[0].training.ideal_step_ps;
      p.ideal_efficiency = last.jobs[0].training.ideal_efficiency;
    }
    if (p.step_time_ps > 0) {
      const double rate_per_node =
          scaling_work(last, p.gpus) / (static_cast<double>(p.step_time_ps) * 1e-12) / n;
      if (points.empty()) base_rate = rate_per_node;
      p.acceleration_ratio = base_rate > 0 ? rate_per_node / base_rate : 0;
    }
    points.push_back(p);
    if (last.partial) break;  // interrupted: the remaining counts were not run
  }
  last.scaling = std::move(points);
  return last;
}


// jobs_alone: the run with every job, then each job alone on the nodes it had, so that the
// interference each job suffers is measured against its own baseline.
RunResult run_with_baselines(const Scenario& sc, const RunOptions& options) {
  Scenario all = sc;
  all.jobs_alone = false;
  RunResult r = run_scenario(all, options);
  if (r.partial) return r;
  for (size_t j = 0; j < r.jobs.size() && j < sc.jobs.size(); ++j) {
    JobResult& job = r.jobs[j];
    Scenario alone = all;
    JobSpec spec = sc.jobs[j];
    const uint32_t gpn = static_cast<uint32_t>(sc.node.gpus_per_node);
    for (size_t g = 0; g < job.gpus.size(); g += gpn) {
      spec.fixed_nodes.push_back(static_cast<int>(job.gpus[g] / gpn));
    }
    alone.jobs = {spec};
    alone.trace.enabled = false;  // only its end time is used: trace.json is the shared run's
    const RunResult a = run_scenario(alone, without_flows(options));
    if (a.partial) {
      r.partial = true;
      break;
    }
    if (!a.jobs.empty() && a.jobs[0].end_ps >= 0) {
      job.alone_end_ps = a.jobs[0].end_ps;
      if (job.end_ps >= 0 && job.alone_end_ps > 0) {
        job.slowdown = static_cast<double>(job.end_ps) / static_cast<double>(job.alone_end_ps);
      }
    }
  }
  return r;
}

// training.ideal_network: the run, then the same scenario on the ideal network
// (node::NodeSpec::ideal_fabric: cross-node messages take their size at the NIC line rate plus
// two cable propagations; docs/training.md "Ideal network"); each training job gets the ideal
// run's step and its own step - ideal step.
RunResult run_with_ideal(const Scenario& sc, const RunOptions& options) {
  Scenario real = sc;
  real.training.ideal_network = false;
  for (JobSpec& job : real.jobs) job.training.ideal_network = false;
  Scenario ideal = real;
  ideal.node.ideal_fabric = true;
  ideal.trace.enabled = false;  // only the step times are used: trace.json is the real run's
  RunResult r, i;
  if (sc.threads > 1) {  // side by side: the real run keeps the progress line and the flows
    real.threads = ideal.threads = 1;
    for_each_run(2, sc.threads, [&](size_t k) {
      if (k == 0) {
        r = run_scenario(real, options);
      } else {
        i = run_scenario(ideal, quiet(options));
      }
    });
    if (r.partial) return r;
  } else {
    r = run_scenario(real, options);
    if (r.partial) return r;
    i = run_scenario(ideal, without_flows(options));
  }
  if (i.partial) {
    r.partial = true;
    return r;
  }
  for (size_t j = 0; j < r.jobs.size() && j < i.jobs.size(); ++j) {
    TrainingResult& t = r.jobs[j].training;
    const TrainingResult& it = i.jobs[j].training;
    if (!t.present || !it.present || it.step_time_ps < 0) continue;
    t.ideal_step_ps = it.step_time_ps;
    t.has_ideal_breakdown = it.has_breakdown;
    t.ideal_breakdown = it.breakdown;
    if (t.step_time_ps >= 0) {
      t.network_ps = t.step_time_ps - t.ideal_step_ps;
      if (t.step_time_ps > 0) {
        t.ideal_efficiency =
            static_cast<double>(t.ideal_step_ps) / static_cast<double>(t.step_time_ps);
      }
    }
  }
  return r;
}

}  // namespace

void for_each_run(size_t n, int threads, const std::function<void(size_t)>& fn) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        fn(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  const size_t count = std::min(n, static_cast<size_t>(std::max(threads, 1)));
  for (size_t t = 1; t < count; ++t) helpers.emplace_back(worker);
  worker();
  for (std::thread& h : helpers) h.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

void check_buildable(const Scenario& sc) {
  make_engine(resolve(sc))->start_workload();
}

RunResult run_scenario(const Scenario& sc, const RunOptions& options) {
  const Resolved resolved = resolve(sc);
  const bool ranked = options.ranks != nullptr && options.ranks->size() > 1;
  bool several = !sc.scaling_nodes.empty() || (sc.jobs_alone && sc.jobs.size() > 1);
  several |= sc.training.ideal_network;
  for (const JobSpec& job : sc.jobs) several |= job.training.ideal_network;
  if (ranked && several) {
    throw InputError("threads", "this run is several simulations (scaling, an ideal-network twin "
                                "or jobs alone), which are not spread over MPI ranks: run it "
                                "without mpirun");
  }
  if (!sc.scaling_nodes.empty()) return run_scaling(sc, options);
  if (sc.jobs_alone && sc.jobs.size() > 1) return run_with_baselines(sc, options);
  bool ideal = sc.training.ideal_network;
  for (const JobSpec& job : sc.jobs) ideal |= job.training.ideal_network;
  if (ideal && sc.node.gpus_per_node > 0 && !sc.node.ideal_fabric) {
    return run_with_ideal(sc, options);
  }
  const auto wall_start = std::chrono::steady_clock::now();

  const std::unique_ptr<Engine> engine = make_engine(resolved, options.ranks);
  engine->set_flow_harvest(options.flows);
  engine->start_workload();
  const double build =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  // Without a stop_time the run still ends at the horizon (core/checked.h), so the clock, and
  // every time derived from it, stays inside int64; it then reports unfinished flows.
  const bool finished = engine->run(sc.stop_time_ps > 0 ? sc.stop_time_ps : kSimHorizonPs,
                                    options.progress, options.stop);
  if (options.progress && !engine->interrupted()) {
    options.progress(ProgressSample{1.0, engine->now_ps(), engine->events()});
  }
  // Under mpirun only rank 0 writes results. The other ranks' copies of what their partitions
  // do not own are stale or given back (net/rank_release.cpp): they harvest nothing.
  RunResult r;
  if (!ranked || options.ranks->rank() == 0) {
    r = engine->harvest(finished);
  } else {
    r.run.events = engine->events();
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  r.run.wall_seconds = wall;
  r.run.events_per_second = wall > 0 ? static_cast<double>(r.run.events) / wall : 0;
  r.run.peak_rss_bytes = peak_rss_bytes();
  r.run.build_seconds = build;
  if (ranked) {  // every rank gets here once (no rank returns early above): one all_gather
    struct Mine {
      double build_seconds;
      int64_t peak_rss_bytes;
    } mine{build, r.run.peak_rss_bytes};
    std::vector<char> all;
    options.ranks->all_gather(&mine, sizeof(mine), all);
    for (uint32_t k = 0; k < options.ranks->size(); ++k) {
      Mine m{};
      std::memcpy(&m, all.data() + k * sizeof(Mine), sizeof(Mine));
      r.run.rank_build_seconds.push_back(m.build_seconds);
      r.run.rank_peak_rss_bytes.push_back(m.peak_rss_bytes);
    }
  }
  return r;
}

}  // namespace fabricsim::scenario
