#include "engine/packet/gpu_workload.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "engine/packet/step_detail.h"
#include "workload/astra_import.h"
#include "workload/chakra_import.h"
#include "workload/transformer.h"

namespace fabricsim::scenario {
namespace {

using workload::CollOp;

int64_t element_bytes(const std::string& type) {
  if (type == "double") return 8;
  if (type == "half" || type == "bfloat16") return 2;
  if (type == "int8") return 1;
  return 4;  // float, int32
}

bool is_reduction(CollOp op) {
  return op == CollOp::kAllReduce || op == CollOp::kReduceScatter || op == CollOp::kReduce;
}

// A step that did not finish: what its finished ops did until t.elapsed_ps (`tr`: the engine's
// figures over finished ops only). step_time_ps stays -1.
void fill_unfinished_step(const workload::TrainingResult& tr, TrainingResult& t) {
  t.compute_ps = tr.compute_ps;
  t.exposed_comm_ps = std::max<int64_t>(0, t.elapsed_ps - tr.compute_ps);
  for (int p = 0; p < workload::kPhases; ++p) {
    if (tr.comm_count[p] == 0) continue;
    t.comm.push_back({workload::name(static_cast<workload::Phase>(p)), tr.comm_count[p],
                      tr.comm_bytes[p], tr.comm_ps[p]});
  }
}

std::string placement_name(Placement p) {
  return p == Placement::kScattered ? "scattered" : "contiguous";
}

// The sizes of an nccl-tests sweep: size, size x factor, ... while <= max_size.
std::vector<int64_t> sweep_sizes(const workload::WorkloadSpec& w) {
  std::vector<int64_t> sizes{w.size_bytes};
  while (w.max_size_bytes > 0 && sizes.back() <= w.max_size_bytes / w.step_factor) {
    sizes.push_back(sizes.back() * w.step_factor);
  }
  return sizes;
}

}  // namespace

StepBreakdownResult breakdown_result(const workload::StepBreakdown& b) {
  StepBreakdownResult out;
  out.stage = b.stage;
  out.rank = static_cast<int>(b.rank);
  out.step_ps = b.span_ps;
  out.compute_ps = b.compute_ps;
  out.bubble_ps = b.bubble_ps;
  out.skew_ps = b.skew_ps;
  out.exposed_comm_ps = b.exposed_comm_ps();
  for (int p = 0; p < workload::kPhases; ++p) {
    for (int q = 0; q < workload::kStepPhases; ++q) {
      if (b.comm_ps[p][q] == 0) continue;
      out.comm.push_back(CommPart{workload::name(static_cast<workload::Phase>(p)),
                                  workload::name(static_cast<workload::StepPhase>(q)),
                                  b.comm_ps[p][q]});
    }
  }
  return out;
}

void GpuWorkload::add_dag_units(const workload::Dag& dag, const std::vector<uint32_t>& gpus,
                                uint32_t gpn, int steps) {
  // Per communicator: whether its GPUs span nodes (the training engine runs no collective of a
  // one-rank group or of zero bytes).
  std::vector<int8_t> spans(dag.groups.size(), 0);
  for (size_t g = 0; g < dag.groups.size(); ++g) {
    for (uint32_t r : dag.groups[g]) spans[g] |= gpus[r] / gpn != gpus[dag.groups[g][0]] / gpn;
  }
  for (const workload::DagOp& op : dag.ops) {
    if (op.kind != workload::DagOp::Kind::kCollective) continue;
    const workload::DagCollective& c = dag.collectives[op.collective];
    const size_t n = dag.groups[c.group].size();
    if (n < 2 || c.size_bytes <= 0) continue;
    total_collective_units_ +=
        steps * workload::CollectiveEngine::progress_units(c.op, n, c.size_bytes, spans[c.group]);
  }
}

GpuWorkload::Work GpuWorkload::progress_work() const {
  return {static_cast<double>(finished_units_) + coll_.work_done(),
          static_cast<double>(total_units_) + total_collective_units_};
}

double GpuWorkload::progress_fraction() const {
  const Work w = progress_work();
  return w.total > 0 ? std::clamp(w.done / w.total, 0.0, 1.0) : 0.0;
}

workload::CollectiveSpec GpuWorkload::collective_spec(const Job& job, int64_t size) {
  const workload::WorkloadSpec& w = job.spec;
  workload::CollectiveSpec cs;
  cs.op = w.op;
  cs.algorithm = w.algorithm;
  cs.protocol = w.protocol;
  cs.channels = w.channels;
  cs.size_bytes = size;
  cs.root = w.root;
  cs.ranks = job.gpus;
  return cs;
}

GpuWorkload::GpuWorkload(const Scenario& sc, node::RankTransport& rt,
                         const std::vector<uint32_t>& leaf_of_node)
    : rt_(rt), coll_(rt, sc.collective) {
  const uint32_t gpn = rt.gpus_per_node();
  if (sc.trace.enabled) {
    trace_ = std::make_unique<workload::TraceRecorder>(gpn);
    coll_.set_trace(trace_.get());
  }
  const uint32_t nodes = rt.gpus() / gpn;
  // Jobs and their nodes.
  std::vector<JobSpec> specs = sc.jobs;
  if (specs.empty()) {
    JobSpec all;
    all.name = "job0";
    all.nodes = static_cast<int>(nodes);
    all.workload = sc.workload;
    all.training = sc.training;
    specs.push_back(all);
  }
  std::vector<bool> taken(nodes, false);
  uint32_t leaves = 0;
  for (uint32_t l : leaf_of_node) leaves = std::max(leaves, l + 1);
  for (size_t j = 0; j < specs.size(); ++j) {
    const JobSpec& js = specs[j];
    const std::string key = sc.jobs.empty() ? "hosts.count" : "jobs[" + std::to_string(j) + "].nodes";
    uint32_t free_nodes = 0;
    for (bool t : taken) free_nodes += !t;
    if (static_cast<uint32_t>(js.nodes) > free_nodes) {
      throw InputError(key, "job " + js.name + " needs " + std::to_string(js.nodes) +
                                " nodes but only " + std::to_string(free_nodes) + " of " +
                                std::to_string(nodes) + " are free");
    }
    std::vector<uint32_t> chosen;
    if (!js.fixed_nodes.empty()) {
      for (int n : js.fixed_nodes) chosen.push_back(static_cast<uint32_t>(n));
    } else if (js.placement == Placement::kContiguous) {
      for (uint32_t n = 0; n < nodes && chosen.size() < static_cast<size_t>(js.nodes); ++n) {
        if (!taken[n]) chosen.push_back(n);
      }
    } else {
      // One node per leaf in turn (the first free node of leaf 0, of leaf 1, ...): the job's
      // traffic between its nodes crosses the spines.
      while (chosen.size() < static_cast<size_t>(js.nodes)) {
        for (uint32_t l = 0; l < leaves && chosen.size() < static_cast<size_t>(js.nodes); ++l) {
          for (uint32_t n = 0; n < nodes; ++n) {
            if (!taken[n] && leaf_of_node[n] == l) {
              taken[n] = true;  // chosen: not free for the next round or job
              chosen.push_back(n);
              break;
            }
          }
        }
      }
      std::sort(chosen.begin(), chosen.end());
    }
    for (uint32_t n : chosen) taken[n] = true;
    Job job;
    job.name = js.name;
    job.placement = placement_name(js.placement);
    job.spec = js.workload;
    for (uint32_t n : chosen) {
      for (uint32_t g = 0; g < gpn; ++g) job.gpus.push_back(n * gpn + g);
    }
    const workload::WorkloadSpec& w = job.spec;
    if (w.kind == workload::WorkloadKind::kCollective) {
      job.sizes = sweep_sizes(w);
      for (int64_t size : job.sizes) {
        coll_.resolve(collective_spec(job, size));  // throws InputError if it cannot run
      }
      total_units_ += job.sizes.size();
      const bool net = job.gpus.front() / gpn != job.gpus.back() / gpn;
      for (int64_t size : job.sizes) {
        total_collective_units_ +=
            workload::CollectiveEngine::progress_units(w.op, job.gpus.size(), size, net);
      }
    } else if (w.kind == workload::WorkloadKind::kTraining) {
      const workload::TrainingSpec& t = js.training;
      workload::Dag dag;
      if (t.source == workload::TrainingSource::kAstra) {
        workload::AstraOptions opt;
        opt.gpus = static_cast<uint32_t>(job.gpus.size());
        opt.gpus_per_node = gpn;
        opt.clock_hz = static_cast<int64_t>(t.clock_ghz * 1e9 + 0.5);
        opt.algorithm = w.algorithm;
        opt.protocol = w.protocol;
        if (t.file.empty()) throw InputError("training.file", "required with source: astra");
        dag = workload::import_astra(t.file, opt);
        job.training_source = "astra-sim: " + t.file;
      } else if (t.source == workload::TrainingSource::kChakra) {
        if (t.file.empty()) throw InputError("training.file", "required with source: chakra");
        workload::ChakraOptions opt;
        opt.gpus = static_cast<uint32_t>(job.gpus.size());
        opt.algorithm = w.algorithm;
        opt.protocol = w.protocol;
        dag = workload::import_chakra(t.file, opt);
        job.training_source = "chakra: " + t.file;
      } else {
        workload::check_transformer(t.transformer, static_cast<uint32_t>(job.gpus.size()));
        workload::TransformerStep step =
            workload::make_transformer_step(t.transformer, static_cast<uint32_t>(job.gpus.size()));
        for (double f : step.op_flops) job.training_flops += f;
        job.samples = static_cast<double>(t.transformer.micro_batch) * step.micro_batches * step.dp;
        dag = std::move(step.dag);
        job.training_source = "transformer";
      }
      workload::CollectiveDefaults defaults;
      defaults.algorithm = w.algorithm;
      defaults.protocol = w.protocol;
      defaults.channels = w.channels;
      const uint32_t ranks = dag.ranks;
      job.training = std::make_unique<workload::TrainingEngine>(
          std::move(dag), job.gpus, coll_, rt_, static_cast<uint32_t>(j), defaults, t.steps);
      // Each job its own draws: the scenario's seed and the job's index.
      job.training->set_compute_variation(workload::ComputeVariationModel(
          t.variation, ranks, sc.seed ^ (static_cast<uint64_t>(j) * 0xA24BAED4963EE407ull)));
      total_units_ += job.training->total_ops();
      add_dag_units(job.training->dag(), job.gpus, gpn, std::max(1, t.steps));
    } else {
      throw InputError(sc.jobs.empty() ? "workload.kind" : "jobs[" + std::to_string(j) + "].workload.kind",
                       "a GPU scenario runs collectives or training steps; flow patterns run on "
                       "NICs (node.gpus_per_node: 0)");
    }
    jobs_.push_back(std::move(job));
  }
  rt_.on_timer = [this](uint64_t cookie) {
    if (workload::TrainingEngine::owns_cookie(cookie)) {
      jobs_[workload::TrainingEngine::cookie_job(cookie)].training->on_timer(cookie);
    } else {
      coll_.on_timer(cookie);
    }
    poll_training();
  };
}

void GpuWorkload::start() {
  // Installed at start, not construction: a test may build the simulation and drive the node
  // layer itself without ever starting the workload.
  // A collective finishing (inside the engine's callbacks) may release training ops and end a
  // training job: the training jobs are checked after every callback (a handful of jobs).
  rt_.on_arrived = [this](uint64_t cookie) {
    coll_.on_arrived(cookie);
    poll_training();
  };
  for (uint32_t j = 0; j < jobs_.size(); ++j) {
    Job& job = jobs_[j];
    job.start_ps = rt_.now_ps();
    if (job.training) {
      job.training->start();
    } else {
      start_size(j, 0);
    }
  }
  poll_training();  // a job of compute alone may already be done
}

void GpuWorkload::poll_training() {
  for (uint32_t j = 0; j < jobs_.size(); ++j) {
    Job& job = jobs_[j];
    if (!job.training || job.finished) continue;
    const uint64_t done_ops = job.training->finished_ops();
    finished_units_ += done_ops - job.units_counted;
    job.units_counted = done_ops;
    if (job.training->done()) finish_job(j);
  }
}

void GpuWorkload::start_size(uint32_t j, size_t index) {
  Job& job = jobs_[j];
  job.coll_ids.push_back(coll_.start(collective_spec(job, job.sizes[index]),
                                     [this, j, index](uint32_t) { on_collective_done(j, index); }));
}

void GpuWorkload::on_collective_done(uint32_t j, size_t index) {
  ++finished_units_;
  Job& job = jobs_[j];
  if (index + 1 < job.sizes.size()) {
    start_size(j, index + 1);  // nccl-tests runs the sizes one after another
  } else {
    finish_job(j);
  }
}

void GpuWorkload::finish_job(uint32_t j) {
  Job& job = jobs_[j];
  job.finished = true;
  job.end_ps = rt_.now_ps();
  ++jobs_done_;
}

void GpuWorkload::fill(RunResult& r) const {
  for (const Job& job : jobs_) {
    JobResult jr;
    jr.name = job.name;
    jr.placement = job.placement;
    jr.gpus = job.gpus;
    jr.start_ps = job.start_ps;
    jr.end_ps = job.end_ps;
    for (uint32_t id : job.coll_ids) {
      const workload::CollectiveRecord& rec = coll_.record(id);
      CollectiveRow row;
      row.op = workload::name(rec.op);
      row.algorithm = workload::name(rec.algorithm);
      row.protocol = workload::name(rec.protocol);
      row.channels = rec.channels;
      row.ranks = rec.ranks;
      row.size_bytes = rec.size_bytes;
      row.type = job.spec.data_type;
      const int64_t per_rank_divisor =
          rec.op == CollOp::kAllGather || rec.op == CollOp::kReduceScatter ||
                  rec.op == CollOp::kAllToAll
              ? rec.ranks
              : 1;
      row.count = rec.size_bytes / element_bytes(row.type) / per_rank_divisor;
      row.redop = is_reduction(rec.op) ? "sum" : "none";
      row.root = rec.op == CollOp::kBroadcast || rec.op == CollOp::kReduce ? job.spec.root : -1;
      if (rec.end_ps >= 0) {
        row.time_ps = rec.end_ps - rec.start_ps;
        row.algbw_gbytes_per_s =
            static_cast<double>(rec.size_bytes) / (static_cast<double>(row.time_ps) * 1e-12) * 1e-9;
        row.busbw_gbytes_per_s = row.algbw_gbytes_per_s * workload::busbw_factor(rec.op, rec.ranks);
      }
      jr.collectives.push_back(row);
    }
    if (job.training) {
      TrainingResult& t = jr.training;
      t.present = true;
      t.source = job.training_source;
      t.gpus = static_cast<int>(job.gpus.size());
      const bool finished = job.training->done();
      t.ops_finished = job.training->finished_ops();
      t.ops_total = job.training->total_ops();
      t.elapsed_ps = (finished ? job.end_ps : rt_.now_ps()) - job.start_ps;
      if (!finished) {
        fill_unfinished_step(job.training->result(), t);
      } else {
        const workload::TrainingResult tr = job.training->result();
        t.step_time_ps = tr.step_ps;
        t.compute_ps = tr.compute_ps;
        t.exposed_comm_ps = tr.exposed_comm_ps;
        if (job.training_flops > 0 && tr.step_ps > 0) {
          t.tflops_per_gpu = job.training_flops / (static_cast<double>(tr.step_ps) * 1e-12) /
                             static_cast<double>(job.gpus.size()) * 1e-12;
        }
        t.samples_per_step = job.samples;
        if (!tr.stages.empty()) {
          t.has_breakdown = true;
          t.breakdown = breakdown_result(tr.critical.per_step(tr.steps));
          for (const workload::StepBreakdown& b : tr.stages) {
            t.stages.push_back(breakdown_result(b.per_step(tr.steps)));
          }
        }
        for (int p = 0; p < workload::kPhases; ++p) {
          if (tr.comm_count[p] == 0) continue;
          PhaseComm pc;
          pc.phase = workload::name(static_cast<workload::Phase>(p));
          pc.collectives = tr.comm_count[p];
          pc.bytes = tr.comm_bytes[p];
          pc.time_ps = tr.comm_ps[p];
          t.comm.push_back(pc);
        }
        add_step_detail(*job.training, coll_, job.start_ps, t);
      }
    }
    r.jobs.push_back(std::move(jr));
  }
  // The first job's first collective is also the run's `collective` (compare, summary).
  if (!r.jobs.empty() && !r.jobs[0].collectives.empty()) {
    const CollectiveRow& row = r.jobs[0].collectives[0];
    r.collective.present = true;
    r.collective.op = row.op;
    r.collective.algorithm = row.algorithm;
    r.collective.ranks = row.ranks;
    r.collective.size_bytes = row.size_bytes;
    r.collective.time_ps = row.time_ps;
    r.collective.algbw_gbytes_per_s = row.algbw_gbytes_per_s;
    r.collective.busbw_gbytes_per_s = row.busbw_gbytes_per_s;
  }
}

void GpuWorkload::take_trace(workload::TraceLog& out, int64_t end_ps) {
  if (!trace_) return;
  trace_->close_running(end_ps);
  workload::TraceLog& log = trace_->log();
  const uint32_t gpn = rt_.gpus_per_node();
  // Compute spans: each compute op of each training step on its rank's compute stream.
  for (const Job& job : jobs_) {
    if (!job.training) continue;
    const workload::TrainingEngine& t = *job.training;
    const workload::Dag& dag = t.dag();
    const uint32_t per_step = static_cast<uint32_t>(dag.ops.size());
    for (uint32_t op = 0; op < t.total_ops(); ++op) {
      const workload::DagOp& base = dag.ops[op % per_step];
      if (base.kind != workload::DagOp::Kind::kCompute || t.op_start_ps(op) < 0) continue;
      workload::TraceSpan s;
      s.start_ps = t.op_start_ps(op);
      s.unfinished = t.op_end_ps(op) < 0;
      s.end_ps = s.unfinished ? end_ps : t.op_end_ps(op);
      s.rank = job.gpus[base.rank];
      s.host = s.rank / gpn;
      s.name = log.label(workload::name(base.phase));
      s.index = op / per_step;
      s.cat = workload::TraceCat::kCompute;
      log.spans.push_back(s);
    }
  }
  log.enabled = true;
  log.sim_end_ps = end_ps;
  out = std::move(log);
}

}  // namespace fabricsim::scenario
