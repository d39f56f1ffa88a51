// Finding and loading the CUDA plugin (cuda_plugin.h): once per process, never unloaded.

#include "cuda_plugin.h"

#include <dlfcn.h>
#include <unistd.h>

#include <sys/stat.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

#ifndef REMAT_CUDA_PLUGIN_REL_DIR
#error "gpu/CMakeLists.txt defines REMAT_CUDA_PLUGIN_REL_DIR (the plugin's directory from bin/)"
#endif
#ifndef REMAT_VERSION
#error "gpu/CMakeLists.txt defines REMAT_VERSION"
#endif

namespace remat {

namespace {

std::string executableDir() {
    std::string buf(4096, '\0');
    const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
    if (n <= 0) return ".";
    buf.resize(std::size_t(n));
    const auto slash = buf.rfind('/');
    return slash == std::string::npos ? std::string(".") : buf.substr(0, slash);
}

struct Plugin {
    RematCudaPluginMakeFn make = nullptr;
    std::string error;  // why `make` is null
};

Plugin openPlugin() {
    Plugin p;
    const std::string path = cudaPluginPath();
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
#ifdef REMAT_HAVE_CUDA
        p.error = "the CUDA plugin " + path + " is not installed (" + std::strerror(errno) + ")";
#else
        p.error =
            "this build has no CUDA executor (nvcc was not found or REMAT_WITH_CUDA was "
            "off when it was configured), and no CUDA plugin is installed at " +
            path;
#endif
        return p;
    }
    // RTLD_LOCAL: the module's copies of the simulator's code and cuBLAS stay its own.
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = ::dlerror();
        p.error = "could not load the CUDA plugin: " + std::string(why ? why : path);
        return p;
    }
    auto tag = reinterpret_cast<RematCudaPluginTagFn>(::dlsym(handle, kCudaPluginTagSymbol));
    auto make = reinterpret_cast<RematCudaPluginMakeFn>(::dlsym(handle, kCudaPluginMakeSymbol));
    if (!tag || !make) {
        p.error = path + " is not a Remat Studio CUDA plugin (no " +
                  std::string(!tag ? kCudaPluginTagSymbol : kCudaPluginMakeSymbol) + ")";
        ::dlclose(handle);
        return p;
    }
    const std::string expected = REMAT_CUDA_PLUGIN_INTERFACE " " REMAT_VERSION;
    const std::string found = tag() ? tag() : "";
    if (found != expected) {
        // Not unloaded: its static constructors have run, and closing buys nothing.
        p.error = "the CUDA plugin " + path + " was built for '" + found + "', this program is '" +
                  expected + "'; install the plugin of the same build";
        return p;
    }
    p.make = make;
    return p;
}

}  // namespace

std::string cudaPluginPath() {
    if (const char* env = std::getenv("REMAT_CUDA_PLUGIN"); env && *env) return env;
    const std::filesystem::path path =
        std::filesystem::path(executableDir()) / REMAT_CUDA_PLUGIN_REL_DIR / kCudaPluginFile;
    return path.lexically_normal().string();
}

std::string cudaDriverMissingReason() {
    // Kept loaded: the plugin's CUDA runtime opens the same library when it starts.
    if (::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) return {};
    const char* why = ::dlerror();
    return "no NVIDIA driver (" + std::string(why ? why : "libcuda.so.1 cannot be loaded") + ")";
}

Result<std::unique_ptr<Backend>> loadCudaBackend() {
    static std::once_flag once;
    static Plugin plugin;
    std::call_once(once, [] { plugin = openPlugin(); });
    if (!plugin.make) return makeError(kCudaUnavailable + plugin.error);
    char why[1024] = {};
    Backend* backend = plugin.make(why, sizeof why);
    if (!backend) return makeError(kCudaUnavailable + std::string(why[0] ? why : "unknown reason"));
    return std::unique_ptr<Backend>(backend);
}

}  // namespace remat
