// What remat-studio does on a machine without a display (the README's first command there):
// prints the strategy comparison exactly as `remat compare MODEL` does, and writes the memory
// timeline and the memory-vs-time trade-off plot as PNG files into a folder, rendered
// offscreen. Returns the process exit code; errors are printed, never fatal.
#pragma once

#include <QString>

namespace remat::studio {

struct HeadlessJob {
    QString model;      // preset name or file path
    QString outputDir;  // created when missing
};

int runHeadlessJob(const HeadlessJob& job);

}  // namespace remat::studio
