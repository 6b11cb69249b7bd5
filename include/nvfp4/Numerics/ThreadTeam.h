//===- ThreadTeam.h - Worker threads the library's kernels share -*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The threads of the library's parallel kernels (GEMM, quantize). Starting
// a thread costs tens of microseconds, comparable to a whole 512^3 GEMM's
// share of a core, so the kernels run on one process-wide team of threads
// that outlive each call: they spin briefly after a call, so that
// back-to-back calls (a model's GEMMs and quantizes) find them awake, then
// sleep.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_NUMERICS_THREADTEAM_H
#define NVFP4_NUMERICS_THREADTEAM_H

#include <functional>

namespace nvfp4 {

/// Runs `body(i)` for every i in [0, numThreads) concurrently, on
/// `numThreads` threads: the caller runs i = 0, the team's workers the
/// rest. Returns when every body has returned. The bodies may wait for each
/// other (barriers): each runs on its own thread. When the team is busy (a
/// call from another thread, or from inside a body), the call starts
/// threads of its own for the rest. numThreads <= 1 runs body(0) on the
/// caller.
void runOnThreads(int numThreads, const std::function<void(int)> &body);

} // namespace nvfp4

#endif // NVFP4_NUMERICS_THREADTEAM_H
