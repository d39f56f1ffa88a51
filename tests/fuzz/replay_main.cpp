// `fuzz_replay TARGET PATH...`: feeds every file (directories are walked) to a fuzz target's
// entry function without libFuzzer, one input after the other, and prints each file with its
// outcome (and the message of a refusal) before the next. Built into the ordinary sanitizer
// build (tests/CMakeLists.txt), it makes the seed corpora and the reproducers of tests/data/bad
// a regression net under ASan and UBSan: a broken contract or a sanitizer report aborts with
// the file just named. Exit 0 when every file went through, 1 on a usage error or an
// unreadable file.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_entries.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: fuzz_replay model|device|cli|hf PATH...\n");
        return 1;
    }
    const remat::fuzz::Target* target = remat::fuzz::findTarget(argv[1]);
    if (!target) {
        std::fprintf(stderr, "fuzz_replay: unknown target '%s'\n", argv[1]);
        return 1;
    }
    std::vector<fs::path> files;
    for (int i = 2; i < argc; ++i) {
        const fs::path p(argv[i]);
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            for (const auto& entry : fs::recursive_directory_iterator(p))
                if (entry.is_regular_file()) files.push_back(entry.path());
        } else if (fs::is_regular_file(p, ec)) {
            files.push_back(p);
        } else {
            std::fprintf(stderr, "fuzz_replay: %s: not a file or directory\n", argv[i]);
            return 1;
        }
    }
    std::sort(files.begin(), files.end());
    std::map<remat::fuzz::Outcome, int> counts;
    for (const fs::path& file : files) {
        std::ifstream in(file, std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "fuzz_replay: cannot read %s\n", file.c_str());
            return 1;
        }
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::printf("%s %s: ", target->name.c_str(), file.c_str());
        std::fflush(stdout);
        const auto outcome = target->run(bytes);
        ++counts[outcome];
        std::printf("%s", std::string(remat::fuzz::outcomeName(outcome)).c_str());
        if (!remat::fuzz::lastMessage().empty())
            std::printf(": %s", remat::fuzz::lastMessage().substr(0, 300).c_str());
        std::printf("\n");
    }
    std::printf("%s: %zu files, %d accepted, %d rejected, %d skipped\n", target->name.c_str(),
                files.size(), counts[remat::fuzz::Outcome::Accepted],
                counts[remat::fuzz::Outcome::Rejected], counts[remat::fuzz::Outcome::Skipped]);
    return 0;
}
