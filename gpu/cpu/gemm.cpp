#include "gemm.h"

#include <sys/mman.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "report.h"
#include "thread_pool.h"

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
    std::atomic<int> buffersObtained{0};  // concurrent GEMMs whose buffers OpenBLAS holds
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

Status noBufferError(int error, int buffers) {
    std::string why = "the system refused the mapping: " + std::string(std::strerror(error));
    rlimit limit{};
    if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
        why = "this process's address-space limit (ulimit -v) is " +
              formatBytes(std::int64_t(limit.rlim_cur));
        if (const std::int64_t mapped = mappedBytes(); mapped >= 0)
            why += ", of which " + formatBytes(mapped) + " is mapped already";
    }
    const std::string what =
        buffers == 1 ? formatBytes(kOpenBlasBufferBytes) + " of address space for its GEMM work buffer"
                     : formatBytes(kOpenBlasBufferBytes * buffers) + " of address space for " +
                           std::to_string(buffers) + " more GEMM work buffers (one per thread)";
    return makeError("OpenBLAS needs " + what + " and cannot get it (" + why +
                     "); raise the limit, free memory or use fewer threads");
}

// OpenBLAS maps a work buffer at a GEMM's start when every buffer it holds is in use by
// another call, and retries a failed mapping forever. Map the missing buffers' size first:
// if that fails, say so; if it succeeds, let OpenBLAS take them at once with GEMMs running
// side by side on `calls` threads, before the program's own buffers use the space. It keeps
// them for the life of the process, so this happens once per thread count reached.
Status obtainBuffers(OpenBlas& lib, int calls) {
    std::lock_guard lock(lib.bufferMutex);
    const int have = lib.buffersObtained.load();
    if (have >= calls) return Ok{};
    const int missing = calls - have;
    std::vector<void*> maps;
    int error = 0;
    for (int i = 0; i < missing && error == 0; ++i) {
        void* p = ::mmap(nullptr, std::size_t(kOpenBlasBufferBytes), PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) error = errno;
        else maps.push_back(p);
    }
    for (void* p : maps) ::munmap(p, std::size_t(kOpenBlasBufferBytes));
    if (error != 0) return noBufferError(error, missing);
    if (calls == 1) {
        float a[4] = {1, 0, 0, 1}, b[4] = {1, 2, 3, 4}, c[4] = {};
        lib.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
    } else {
        // Every thread keeps calling until all have entered at least once and a few
        // milliseconds have passed, so that the calls overlap and each holds a buffer.
        constexpr int n = 96;
        std::atomic<int> entered{0};
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(5);
        auto work = [&] {
            std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n, 0.0f);
            bool counted = false;
            do {
                if (!counted) entered.fetch_add(1), counted = true;
                lib.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n,
                          b.data(), n, 0.0f, c.data(), n);
            } while (entered.load() < calls || std::chrono::steady_clock::now() < until);
        };
        std::vector<std::thread> threads;
        for (int i = 1; i < calls; ++i) threads.emplace_back(work);
        work();
        for (auto& t : threads) t.join();
    }
    lib.buffersObtained = calls;
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

Status prepareGemm(int concurrentCalls) {
#ifdef REMAT_HAVE_OPENBLAS
    concurrentCalls = std::max(concurrentCalls, 1);
    OpenBlas& lib = openBlas();
    if (lib.buffersObtained.load() >= concurrentCalls) return Ok{};
    std::call_once(lib.loadOnce, [&] { load(lib); });
    if (!lib.loadError.empty()) return makeError(lib.loadError);
    return obtainBuffers(lib, concurrentCalls);
#else
    (void)concurrentCalls;
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
    if (lib.buffersObtained.load() == 0) {
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

void parallelSgemm(ThreadPool& pool, Transpose transA, Transpose transB, std::int64_t m,
                   std::int64_t n, std::int64_t k, float alpha, const float* a, std::int64_t lda,
                   const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) {
    if (m <= 0 || n <= 0) return;
    const std::int64_t rowTiles = (m + kGemmTileRows - 1) / kGemmTileRows;
    const std::int64_t colTiles = (n + kGemmTileCols - 1) / kGemmTileCols;
    if (2.0 * double(m) * double(n) * double(k) < kGemmSerialFlops || rowTiles * colTiles == 1) {
        sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
    const bool ta = transA == Transpose::Yes, tb = transB == Transpose::Yes;
    pool.run(rowTiles * colTiles, [&](std::int64_t tile) {
        const std::int64_t i0 = (tile / colTiles) * kGemmTileRows;
        const std::int64_t j0 = (tile % colTiles) * kGemmTileCols;
        const std::int64_t rows = std::min(kGemmTileRows, m - i0);
        const std::int64_t cols = std::min(kGemmTileCols, n - j0);
        // Rows i0.. of op(A) and columns j0.. of op(B), the whole reduction dimension.
        const float* aTile = ta ? a + i0 : a + i0 * lda;
        const float* bTile = tb ? b + j0 * ldb : b + j0;
        sgemm(transA, transB, rows, cols, k, alpha, aTile, lda, bTile, ldb, beta,
              c + i0 * ldc + j0, ldc);
    });
}

void configureGemmLibrary() {
#ifdef REMAT_HAVE_OPENBLAS
    OpenBlas& lib = openBlas();
    if (lib.buffersObtained.load() > 0 && lib.setThreads) lib.setThreads(1);
#endif
}

std::string gemmLibraryName() {
#ifdef REMAT_HAVE_OPENBLAS
    OpenBlas& lib = openBlas();
    if (lib.buffersObtained.load() == 0 || !lib.config) return "OpenBLAS, 1 thread per call";
    return std::string(lib.config()) + ", 1 thread per call";
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
