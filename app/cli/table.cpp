#include "table.h"

#include <algorithm>

namespace remat::cli {

std::string TextTable::render() const {
    std::vector<std::size_t> width(m_header.size(), 0);
    auto measure = [&](const std::vector<std::string>& row) {
        for (std::size_t i = 0; i < row.size() && i < width.size(); ++i)
            width[i] = std::max(width[i], row[i].size());
    };
    measure(m_header);
    for (const auto& r : m_rows) measure(r);
    auto line = [&](const std::vector<std::string>& row, bool header) {
        std::string s;
        for (std::size_t i = 0; i < width.size(); ++i) {
            const std::string cell = i < row.size() ? row[i] : "";
            const std::string pad(width[i] - cell.size(), ' ');
            // First column (names) left-aligned, figures right-aligned.
            s += (i == 0 || header) ? cell + pad : pad + cell;
            if (i + 1 < width.size()) s += "  ";
        }
        while (!s.empty() && s.back() == ' ') s.pop_back();
        return s + "\n";
    };
    std::string out = line(m_header, true);
    std::size_t total = 0;
    for (auto w : width) total += w + 2;
    out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
    for (const auto& r : m_rows) out += line(r, false);
    return out;
}

}  // namespace remat::cli
