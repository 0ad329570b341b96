// core/rank_exchange.h over MPI (FABRICSIM_MPI=ON): the only file that includes <mpi.h>,
// built alone as the module libfabricsim_mpi.so, which core/mpi_loader.cpp loads when an MPI
// launcher started the process.
// MPI_THREAD_SERIALIZED: a partitioned run's serial phase, which makes the collective calls,
// runs on whichever of the rank's threads reaches the window's barrier last (core/rank_run.h),
// never on two at once.
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
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
    MPI_Comm node;  // the ranks that share this machine's memory
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, &node);
    int local = 1;
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    local_size_ = static_cast<uint32_t>(local);
    send_counts_.resize(size_);
    recv_counts_.resize(size_);
    send_displs_.resize(size_);
    recv_displs_.resize(size_);
  }
  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }
  uint32_t local_size() const override { return local_size_; }

  // One MPI_Alltoall of fixed-size blocks carries each block whole when it fits (a window's
  // mail and frames usually do): its header says the block's size and the largest block its
  // sender sent anyone. Only when some block overflowed (every rank sees every sender's
  // header, so all agree) does a second collective, MPI_Alltoallv, carry the rest. The block
  // size follows the largest block of the last exchange (a power of two, from every header:
  // the same on all ranks). Two collectives per exchange (sizes, then bytes) cost a third of
  // the window's synchronization on the k=24 permutation.
  void exchange(const std::vector<std::vector<char>>& out,
                std::vector<std::vector<char>>& in) override {
    if (out.size() != size_) throw std::logic_error("MpiRanks: a block per rank");
    uint64_t largest = 0;
    for (const std::vector<char>& b : out) largest = std::max<uint64_t>(largest, b.size());
    const size_t inline_bytes = block_bytes_ - kHeader;
    send_.assign(block_bytes_ * size_, 0);
    for (uint32_t r = 0; r < size_; ++r) {
      char* at = send_.data() + block_bytes_ * r;
      const uint64_t header[2] = {out[r].size(), largest};
      std::memcpy(at, header, kHeader);
      if (!out[r].empty()) std::memcpy(at + kHeader, out[r].data(), std::min(out[r].size(), inline_bytes));
    }
    recv_.resize(block_bytes_ * size_);
    MPI_Alltoall(send_.data(), count(block_bytes_), MPI_BYTE, recv_.data(), count(block_bytes_),
                 MPI_BYTE, MPI_COMM_WORLD);
    in.resize(size_);
    uint64_t largest_anywhere = 0;
    for (uint32_t r = 0; r < size_; ++r) {
      uint64_t header[2];
      std::memcpy(header, recv_.data() + block_bytes_ * r, kHeader);
      const char* at = recv_.data() + block_bytes_ * r + kHeader;
      in[r].assign(at, at + std::min<uint64_t>(header[0], inline_bytes));
      in[r].resize(header[0]);
      largest_anywhere = std::max(largest_anywhere, header[1]);
    }
    if (largest_anywhere > inline_bytes) {  // the rest of the blocks that did not fit
      size_t total = 0, got = 0;
      for (uint32_t r = 0; r < size_; ++r) {
        send_counts_[r] = count(out[r].size() > inline_bytes ? out[r].size() - inline_bytes : 0);
        send_displs_[r] = count(total);
        total += static_cast<size_t>(send_counts_[r]);
        recv_counts_[r] = count(in[r].size() > inline_bytes ? in[r].size() - inline_bytes : 0);
        recv_displs_[r] = count(got);
        got += static_cast<size_t>(recv_counts_[r]);
      }
      rest_out_.resize(total);
      rest_in_.resize(got);
      for (uint32_t r = 0; r < size_; ++r) {
        if (send_counts_[r] > 0) {
          std::memcpy(rest_out_.data() + send_displs_[r], out[r].data() + inline_bytes,
                      static_cast<size_t>(send_counts_[r]));
        }
      }
      MPI_Alltoallv(rest_out_.data(), send_counts_.data(), send_displs_.data(), MPI_BYTE,
                    rest_in_.data(), recv_counts_.data(), recv_displs_.data(), MPI_BYTE,
                    MPI_COMM_WORLD);
      for (uint32_t r = 0; r < size_; ++r) {
        if (recv_counts_[r] > 0) {
          std::memcpy(in[r].data() + inline_bytes, rest_in_.data() + recv_displs_[r],
                      static_cast<size_t>(recv_counts_[r]));
        }
      }
    }
    // The next block size: room for the largest block just sent anywhere, 1 KiB to 64 KiB.
    size_t next = kMinBlock;
    while (next < largest_anywhere + kHeader && next < kMaxBlock) next *= 2;
    block_bytes_ = next;
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
  uint32_t local_size_ = 1;
  std::vector<int> send_counts_, recv_counts_, send_displs_, recv_displs_;
  std::vector<char> send_, recv_, rest_out_, rest_in_;
  static constexpr size_t kHeader = 2 * sizeof(uint64_t);
  static constexpr size_t kMinBlock = 1024;
  static constexpr size_t kMaxBlock = 64 * 1024;
  size_t block_bytes_ = kMinBlock;
};

}  // namespace fabricsim

// The module's entry points (core/mpi_loader.cpp looks them up by name).
extern "C" fabricsim::RankExchange* fabricsim_mpi_start(int* argc, char*** argv,
                                                        std::string* why) {
  // A rank waiting in a collective yields its core rather than spin on it, unless the user
  // said otherwise: the rank's own threads, or another program, may need the core (on this
  // 2-core machine, with other work running, spinning made the k=16 permutation at -np 2
  // 21.1 s against 5.7 s yielding; with idle cores a yield returns at once).
  ::setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
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
