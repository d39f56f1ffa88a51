#include "json_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "text.h"

namespace remat {

namespace {

// Closes a file descriptor on every path out.
class Fd {
public:
    explicit Fd(int fd) : m_fd(fd) {}
    ~Fd() {
        if (m_fd >= 0) ::close(m_fd);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// Depth of the deepest array or object in `text`, stopping as soon as it passes `limit`;
// brackets inside strings do not count.
int nestingDepth(const std::string& text, int limit) {
    int depth = 0;
    int deepest = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') ++i;
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = true;
        else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
            if (deepest > limit) return deepest;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

// nlohmann's what() starts with "[json.exception.parse_error.101] ", which means nothing to a
// user; the rest says where ("parse error at line 3, column 7: ...").
std::string withoutExceptionTag(std::string what) {
    if (auto close = what.find("] "); what.rfind("[json.exception.", 0) == 0 &&
                                      close != std::string::npos)
        what = what.substr(close + 2);
    return what;
}

}  // namespace

Result<std::string> readInputFile(const std::string& path, const std::string& what,
                                  std::size_t maxBytes) {
    const std::string shown = "'" + printable(path, 200) + "'";
    // O_NONBLOCK: opening a FIFO with no writer must not wait for one.
    Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0)
        return makeError("cannot open " + what + " " + shown + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        return makeError("cannot read " + what + " " + shown + ": " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) return makeError(what + " " + shown + " is a directory, not a file");
    if (!S_ISREG(st.st_mode))
        return makeError(what + " " + shown +
                         " is not a regular file (a device, FIFO or socket is never read)");
    if (static_cast<std::uint64_t>(st.st_size) > maxBytes)
        return makeError(what + " " + shown + " is " + std::to_string(st.st_size) +
                         " bytes; the largest accepted is " + mib(maxBytes));
    std::string data;
    data.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    // Read to the end even if the file grew, but never past the limit.
    for (;;) {
        if (got == data.size()) {
            if (data.size() >= maxBytes + 1) break;
            data.resize(std::min(maxBytes + 1, data.size() + 65536));
        }
        const ssize_t n = ::read(fd.get(), data.data() + got, data.size() - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            return makeError("cannot read " + what + " " + shown + ": " + std::strerror(errno));
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    if (got > maxBytes)
        return makeError(what + " " + shown + " is larger than the largest accepted (" +
                         mib(maxBytes) + ")");
    data.resize(got);
    return data;
}

Result<nlohmann::json> parseJsonText(const std::string& text, const std::string& origin,
                                     int maxDepth) {
    const std::string where = printable(origin, 200) + ": $: ";
    if (nestingDepth(text, maxDepth) > maxDepth)
        return makeError(where + "not accepted: arrays and objects nested deeper than " +
                         std::to_string(maxDepth) + " levels");
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::out_of_range& e) {
        return makeError(where + "not valid JSON: " + printable(withoutExceptionTag(e.what()), 200) +
                         " (numbers must fit in a double)");
    } catch (const nlohmann::json::exception& e) {
        return makeError(where + "not valid JSON: " + printable(withoutExceptionTag(e.what()), 200));
    }
}

}  // namespace remat
