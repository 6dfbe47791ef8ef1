// The MPI checks' shared random seed: rank 0's (SCANGEN_TEST_SEED, else a
// fresh one), broadcast so that every rank draws the same whole array.
#pragma once

#include <mpi.h>

#include <cstdlib>
#include <random>

namespace scangen::test {

inline unsigned long long rank_seed(MPI_Comm comm, int rank) {
  unsigned long long seed = 0;
  if (rank == 0) {
    const char* env = std::getenv("SCANGEN_TEST_SEED");
    seed = env && *env ? std::strtoull(env, nullptr, 0) : std::random_device{}();
  }
  MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  return seed;
}

}  // namespace scangen::test
