// The CPU backend's thread pool (thread_pool.h).
#include "thread_pool.h"

#ifdef __linux__
#include <sched.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

namespace remat::cpu {

int defaultThreadCount() {
    if (const char* env = std::getenv("REMAT_CPU_THREADS")) {
        char* end = nullptr;
        const long v = std::strtol(env, &end, 10);
        if (end != env && *end == '\0' && v >= 1 && v <= kMaxThreads) return int(v);
    }
    // The cores this process may run on (taskset, a cpuset), else all the machine has.
    int cores = int(std::thread::hardware_concurrency());
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        cores = CPU_COUNT(&set);
#endif
    return std::clamp(cores, 1, kMaxThreads);
}

ThreadPool::ThreadPool(int threads) {
    m_threads = std::clamp(threads <= 0 ? defaultThreadCount() : threads, 1, kMaxThreads);
    m_workers.reserve(std::size_t(m_threads - 1));
    for (int i = 1; i < m_threads; ++i) m_workers.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    for (auto& t : m_workers) t.join();
}

// Takes and runs tasks of the current job until none is left; `lock` holds m_mutex on entry
// and on return.
void ThreadPool::drain(std::unique_lock<std::mutex>& lock) {
    while (m_task && m_next < m_tasks) {
        const std::int64_t i = m_next++;
        const auto* task = m_task;
        lock.unlock();
        std::exception_ptr failure;
        try {
            (*task)(i);
        } catch (...) {
            failure = std::current_exception();
        }
        lock.lock();
        if (failure && (m_failedTask < 0 || i < m_failedTask)) {
            m_failedTask = i;
            m_failure = failure;
        }
        if (++m_finished == m_tasks) m_done.notify_all();
    }
}

void ThreadPool::workerLoop() {
    std::uint64_t seen = 0;
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [&] { return m_stopping || m_generation != seen; });
        if (m_stopping) return;
        seen = m_generation;
        ++m_busyWorkers;
        drain(lock);
        if (--m_busyWorkers == 0) m_done.notify_all();
    }
}

void ThreadPool::run(std::int64_t tasks, const std::function<void(std::int64_t)>& task) {
    if (tasks <= 0) return;
    if (m_threads == 1 || tasks == 1) {
        // On the caller alone, with the same contract: every task runs, the first failure
        // is rethrown.
        std::exception_ptr first;
        for (std::int64_t i = 0; i < tasks; ++i) {
            try {
                task(i);
            } catch (...) {
                if (!first) first = std::current_exception();
            }
        }
        if (first) std::rethrow_exception(first);
        return;
    }
    std::unique_lock lock(m_mutex);
    m_task = &task;
    m_tasks = tasks;
    m_next = 0;
    m_finished = 0;
    m_failedTask = -1;
    m_failure = nullptr;
    ++m_generation;
    m_wake.notify_all();
    drain(lock);
    // Every task finished, and no worker still holds a pointer to this job.
    m_done.wait(lock, [&] { return m_finished == m_tasks && m_busyWorkers == 0; });
    m_task = nullptr;
    std::exception_ptr failure = std::exchange(m_failure, nullptr);
    lock.unlock();
    if (failure) std::rethrow_exception(failure);
}

void forEachChunk(ThreadPool& pool, std::int64_t n, std::int64_t chunk,
                  const std::function<void(std::int64_t, std::int64_t)>& body) {
    if (n <= 0) return;
    chunk = std::max<std::int64_t>(chunk, 1);
    const std::int64_t chunks = (n + chunk - 1) / chunk;
    pool.run(chunks, [&](std::int64_t k) { body(k * chunk, std::min(n, (k + 1) * chunk)); });
}

}  // namespace remat::cpu
