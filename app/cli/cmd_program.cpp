// `remat program`: the compiled program, one instruction a line with the live bytes after it —
// the schedule a teacher steps through and the first thing to read when a figure surprises.
// With gradient accumulation the repeated body of the middle micro-steps is listed once, marked
// with how many times it runs.
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis.h"
#include "commands.h"
#include "common.h"
#include "parallel_eval.h"
#include "report.h"

namespace remat::cli {

namespace {

int runProgram(const CommonOptions& o) {
    auto c = resolve(o);
    if (!c) return userError(c.error().message);
    // A parallel layout: the program of the rank that peaks.
    Result<Evaluation> e = makeError("");
    if (!c->training.parallel.single()) {
        auto pe = evaluateParallel(c->model.network, c->strategy, c->manual, c->training,
                                   c->cluster);
        if (!pe) return userError(*c, pe.error().message);
        c->graph = std::move(pe->graph);
        e = std::move(pe->evaluation);
    } else {
        e = evaluate(c->graph, c->strategy, c->manual, c->training, c->device);
        if (!e) return userError(*c, e.error().message);
    }
    const Program& p = e->program;
    const Timeline& t = e->timeline;
    if (o.json) {
        nlohmann::json arr = nlohmann::json::array();
        for (std::size_t i = 0; i < p.instructions.size(); ++i) {
            const Instruction& ins = p.instructions[i];
            nlohmann::json live = nlohmann::json::object();
            for (Category cat : kAllCategories)
                live[std::string(categoryKey(cat))] = t.live[i][std::size_t(cat)];
            arr.push_back({{"index", i},
                           {"kind", instrKindName(ins.kind)},
                           {"phase", phaseName(ins.phase)},
                           {"micro_step", ins.microStep},
                           {"times", p.timesRun(i)},
                           {"text", describeInstruction(c->graph, p, i)},
                           {"time_s", t.durationS[i]},
                           {"live_bytes", totalBytes(t.live[i])},
                           {"live", live}});
        }
        std::cout << dumpJson(arr, 1) << "\n";
        return 0;
    }
    for (std::size_t i = 0; i < p.instructions.size(); ++i) {
        // A repeat's body is listed once, between two rulers; its times are all iterations'.
        if (p.repeat && i == p.repeat->begin)
            std::cout << "        -- " << repeatCaption(p) << ": instructions " << p.repeat->begin
                      << "-" << p.repeat->end - 1 << " run " << p.repeat->times
                      << " times --\n";
        if (p.repeat && i == p.repeat->end) std::cout << "        -- end of repeat --\n";
        std::cout << std::setw(6) << i << "  " << std::setw(10)
                  << phaseName(p.instructions[i].phase) << "  " << std::setw(12)
                  << formatBytes(totalBytes(t.live[i])) << "  "
                  << shown(describeInstruction(c->graph, p, i), kSentenceLimit)
                  << (i == t.peakInstruction ? "   <== peak" : "") << "\n";
    }
    for (const auto& r : p.unsafeReasons)
        std::cout << "UNSAFE: " << shown(r, kSentenceLimit) << "\n";
    for (const auto& r : p.mayDifferReasons)
        std::cout << "UNSAFE (may differ): " << shown(r, kSentenceLimit) << "\n";
    for (const auto& r : p.safeNotes) std::cout << "safe: " << shown(r, kSentenceLimit) << "\n";
    return 0;
}

}  // namespace

void addProgram(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand("program", "list the compiled program with live bytes");
    auto o = std::make_shared<CommonOptions>();
    addCommonOptions(*cmd, *o);
    cmd->callback([o, &exitCode] { exitCode = runProgram(*o); });
}

}  // namespace remat::cli
