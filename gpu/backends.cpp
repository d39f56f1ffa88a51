#include "backends.h"

#include "cpu/cpu_backend.h"
#include "cuda_plugin.h"
#include "program_driver.h"

namespace remat {

std::vector<std::string> availableBackends() {
#ifdef REMAT_HAVE_CUDA
    return {"cpu", "cuda"};
#else
    return {"cpu"};
#endif
}

Result<std::unique_ptr<Backend>> makeBackend(const std::string& name, int cpuThreads) {
    if (name == "cpu") return std::unique_ptr<Backend>(std::make_unique<CpuBackend>(cpuThreads));
    if (name == "cuda") return loadCudaBackend();
    return makeError("unknown backend '" + name + "' (expected cpu or cuda)");
}

Result<std::unique_ptr<Executor>> makeExecutor(const std::string& name, int cpuThreads) {
    auto backend = makeBackend(name, cpuThreads);
    if (!backend) return backend.error();
    return std::unique_ptr<Executor>(std::make_unique<ProgramDriver>(std::move(*backend)));
}

}  // namespace remat
