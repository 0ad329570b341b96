// core/rank_exchange.h's entry points: the MPI backend is a module (libfabricsim_mpi.so, built
// next to the fabricsim executable when FABRICSIM_MPI is ON: core/mpi_exchange.cpp) that is
// loaded only when an MPI launcher started the process. Any other run neither loads nor maps
// Open MPI's libraries: its memory (and the pre-flight's estimate of it, which counts every
// mapped library's code) is what it was before MPI existed here (Open MPI's libraries are
// ~3 MiB of code), and a build without the module (FABRICSIM_MPI=OFF) is the same program.
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/rank_exchange.h"

namespace fabricsim {

namespace {

// The module's two functions (core/mpi_exchange.cpp).
using StartFn = RankExchange* (*)(int* argc, char*** argv, std::string* why);
using StopFn = void (*)(RankExchange* ranks);

RankExchange* g_ranks = nullptr;
StopFn g_stop = nullptr;

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"}) {
    if (std::getenv(v) != nullptr) return true;
  }
  return false;
}

// libfabricsim_mpi.so beside the running executable.
std::string module_path() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("libfabricsim_mpi.so")
            : (exe.parent_path() / "libfabricsim_mpi.so").string();
}

}  // namespace

RankExchange* process_ranks() { return g_ranks; }

bool start_process_ranks(int& argc, char**& argv, std::string& why) {
  if (g_ranks != nullptr || !launched_by_mpi()) return true;
  const std::string path = module_path();
  // RTLD_GLOBAL: Open MPI's own components, which it loads in turn, resolve its symbols.
  void* module = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (module == nullptr) {
    why = "started by an MPI launcher, but this fabricsim has no MPI backend (" + path +
          " not loaded: " + ::dlerror() +
          "; build with libopenmpi-dev installed and -DFABRICSIM_MPI=ON)";
    return false;
  }
  auto start = reinterpret_cast<StartFn>(::dlsym(module, "fabricsim_mpi_start"));
  g_stop = reinterpret_cast<StopFn>(::dlsym(module, "fabricsim_mpi_stop"));
  if (start == nullptr || g_stop == nullptr) {
    why = path + " is not fabricsim's MPI backend";
    return false;
  }
  g_ranks = start(&argc, &argv, &why);
  return g_ranks != nullptr;
}

void stop_process_ranks() {
  if (g_ranks == nullptr) return;
  g_stop(g_ranks);  // the module stays loaded: Open MPI's atexit handlers may still run
  g_ranks = nullptr;
}

}  // namespace fabricsim
