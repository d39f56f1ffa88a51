// Which backends this build has and how to make one by name ("cpu", "cuda"): the single
// place where the CUDA backend is wired in, under REMAT_HAVE_CUDA (defined by
// gpu/CMakeLists.txt only when the CUDA target is built), so callers never name a backend
// class and the CLI and GUI build identically with or without nvcc.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend.h"
#include "executor.h"
#include "result.h"

namespace remat {

// Backends compiled into this build, in display order: "cpu", then "cuda" when built.
std::vector<std::string> availableBackends();

// A ready backend. "cuda" without the CUDA build, or without a usable driver or device, is
// an error whose message starts with "no GPU: " and gives the reason. `cpuThreads` is the
// CPU backend's thread count (<= 0: its default, every core or REMAT_CPU_THREADS); other
// backends ignore it.
Result<std::unique_ptr<Backend>> makeBackend(const std::string& name, int cpuThreads = 0);

// makeBackend wrapped in the program driver.
Result<std::unique_ptr<Executor>> makeExecutor(const std::string& name, int cpuThreads = 0);

#ifdef REMAT_HAVE_CUDA
// Defined by the CUDA backend (gpu/cuda/). Probes the driver and device; on failure returns
// "no GPU: <name> (<code>)" and never aborts.
Result<std::unique_ptr<Backend>> makeCudaBackend();
#endif

}  // namespace remat
