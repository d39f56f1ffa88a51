#include "gemm.h"

#include <sys/mman.h>
#include <sys/resource.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>

#include "report.h"

#ifdef REMAT_HAVE_CBLAS
#include <cblas.h>
#endif
#ifdef REMAT_HAVE_OPENBLAS
#include <dlfcn.h>
#endif

namespace {
#ifdef REMAT_HAVE_OPENBLAS
using BlasInt = blasint;
#else
using BlasInt = int;
#endif
}  // namespace

namespace remat::cpu {

namespace {

#ifdef REMAT_HAVE_OPENBLAS

// OpenBLAS's x86-64 BUFFER_SIZE (common_x86_64.h: 32 << 22) and the two pages alloc_mmap adds.
constexpr std::int64_t kOpenBlasBufferBytes = (std::int64_t{32} << 22) + 2 * 4096;

using SgemmFn = decltype(&cblas_sgemm);
using SetThreadsFn = void (*)(int);
using ConfigFn = char* (*)();

struct OpenBlas {
    std::once_flag loadOnce;
    std::string loadError;  // empty once loaded
    void* handle = nullptr;
    SgemmFn sgemm = nullptr;
    SetThreadsFn setThreads = nullptr;
    ConfigFn config = nullptr;
    std::mutex bufferMutex;
    std::atomic<bool> bufferObtained{false};
};

OpenBlas& openBlas() {
    static OpenBlas lib;
    return lib;
}

void load(OpenBlas& lib) {
    // One thread: no worker threads (each would map its own work buffer at start and spin
    // forever if it could not), and one summation order, so results are bitwise reproducible.
    setGemmLibraryEnvironment();
    std::string errors;
    for (const char* name : {"libopenblas.so.0", REMAT_OPENBLAS_LIBRARY}) {
        lib.handle = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (lib.handle) break;
        const char* e = ::dlerror();
        errors += std::string(errors.empty() ? "" : "; ") + (e ? e : name);
    }
    if (!lib.handle) {
        lib.loadError = "cannot load OpenBLAS (" + errors + ")";
        return;
    }
    lib.sgemm = reinterpret_cast<SgemmFn>(::dlsym(lib.handle, "cblas_sgemm"));
    lib.setThreads =
        reinterpret_cast<SetThreadsFn>(::dlsym(lib.handle, "openblas_set_num_threads"));
    lib.config = reinterpret_cast<ConfigFn>(::dlsym(lib.handle, "openblas_get_config"));
    if (!lib.sgemm || !lib.setThreads) {
        lib.loadError = "the OpenBLAS library found has no cblas_sgemm or openblas_set_num_threads";
        lib.sgemm = nullptr;
        return;
    }
    lib.setThreads(1);
}

// Bytes this process has mapped (VmSize), -1 when unknown.
std::int64_t mappedBytes() {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmSize:") {
            std::int64_t kib = -1;
            status >> kib;
            return kib < 0 ? -1 : kib * 1024;
        }
        status.ignore(1 << 12, '\n');
    }
    return -1;
}

Status noBufferError(int error) {
    std::string why = "the system refused the mapping: " + std::string(std::strerror(error));
    rlimit limit{};
    if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
        why = "this process's address-space limit (ulimit -v) is " +
              formatBytes(std::int64_t(limit.rlim_cur));
        if (const std::int64_t mapped = mappedBytes(); mapped >= 0)
            why += ", of which " + formatBytes(mapped) + " is mapped already";
    }
    return makeError("OpenBLAS needs " + formatBytes(kOpenBlasBufferBytes) +
                     " of address space for its GEMM work buffer and cannot get it (" + why +
                     "); raise the limit or free memory");
}

// OpenBLAS maps its work buffer at its first GEMM and retries a failed mapping forever. Map
// the same size first: if that fails, say so; if it succeeds, let OpenBLAS take its buffer
// at once with a tiny GEMM, before the program's own buffers use the space. It keeps the
// buffer for the life of the process, so this happens once.
Status obtainBuffer(OpenBlas& lib) {
    std::lock_guard lock(lib.bufferMutex);
    if (lib.bufferObtained.load()) return Ok{};
    void* p = ::mmap(nullptr, std::size_t(kOpenBlasBufferBytes), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return noBufferError(errno);
    ::munmap(p, std::size_t(kOpenBlasBufferBytes));
    float a[4] = {1, 0, 0, 1}, b[4] = {1, 2, 3, 4}, c[4] = {};
    lib.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
    lib.bufferObtained = true;
    return Ok{};
}

#endif

}  // namespace

void setGemmLibraryEnvironment() {
#ifdef REMAT_HAVE_OPENBLAS
    const char* threads = std::getenv("OPENBLAS_NUM_THREADS");
    if (!threads || std::strcmp(threads, "1") != 0) ::setenv("OPENBLAS_NUM_THREADS", "1", 1);
#endif
}

Status prepareGemm() {
#ifdef REMAT_HAVE_OPENBLAS
    OpenBlas& lib = openBlas();
    if (lib.bufferObtained.load()) return Ok{};
    std::call_once(lib.loadOnce, [&] { load(lib); });
    if (!lib.loadError.empty()) return makeError(lib.loadError);
    return obtainBuffer(lib);
#else
    return Ok{};
#endif
}

void sgemm(Transpose transA, Transpose transB, std::int64_t m, std::int64_t n, std::int64_t k,
           float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
           float beta, float* c, std::int64_t ldc) {
    if (m <= 0 || n <= 0) return;
#ifdef REMAT_HAVE_CBLAS
#ifdef REMAT_HAVE_OPENBLAS
    OpenBlas& lib = openBlas();
    if (!lib.bufferObtained.load()) {
        if (auto st = prepareGemm(); !st) throw GemmUnavailable(st.error().message);
    }
    const SgemmFn gemm = lib.sgemm;
#else
    const auto gemm = &cblas_sgemm;
#endif
    gemm(CblasRowMajor, transA == Transpose::Yes ? CblasTrans : CblasNoTrans,
         transB == Transpose::Yes ? CblasTrans : CblasNoTrans, BlasInt(m), BlasInt(n),
         BlasInt(k), alpha, a, BlasInt(lda), b, BlasInt(ldb), beta, c, BlasInt(ldc));
#else
    const bool ta = transA == Transpose::Yes, tb = transB == Transpose::Yes;
    for (std::int64_t i = 0; i < m; ++i) {
        float* ci = c + i * ldc;
        for (std::int64_t j = 0; j < n; ++j) ci[j] = beta == 0.0f ? 0.0f : beta * ci[j];
        for (std::int64_t p = 0; p < k; ++p) {
            const float av = alpha * (ta ? a[p * lda + i] : a[i * lda + p]);
            if (tb) {
                for (std::int64_t j = 0; j < n; ++j) ci[j] += av * b[j * ldb + p];
            } else {
                const float* bp = b + p * ldb;
                for (std::int64_t j = 0; j < n; ++j) ci[j] += av * bp[j];
            }
        }
    }
#endif
}

void configureGemmLibrary() {
#ifdef REMAT_HAVE_OPENBLAS
    OpenBlas& lib = openBlas();
    if (lib.bufferObtained.load() && lib.setThreads) lib.setThreads(1);
#endif
}

std::string gemmLibraryName() {
#ifdef REMAT_HAVE_OPENBLAS
    OpenBlas& lib = openBlas();
    if (!lib.bufferObtained.load() || !lib.config) return "OpenBLAS, 1 thread";
    return std::string(lib.config()) + ", 1 thread";
#elif defined(REMAT_HAVE_CBLAS)
    return "CBLAS";
#else
    return "built-in loops";
#endif
}

std::int64_t gemmLibraryBufferBytes() {
#ifdef REMAT_HAVE_OPENBLAS
    return kOpenBlasBufferBytes;
#else
    return 0;
#endif
}

}  // namespace remat::cpu
