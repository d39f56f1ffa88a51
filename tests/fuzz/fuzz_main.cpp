// libFuzzer's entry for one target, chosen at build time (REMAT_FUZZ_TARGET: model, device, cli
// or hf; tests/fuzz/CMakeLists.txt builds one executable per target from this file). Inputs the
// target skips (over the work bound, or naming files the CLI target does not open) are
// returned as -1 so that libFuzzer does not keep them in the corpus.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fuzz_entries.h"

namespace {

const remat::fuzz::Target& target() {
    static const remat::fuzz::Target* t = [] {
        const auto* found = remat::fuzz::findTarget(REMAT_FUZZ_TARGET);
        if (!found) {
            std::fprintf(stderr, "unknown fuzz target %s\n", REMAT_FUZZ_TARGET);
            std::abort();
        }
        return found;
    }();
    return *t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto outcome =
        target().run(std::string_view(reinterpret_cast<const char*>(data), size));
    return outcome == remat::fuzz::Outcome::Skipped ? -1 : 0;
}
