// The CPU backend's threads: a small pool of std::threads that runs a loop of independent
// tasks on every core, the calling thread included. It carries no numerical policy of its
// own — determinism comes from how the kernels cut their work: a task's boundaries and the
// operations inside it are a function of the problem's shape only, never of the thread
// count, and no two tasks write one element (so "which thread ran task 7" cannot change a
// bit). `forEachChunk` is the one helper the kernels use for that: fixed chunks of a range.
//
// The thread count defaults to the cores the process may use; REMAT_CPU_THREADS overrides the
// default (tests), and a caller may fix it (`remat run --threads N`). A pool of one thread
// runs everything on the caller and starts no thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace remat::cpu {

// The thread count a pool gets when none is asked for: REMAT_CPU_THREADS when it is a
// number from 1 to kMaxThreads, else the cores this process may run on (its CPU affinity on
// Linux, else std::thread::hardware_concurrency()), at least 1 and at most kMaxThreads.
int defaultThreadCount();
inline constexpr int kMaxThreads = 256;

class ThreadPool {
public:
    // `threads` <= 0: defaultThreadCount(); clamped to kMaxThreads.
    explicit ThreadPool(int threads = 0);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int threads() const { return m_threads; }

    // Runs task(i) once for every i in [0, tasks) and returns when all have finished. Tasks
    // are taken in index order by whichever thread is free. When tasks throw, the exception
    // of the lowest-numbered failing task is rethrown here (the others still run to the
    // end). Not re-entrant: a task must not call run() on the same pool.
    void run(std::int64_t tasks, const std::function<void(std::int64_t)>& task);

private:
    void workerLoop();
    void drain(std::unique_lock<std::mutex>& lock);

    int m_threads = 1;
    std::vector<std::thread> m_workers;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    std::uint64_t m_generation = 0;
    bool m_stopping = false;
    // The job in flight.
    const std::function<void(std::int64_t)>* m_task = nullptr;
    std::int64_t m_tasks = 0;
    std::int64_t m_next = 0;      // next task index to take (under m_mutex)
    std::int64_t m_finished = 0;  // tasks finished (under m_mutex)
    int m_busyWorkers = 0;        // workers inside the current job (under m_mutex)
    std::int64_t m_failedTask = -1;
    std::exception_ptr m_failure;
};

// Runs body(begin, end) over [0, n) cut into chunks of `chunk` elements (the last one
// shorter): chunk k is [k * chunk, min(n, (k + 1) * chunk)). The cut depends on n and chunk
// only, so a body whose chunks are independent gives the same bits with any thread count.
void forEachChunk(ThreadPool& pool, std::int64_t n, std::int64_t chunk,
                  const std::function<void(std::int64_t, std::int64_t)>& body);

// Chunk sizes the kernels use (elements or rows): large enough that a chunk outweighs the
// cost of handing it to a thread, small enough to balance a few cores on mid-sized tensors.
inline constexpr std::int64_t kElementChunk = 16384;
// Rows per chunk for a row-wise kernel of `width` elements a row: about kElementChunk
// elements, at least one row.
inline std::int64_t rowChunk(std::int64_t width) {
    return width >= kElementChunk ? 1 : kElementChunk / (width > 0 ? width : 1);
}

}  // namespace remat::cpu
