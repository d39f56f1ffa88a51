// The plugin's two C entry points (gpu/cuda_plugin.h): its ABI tag and the backend factory.
// The only symbols the module exports; everything else in it is hidden.

#include <cstdio>
#include <exception>
#include <string>
#include <type_traits>

#include "cuda_backend.h"
#include "cuda_plugin.h"

#ifndef REMAT_VERSION
#error "gpu/cuda/CMakeLists.txt defines REMAT_VERSION"
#endif

namespace {

void writeError(char* error, std::size_t size, const std::string& message) {
    if (error && size > 0) std::snprintf(error, size, "%s", message.c_str());
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const char* remat_cuda_plugin_tag() {
    return REMAT_CUDA_PLUGIN_INTERFACE " " REMAT_VERSION;
}

extern "C" __attribute__((visibility("default"))) remat::Backend* remat_cuda_plugin_make_backend(
    char* error, std::size_t errorSize) {
    try {
        auto backend = remat::makeCudaBackend();
        if (!backend) {
            writeError(error, errorSize, backend.error().message);
            return nullptr;
        }
        return backend->release();
    } catch (const std::exception& e) {
        // No exception crosses the module boundary.
        writeError(error, errorSize, std::string("the CUDA backend could not start: ") + e.what());
        return nullptr;
    }
}

// The entry points must keep the types the loader casts them to.
static_assert(std::is_same_v<decltype(&remat_cuda_plugin_tag), RematCudaPluginTagFn>);
static_assert(std::is_same_v<decltype(&remat_cuda_plugin_make_backend), RematCudaPluginMakeFn>);
