// The processes of one run started by mpirun or srun (issue 26 item 2): what a partitioned run
// needs of them, behind an interface so that nothing but core/mpi_exchange.cpp (a module loaded
// only under an MPI launcher: core/mpi_loader.cpp) sees MPI, and a build without MPI
// (FABRICSIM_MPI=OFF: no module) is the same program.
//
// Two collective operations are enough for the window loop across ranks (core/rank_run.h):
// exchange() sends each rank its own block of bytes (MPI_Alltoall of fixed-size blocks, and
// MPI_Alltoallv for what does not fit: the mailboxes, cut-cable frames and drop reports a
// window produced for partitions on that rank, with the sender's status), and all_gather()
// gives every rank every rank's fixed-size record (MPI_Allgather: the end test's and the next
// window's inputs when the statuses do not suffice, so that every rank decides alike).
// Blocks are plain bytes: every rank runs the same binary on the same architecture, so the
// trivially copyable records (core/partitions.h Mail, net::Packet) travel as they are in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace fabricsim {

class RankExchange {
 public:
  virtual ~RankExchange() = default;
  virtual uint32_t rank() const = 0;
  virtual uint32_t size() const = 0;
  // The ranks on this rank's machine (itself included): they compete for its cores.
  virtual uint32_t local_size() const = 0;
  // Collective: `out[r]` goes to rank r (this rank's own included); on return `in[r]` holds
  // what rank r sent here. Every rank must call it, in the same order as the other collectives.
  virtual void exchange(const std::vector<std::vector<char>>& out,
                        std::vector<std::vector<char>>& in) = 0;
  // Collective: every rank gives `bytes` bytes (the same count on every rank); `all` receives
  // size() x bytes, rank r's at r x bytes.
  virtual void all_gather(const void* mine, size_t bytes, std::vector<char>& all) = 0;
};

// The ranks of this process when it was started by an MPI launcher (mpirun, srun); nullptr
// otherwise (one process, as always). main() starts them (core/mpi_loader.cpp).
RankExchange* process_ranks();
// When the environment says an MPI launcher started the process (Open MPI's
// OMPI_COMM_WORLD_SIZE, PMIx's PMIX_RANK or PMI's PMI_SIZE), loads the MPI backend
// (libfabricsim_mpi.so beside the executable, FABRICSIM_MPI=ON) and initializes MPI; does
// nothing otherwise. Returns false with `why` set when MPI was asked for and cannot be had
// (no backend: a build without MPI).
bool start_process_ranks(int& argc, char**& argv, std::string& why);
// Finalizes MPI if start_process_ranks() initialized it.
void stop_process_ranks();

// Appends trivially copyable values to a block.
class ByteWriter {
 public:
  explicit ByteWriter(std::vector<char>& out) : out_(out) {}
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const size_t at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &v, sizeof(T));
  }
  template <class T>
  void put_all(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    put<uint64_t>(v.size());
    const size_t at = out_.size();
    out_.resize(at + v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(out_.data() + at, v.data(), v.size() * sizeof(T));
  }

 private:
  std::vector<char>& out_;
};

// Reads what a ByteWriter wrote, in the same order; a short block is a logic error.
class ByteReader {
 public:
  explicit ByteReader(const std::vector<char>& in) : in_(in) {}
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    need(sizeof(T));
    std::memcpy(&v, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  // Appends the vector put_all() wrote to `to`.
  template <class T>
  void get_all(std::vector<T>& to) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto n = static_cast<size_t>(get<uint64_t>());
    need(n * sizeof(T));
    const size_t first = to.size();
    to.resize(first + n);
    if (n > 0) std::memcpy(to.data() + first, in_.data() + at_, n * sizeof(T));
    at_ += n * sizeof(T);
  }
  bool done() const { return at_ == in_.size(); }

 private:
  void need(size_t n) const {
    if (at_ + n > in_.size()) throw std::logic_error("ByteReader: block too short");
  }
  const std::vector<char>& in_;
  size_t at_ = 0;
};

}  // namespace fabricsim
