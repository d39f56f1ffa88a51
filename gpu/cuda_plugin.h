// The CUDA executor is a plugin: gpu/cuda/ builds the shared module libremat_cuda.so, which
// `remat`, `remat-studio` and the tests load with dlopen the first time a CUDA backend is asked
// for. Nothing else links cuBLAS or the CUDA runtime, so every program starts without them
// (cuBLAS alone costs hundreds of milliseconds and megabytes at load) and one build runs on
// machines with and without a GPU or a CUDA toolkit.
//
// This header is the whole contract between the two sides: the module's file name, where it
// is looked for, and its two C entry points. It includes no CUDA header.
//
// Where: $REMAT_CUDA_PLUGIN (a file) when set, else kCudaPluginRelDir relative to the
// directory of the running executable — the same relative path in the build tree (build/app/
// and build/tests/ → build/lib/remat/) and in an installed tree (bin/ → lib/remat/).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "backend.h"
#include "result.h"

// The module's ABI tag: the project version and an interface number that changes whenever
// Backend, OpCall or anything else the module shares with the program changes layout. The
// loader refuses a module whose tag differs (a plugin left over from another build).
#define REMAT_CUDA_PLUGIN_INTERFACE "remat-cuda-plugin/1"

extern "C" {
// Returns the module's ABI tag (static storage).
using RematCudaPluginTagFn = const char* (*)();
// Makes a CUDA backend on device 0. On success returns a backend the caller owns (delete
// through Backend's virtual destructor); on failure returns nullptr and writes the reason
// (NUL-terminated, truncated to `errorSize`) into `error`.
using RematCudaPluginMakeFn = remat::Backend* (*)(char* error, std::size_t errorSize);
}

namespace remat {

inline constexpr const char* kCudaPluginFile = "libremat_cuda.so";
inline constexpr const char* kCudaPluginTagSymbol = "remat_cuda_plugin_tag";
inline constexpr const char* kCudaPluginMakeSymbol = "remat_cuda_plugin_make_backend";
// Every reason the CUDA backend cannot be had starts with this.
inline constexpr const char* kCudaUnavailable = "CUDA backend unavailable: ";

// The path the plugin is loaded from (whether or not a file is there).
std::string cudaPluginPath();

// A cheap first check that loads neither the plugin nor cuBLAS: empty when the NVIDIA driver's
// library (libcuda.so.1) can be loaded, else the reason it cannot (without a driver the backend
// cannot start either). For callers that probe in the background (the GUI's run panel), so
// that on machines without a driver no CUDA library is ever loaded.
std::string cudaDriverMissingReason();

// Loads the plugin once (later calls reuse it; it is never unloaded) and makes a backend.
// Errors read "CUDA backend unavailable: <reason>": no plugin in this build or at its path,
// a module that does not load (cuBLAS missing, wrong tag), no driver, no device.
Result<std::unique_ptr<Backend>> loadCudaBackend();

}  // namespace remat
