// A plain-text table for terminal output: columns sized to their widest cell, numbers
// right-aligned.
#pragma once

#include <string>
#include <vector>

namespace remat::cli {

class TextTable {
public:
    explicit TextTable(std::vector<std::string> header) : m_header(std::move(header)) {}
    void addRow(std::vector<std::string> row) { m_rows.push_back(std::move(row)); }
    std::string render() const;

private:
    std::vector<std::string> m_header;
    std::vector<std::vector<std::string>> m_rows;
};

}  // namespace remat::cli
