// core/rank_exchange.h over MPI (FABRICSIM_MPI=ON): the only file that includes <mpi.h>,
// built alone as the module libfabricsim_mpi.so, which core/mpi_loader.cpp loads when an MPI
// launcher started the process.
// MPI_THREAD_SERIALIZED: a partitioned run's serial phase, which makes the collective calls,
// runs on whichever of the rank's threads reaches the window's barrier last (core/rank_run.h),
// never on two at once.
#include <mpi.h>

#include <string>

#include "core/rank_exchange.h"

namespace fabricsim {

class MpiRanks final : public RankExchange {
 public:
  MpiRanks() {
    int r = 0, n = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    rank_ = static_cast<uint32_t>(r);
    size_ = static_cast<uint32_t>(n);
    send_counts_.resize(size_);
    recv_counts_.resize(size_);
    send_displs_.resize(size_);
    recv_displs_.resize(size_);
  }
  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }

  void exchange(const std::vector<std::vector<char>>& out,
                std::vector<std::vector<char>>& in) override {
    if (out.size() != size_) throw std::logic_error("MpiRanks: a block per rank");
    size_t total = 0;
    for (uint32_t r = 0; r < size_; ++r) {
      send_counts_[r] = count(out[r].size());
      send_displs_[r] = count(total);
      total += out[r].size();
    }
    send_.resize(total);
    for (uint32_t r = 0; r < size_; ++r) {
      if (!out[r].empty()) std::memcpy(send_.data() + send_displs_[r], out[r].data(), out[r].size());
    }
    // The sizes first, then the bytes: two collectives per exchange.
    MPI_Alltoall(send_counts_.data(), 1, MPI_INT, recv_counts_.data(), 1, MPI_INT, MPI_COMM_WORLD);
    size_t got = 0;
    for (uint32_t r = 0; r < size_; ++r) {
      recv_displs_[r] = count(got);
      got += static_cast<size_t>(recv_counts_[r]);
    }
    recv_.resize(got);
    MPI_Alltoallv(send_.data(), send_counts_.data(), send_displs_.data(), MPI_BYTE, recv_.data(),
                  recv_counts_.data(), recv_displs_.data(), MPI_BYTE, MPI_COMM_WORLD);
    in.resize(size_);
    for (uint32_t r = 0; r < size_; ++r) {
      in[r].assign(recv_.begin() + recv_displs_[r],
                   recv_.begin() + recv_displs_[r] + recv_counts_[r]);
    }
  }

  void all_gather(const void* mine, size_t bytes, std::vector<char>& all) override {
    all.resize(bytes * size_);
    MPI_Allgather(mine, count(bytes), MPI_BYTE, all.data(), count(bytes), MPI_BYTE,
                  MPI_COMM_WORLD);
  }

 private:
  static int count(size_t n) {
    if (n > static_cast<size_t>(INT32_MAX)) throw std::length_error("MpiRanks: block over 2 GiB");
    return static_cast<int>(n);
  }
  uint32_t rank_ = 0;
  uint32_t size_ = 1;
  std::vector<int> send_counts_, recv_counts_, send_displs_, recv_displs_;
  std::vector<char> send_, recv_;
};

}  // namespace fabricsim

// The module's entry points (core/mpi_loader.cpp looks them up by name).
extern "C" fabricsim::RankExchange* fabricsim_mpi_start(int* argc, char*** argv,
                                                        std::string* why) {
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
    *why = "MPI_Init_thread failed";
    return nullptr;
  }
  if (provided < MPI_THREAD_SERIALIZED) {
    *why = "this MPI library does not support MPI_THREAD_SERIALIZED";
    MPI_Finalize();
    return nullptr;
  }
  return new fabricsim::MpiRanks();
}

extern "C" void fabricsim_mpi_stop(fabricsim::RankExchange* ranks) {
  delete ranks;
  MPI_Finalize();
}
