// The one error type CUDA and cuBLAS failures are reported with. Every CUDA runtime call, cuBLAS
// call and kernel launch in gpu/cuda is checked; a failure throws CudaError carrying the file,
// the line and the call's text, and the CUDA backend catches it at its public boundary and
// turns it into a remat::Result, so nothing above gpu/cuda ever sees an exception and the
// process keeps running. This header includes no CUDA header so the backend's public header can
// name the type.
#pragma once

#include <stdexcept>
#include <string>

namespace remat::gpu {

enum class CudaErrorKind {
    Runtime,       // a CUDA runtime call or kernel launch failed
    Blas,          // a cuBLAS call failed
    OutOfMemory,   // cudaMallocAsync could not satisfy a request
    Precondition,  // a launcher was called with operands it cannot handle
};

class CudaError : public std::runtime_error {
public:
    CudaError(CudaErrorKind kind, int code, std::string codeName, std::string call,
              const char* file, int line)
        : std::runtime_error(compose(codeName, code, call, file, line)),
          m_kind(kind),
          m_code(code),
          m_codeName(std::move(codeName)),
          m_call(std::move(call)),
          m_file(file),
          m_line(line) {}

    CudaErrorKind kind() const { return m_kind; }
    int code() const { return m_code; }
    const std::string& codeName() const { return m_codeName; }
    const std::string& call() const { return m_call; }
    const std::string& file() const { return m_file; }
    int line() const { return m_line; }

private:
    static std::string compose(const std::string& codeName, int code, const std::string& call,
                               const char* file, int line) {
        std::string f(file);
        // Only the path below the repository's gpu/ folder: enough to find the line.
        if (auto p = f.rfind("gpu/"); p != std::string::npos) f = f.substr(p);
        return codeName + " (" + std::to_string(code) + ") in " + call + " at " + f + ":" +
               std::to_string(line);
    }

    CudaErrorKind m_kind;
    int m_code;
    std::string m_codeName;
    std::string m_call;
    std::string m_file;
    int m_line;
};

}  // namespace remat::gpu
