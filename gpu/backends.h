// Which backends this build has and how to make one by name ("cpu", "cuda"): the single
// place where the CUDA backend is wired in, so callers never name a backend class and the CLI
// and GUI build identically with or without nvcc. The CUDA backend lives in a plugin loaded
// on first use (cuda_plugin.h); REMAT_HAVE_CUDA is defined (by gpu/CMakeLists.txt) when this
// build makes that plugin.
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

// A ready backend. "cuda" without the CUDA plugin, or without a usable driver or device, is
// an error whose message starts with "CUDA backend unavailable: " and gives the reason.
// `cpuThreads` is the CPU backend's thread count (<= 0: its default, every core or
// REMAT_CPU_THREADS); other backends ignore it.
Result<std::unique_ptr<Backend>> makeBackend(const std::string& name, int cpuThreads = 0);

// makeBackend wrapped in the program driver.
Result<std::unique_ptr<Executor>> makeExecutor(const std::string& name, int cpuThreads = 0);

}  // namespace remat
