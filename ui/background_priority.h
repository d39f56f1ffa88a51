// Background work yields the processor to the window. The comparison, the trade-off curve and
// the freeing of superseded document states run on threads of their own; on a machine with two
// cores, an edit's frame (evaluation, plot, paint on the GUI thread) otherwise shares a core
// with them whenever more than one is running, and waits its turn. A thread that calls
// lowerThreadPriority() keeps running at full speed on an idle core but gives way to the GUI
// thread when they compete: on Linux its nice value becomes 10 (a tenth of the share of a
// normal thread); elsewhere the call does nothing. The nice value is per thread on Linux, so
// only the caller is affected, for the rest of its life: call it on threads that run nothing
// but background work.
#pragma once

class QThreadPool;

namespace remat::ui {

// Lowers the calling thread's scheduling priority (once; later calls are free).
void lowerThreadPriority();

// A pool of one thread for one kind of background work, so that its jobs run one at a time;
// it lives as long as the process (a job may outlive whoever started it).
QThreadPool* newSerialPool();

// The calling thread's nice value (0 for a normal thread), or 0 where threads have none.
int threadNiceValue();

}  // namespace remat::ui
