#include "strategy.h"

#include <cmath>
#include <set>

#include "optimal.h"
#include "optimal_budget.h"
#include "optimal_nested.h"
#include "revolve.h"
#include "text.h"

namespace remat {
namespace {

bool parseInt(const std::string& s, std::int64_t& out) {
    if (s.empty() || s.size() > 9) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    out = std::stoll(s);
    return true;
}

Status addModuleRegion(const Graph& g, ModuleId m, Plan& plan) {
    auto r = regionForModule(g, m);
    if (!r) return r.error();
    plan.regions.push_back(*r);
    return Ok{};
}

// Consecutive groups of k chain elements, each one region.
Result<Plan> groups(const Graph& g, std::int64_t k) {
    Plan plan;
    const auto& chain = g.chain;
    for (std::size_t i = 0; i < chain.size(); i += std::size_t(k)) {
        std::size_t j = std::min(chain.size(), i + std::size_t(k)) - 1;
        const Module& a = g.module(chain[i]);
        const Module& b = g.module(chain[j]);
        std::string label = i == j ? a.path : a.path + "-" + b.path;
        plan.regions.push_back(Region{a.firstOp, b.lastOp(), label, true});
    }
    return plan;
}

}  // namespace

std::string Strategy::spelling() const {
    switch (kind) {
        case StrategyKind::Manual: return "manual";
        case StrategyKind::None: return "none";
        case StrategyKind::Full: return "full";
        case StrategyKind::EveryK: return "every:" + std::to_string(k);
        case StrategyKind::Sqrt: return "sqrt";
        case StrategyKind::Selective: {
            std::string s = "selective:";
            for (std::size_t i = 0; i < kinds.size(); ++i) s += (i ? "," : "") + kinds[i];
            return s;
        }
        case StrategyKind::Optimal:
            return "optimal:" + (budgetText.empty() ? byteSizeSpelling(budgetBytes) : budgetText);
        case StrategyKind::OptimalNested:
            return "optimal-nested:" +
                   (budgetText.empty() ? byteSizeSpelling(budgetBytes) : budgetText);
        case StrategyKind::Revolve: return "revolve:" + std::to_string(k);
    }
    return "?";
}

Result<Strategy> parseStrategy(const std::string& text) {
    Strategy s;
    auto colon = text.find(':');
    std::string head = text.substr(0, colon);
    std::string arg = colon == std::string::npos ? "" : text.substr(colon + 1);
    auto noArg = [&](StrategyKind k) -> Result<Strategy> {
        if (colon != std::string::npos)
            return makeError("strategy '" + printable(head) + "' takes no argument");
        s.kind = k;
        return s;
    };
    if (head == "manual") return noArg(StrategyKind::Manual);
    if (head == "none") return noArg(StrategyKind::None);
    if (head == "full") return noArg(StrategyKind::Full);
    if (head == "sqrt") return noArg(StrategyKind::Sqrt);
    if (head == "every") {
        if (!parseInt(arg, s.k) || s.k < 1)
            return makeError("strategy 'every:K' needs a positive whole K, got '" +
                             printable(arg) + "'");
        s.kind = StrategyKind::EveryK;
        return s;
    }
    if (head == "selective") {
        static const std::set<std::string> known = {"attention", "attention_core", "mlp",
                                                    "shortcut"};
        std::size_t start = 0;
        while (start <= arg.size()) {
            auto comma = arg.find(',', start);
            std::string kind = arg.substr(start, comma == std::string::npos ? std::string::npos
                                                                           : comma - start);
            if (!known.count(kind))
                return makeError("strategy 'selective': unknown sub-module kind '" +
                                 printable(kind) +
                                 "' (known: attention, attention_core, mlp, shortcut)");
            s.kinds.push_back(kind);
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        s.kind = StrategyKind::Selective;
        return s;
    }
    if (head == "optimal" || head == "optimal-nested") {
        auto bytes = parseByteSize(arg);
        if (colon == std::string::npos || !bytes)
            return makeError("strategy '" + head + ":BUDGET' needs a memory budget such as " +
                             head + ":40GiB" +
                             (bytes ? "" : ": " + printable(bytes.error().message, 200)));
        s.kind = head == "optimal" ? StrategyKind::Optimal : StrategyKind::OptimalNested;
        s.budgetBytes = *bytes;
        for (char c : arg)
            if (c != ' ') s.budgetText += c;
        return s;
    }
    if (head == "revolve") {
        if (!parseInt(arg, s.k) || s.k < 1)
            return makeError("strategy 'revolve:C' needs a positive whole number of checkpoint "
                             "slots, got '" + printable(arg) + "'");
        s.kind = StrategyKind::Revolve;
        return s;
    }
    return makeError("unknown strategy '" + printable(text) +
                     "' (known: manual, none, full, every:K, sqrt, selective:KIND[,KIND], "
                     "optimal:BUDGET, optimal-nested:BUDGET, revolve:C)");
}

Status checkSelectiveKinds(const Graph& g, const Strategy& s) {
    if (s.kind != StrategyKind::Selective) return Ok{};
    std::set<std::string> present;
    for (std::size_t i = 1; i < g.modules.size(); ++i) present.insert(g.modules[i].kind);
    std::string missing;
    for (const auto& kind : s.kinds)
        if (!present.count(kind)) missing += (missing.empty() ? "'" : ", '") + kind + "'";
    if (missing.empty()) return Ok{};
    static const std::set<std::string> selectable = {"attention", "attention_core", "mlp",
                                                     "shortcut"};
    std::string has;
    for (const auto& kind : present)
        if (selectable.count(kind)) has += (has.empty() ? "" : ", ") + kind;
    return makeError("strategy '" + s.spelling() + "': the model has no " + missing +
                     " sub-module, so nothing would be checkpointed (" +
                     (has.empty() ? std::string("it has no sub-module selective can checkpoint")
                                  : "its kinds: " + has) +
                     ")");
}

std::vector<Strategy> comparisonStrategies(const Graph& g, RecomputeImpl impl) {
    std::vector<Strategy> out;
    out.push_back(Strategy{StrategyKind::None, 0, {}});
    out.push_back(Strategy{StrategyKind::Full, 0, {}});
    for (std::int64_t k : {2, 3, 4})
        if (std::size_t(k) < g.chain.size()) out.push_back(Strategy{StrategyKind::EveryK, k, {}});
    out.push_back(Strategy{StrategyKind::Sqrt, 0, {}});
    std::set<std::string> kinds;
    for (const auto& m : g.modules) kinds.insert(m.kind);
    if (kinds.count("attention_core"))
        out.push_back(Strategy{StrategyKind::Selective, 0, {"attention_core"}});
    if (kinds.count("attention") && kinds.count("mlp") && impl != RecomputeImpl::Megatron)
        out.push_back(Strategy{StrategyKind::Selective, 0, {"attention", "mlp"}});
    return out;
}

Result<Plan> makePlan(const Graph& g, const Strategy& s,
                      const std::vector<RegionSpec>& manualRegions) {
    PlanContext context;
    context.manualRegions = manualRegions;
    return makePlan(g, s, context);
}

Result<Plan> makePlan(const Graph& g, const Strategy& s, const PlanContext& context) {
    const std::vector<RegionSpec>& manualRegions = context.manualRegions;
    Plan plan;
    switch (s.kind) {
        case StrategyKind::None: break;
        case StrategyKind::Full: {
            auto r = groups(g, 1);
            if (!r) return r;
            plan = std::move(*r);
            break;
        }
        case StrategyKind::EveryK:
        case StrategyKind::Sqrt: {
            std::int64_t k = s.k;
            if (s.kind == StrategyKind::Sqrt)
                k = std::max<std::int64_t>(
                    1, static_cast<std::int64_t>(std::ceil(std::sqrt(double(g.chain.size())))));
            auto r = groups(g, k);
            if (!r) return r;
            plan = std::move(*r);
            break;
        }
        case StrategyKind::Selective: {
            for (std::size_t i = 1; i < g.modules.size(); ++i)
                for (const auto& kind : s.kinds)
                    if (g.modules[i].kind == kind) {
                        auto st = addModuleRegion(g, ModuleId(std::uint32_t(i)), plan);
                        if (!st) return st.error();
                    }
            break;
        }
        case StrategyKind::Optimal:
        case StrategyKind::OptimalNested: {
            if (!context.training || !context.device)
                return makeError("strategy '" + s.spelling() +
                                 "' needs the training settings and the device");
            auto v = s.kind == StrategyKind::Optimal
                         ? planOptimal(g, *context.training, *context.device, s.budgetBytes,
                                       context.cancel)
                         : planOptimalNested(g, *context.training, *context.device, s.budgetBytes,
                                             kDefaultNestedSlots, context.cancel);
            if (!v) return v.error();
            return std::move(v->plan);
        }
        case StrategyKind::Revolve: {
            auto r = planRevolve(g, s.k);
            if (!r) return r;
            plan = std::move(*r);
            break;
        }
        case StrategyKind::Manual: {
            for (const auto& spec : manualRegions) {
                if (spec.isPath) {
                    ModuleId m = g.findModule(spec.path);
                    if (!m.valid())
                        return makeError("plan region '" + spec.path + "': no such module");
                    auto st = addModuleRegion(g, m, plan);
                    if (!st) return st.error();
                } else {
                    auto r = regionForLayers(g, spec.first, spec.last);
                    if (!r) return makeError("plan region: " + r.error().message);
                    plan.regions.push_back(*r);
                }
            }
            break;
        }
    }
    plan.strategy = s.spelling();
    auto st = normalizePlan(g, plan);
    if (!st) return st.error();
    return plan;
}

}  // namespace remat
