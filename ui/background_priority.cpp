#include "background_priority.h"

#include <QThreadPool>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#endif

namespace remat::ui {
namespace {
constexpr int kBackgroundNice = 10;
}

void lowerThreadPriority() {
#ifdef __linux__
    static thread_local bool lowered = false;
    if (lowered) return;
    lowered = true;
    const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
    if (::getpriority(PRIO_PROCESS, tid) < kBackgroundNice)
        ::setpriority(PRIO_PROCESS, tid, kBackgroundNice);
#endif
}

int threadNiceValue() {
#ifdef __linux__
    errno = 0;
    const int nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)));
    return errno == 0 ? nice : 0;
#else
    return 0;
#endif
}

QThreadPool* newSerialPool() {
    auto* pool = new QThreadPool;
    pool->setMaxThreadCount(1);
    return pool;
}

}  // namespace remat::ui
