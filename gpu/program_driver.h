// The program driver: the one Executor implementation, shared by every backend. It walks a
// compiled program in order and does all the host-side work once — refusing unsafe programs
// and ops the backend lacks, allocating and freeing exactly where the program says and
// counting those bytes (dtype x shape, never Buffer::bytes) per category, initialising
// parameters, master weights and input data from the seed, binding each instruction's
// buffers to the op's operands and dispatching to the backend's entry for the op kind,
// reading back losses and gradients, timing, cancellation — so that a backend only supplies
// memory, copies, kernels and timers (backend.h).
#pragma once

#include <memory>

#include "backend.h"
#include "executor.h"

namespace remat {

class ProgramDriver final : public Executor {
public:
    explicit ProgramDriver(std::unique_ptr<Backend> backend);
    ~ProgramDriver() override;

    std::string name() const override;
    Result<Measurement> execute(const Graph& graph, const Program& program,
                                const ExecuteOptions& options) override;

    Backend& backend() { return *m_backend; }

private:
    std::unique_ptr<Backend> m_backend;
};

// Refusals the driver applies before running anything, exposed so a UI can say why a run is
// not possible without trying it: an unsafe program without allowUnsafe, or an op the
// backend does not implement ("the CPU executor cannot run conv2d (layer 0) yet").
Status checkRunnable(const Backend& backend, const Graph& graph, const Program& program,
                     bool allowUnsafe);

}  // namespace remat
