// `fabricsim sweep FILE --param KEY=V1,V2,... [--param ...] [--seeds N] [--jobs J] [--out DIR]`
// [--slurm [--submit] [--sbatch ARG]...] and `fabricsim sweep --collect DIR` (docs/sweep.md): the cartesian product of the --param values, each point run with N seeds,
// every run a separate `fabricsim run` process of this binary, at most J at once.
//
// Seeds: the file's seed (after --set) is seed 0 of every point; seed i is that plus i (mod
// 2^64). So a one-seed sweep reproduces `fabricsim run FILE --set KEY=V` exactly, and adding
// seeds keeps the runs already made.
//
// Exit codes: 2 bad input (a --param key the registry does not know, a value that does not
// parse, a point the scenario checks refuse, a DIR that cannot be used: one line on stderr,
// nothing run); 0 every run succeeded; 1 at least one run failed (the failures are listed in the
// summary and in sweep.csv's status and error columns, and every other run's results are
// written all the same). Interrupted (SIGINT, SIGTERM): the running runs get the signal, the
// files are written with the rest as not_run, and the sweep ends by the signal (cli/interrupt.h).
#pragma once

#include <string>
#include <vector>

#include "cli/commands.h"

namespace fabricsim::cli {

struct SweepArgs : MemoryLimitArg {
  std::string file;
  std::vector<std::string> params;  // KEY=V1,V2,..., in command-line order
  std::vector<std::string> sets;    // applied to every point, before its --param values
  std::vector<std::string> unsets;
  int seeds = 1;
  int jobs = 0;         // 0 = the processors this process may use
  std::string out_dir;  // "" = outputs.dir + "-sweep"
  // On a Slurm cluster (cli/sweep_slurm.h): write job arrays instead of running here, submit
  // them, extra #SBATCH lines; or collect what the tasks of DIR wrote.
  bool slurm = false;
  bool submit = false;
  std::vector<std::string> sbatch_args;
  std::string collect_dir;
};

int sweep_command(const SweepArgs& args);

}  // namespace fabricsim::cli
