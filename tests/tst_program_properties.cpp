// Property sweeps over generated chains of many lengths and widths (Checkmate-style): every
// program validates; `none` recomputes nothing; flat `full` recomputes each chain element's
// forward exactly once; an op inside d nested regions is recomputed d times; and the saved
// activation bytes of none, full, every:K and sqrt equal closed forms, exactly. Also the operand
// list every instruction is made of.
#include <QtTest/QtTest>

#include <malloc.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "allocator_tuning.h"
#include "buffer_list.h"
#include "compiler.h"
#include "sim_test_support.h"

using namespace remat;
using namespace remat::test;

namespace {

// A homogeneous chain: input [d] -> L x mlp(d -> h -> d, relu, no dropout) -> MSE.
// Each mlp layer is one chain element with ops fc1 (saves its input x_i, d floats),
// relu (saves its output r_i, h floats) and fc2 (saves its input: the same r_i).
std::string mlpChain(int layers, int d, int h) {
    std::string s = R"({"format":"remat-model/1","input":{"shape":[)" + std::to_string(d) +
                    R"(]},"layers":[)";
    for (int i = 0; i < layers; ++i)
        s += R"({"kind":"mlp","mlp_hidden":)" + std::to_string(h) + R"(,"activation":"relu"},)";
    s += R"({"kind":"mse"}]})";
    return s;
}

// A heterogeneous chain of linear + activation layers of random widths, for validation sweeps.
std::string randomChain(std::mt19937& rng, int layers) {
    std::uniform_int_distribution<int> width(1, 48);
    std::uniform_int_distribution<int> kind(0, 6);
    std::string s = R"({"format":"remat-model/1","input":{"shape":[)" +
                    std::to_string(width(rng)) + R"(]},"layers":[)";
    for (int i = 0; i < layers; ++i) {
        switch (kind(rng)) {
            case 0: s += R"({"kind":"relu"},)"; break;
            case 1: s += R"({"kind":"gelu"},)"; break;
            case 2: s += R"({"kind":"layernorm"},)"; break;
            case 3: s += R"({"kind":"dropout","p":0.25},)"; break;
            case 4: s += R"({"kind":"tanh"},)"; break;
            default: s += R"({"kind":"linear","out":)" + std::to_string(width(rng)) + "},";
        }
    }
    s += R"({"kind":"linear","out":)" + std::to_string(width(rng)) + R"(},{"kind":"mse"}]})";
    return s;
}

// Recompute instructions per op.
std::vector<int> recomputeCounts(const Built& b) {
    std::vector<int> n(b.graph.ops.size(), 0);
    for (const auto& ins : b.program.instructions)
        if (ins.kind == InstrKind::Recompute) ++n[ins.op.index()];
    return n;
}

}  // namespace

class TestProgramProperties : public QObject {
    Q_OBJECT

private slots:
    void savedBytesClosedForms() {
        const std::vector<std::string> strategies = {"none", "full", "every:2", "every:3",
                                                     "every:5", "sqrt"};
        for (int layers = 1; layers <= 40; layers += (layers < 10 ? 1 : 7))
            for (auto [d, h] : {std::pair{8, 32}, std::pair{24, 24}, std::pair{40, 8}})
                for (int batch : {1, 3}) {
                    const std::string model = mlpChain(layers, d, h);
                    TrainingConfig cfg;
                    cfg.microBatch = batch;
                    const std::int64_t x = std::int64_t(batch) * d * 4;  // one chain activation
                    const std::int64_t r = std::int64_t(batch) * h * 4;  // one hidden activation
                    for (const auto& s : strategies) {
                        Built b = build(model, s, &cfg);
                        // Groups of K consecutive elements: G = ceil(L / K) regions.
                        std::int64_t k = 0;
                        if (s == "full") k = 1;
                        else if (s == "sqrt") k = std::int64_t(std::ceil(std::sqrt(double(layers))));
                        else if (s.rfind("every:", 0) == 0) k = std::stoll(s.substr(6));
                        const std::int64_t groups = k == 0 ? 0 : (layers + k - 1) / k;
                        // none: every element keeps x_i and r_i. Checkpointed: each region keeps
                        // only its input. Always: the last output and the target, saved by MSE.
                        const std::int64_t expected =
                            (k == 0 ? layers * (x + r) : groups * x) + 2 * x;
                        QVERIFY2(b.timeline.savedActivationBytes == expected,
                                 qPrintable(QString("L=%1 d=%2 h=%3 B=%4 %5: %6 != %7")
                                                .arg(layers).arg(d).arg(h).arg(batch)
                                                .arg(QString::fromStdString(s))
                                                .arg(b.timeline.savedActivationBytes)
                                                .arg(expected)));
                    }
                }
    }

    // Korthikanti et al. 2022: a GPT block (16-bit, dropout, eager attention) saves
    // s*b*h*(34 + 5*a*s/h) bytes; the simulator adds the two layernorms' fp32 mean and rstd,
    // 16 bytes per token. Compare the saved bytes of 2 blocks minus 1 block.
    void korthikantiPerBlock() {
        for (auto [s, h, a, b] : {std::tuple{64, 64, 4, 2}, std::tuple{128, 96, 6, 3},
                                  std::tuple{32, 128, 8, 1}}) {
            auto model = [&](int blocks) {
                return R"({"format":"remat-model/1","input":{"tokens":)" + std::to_string(s) +
                       R"(,"vocab":100},"layers":[{"kind":"embedding","dim":)" +
                       std::to_string(h) + R"(,"positions":)" + std::to_string(s) +
                       R"(,"dropout":0.1},{"kind":"transformer_block","repeat":)" +
                       std::to_string(blocks) + R"(,"heads":)" + std::to_string(a) +
                       R"(,"mlp_hidden":)" + std::to_string(4 * h) +
                       R"(,"dropout":0.1},{"kind":"layernorm"},{"kind":"linear","out":100},)"
                       R"({"kind":"cross_entropy"}],"training":{"micro_batch":)" +
                       std::to_string(b) + R"(,"precision":"mixed-bf16","optimizer":"adamw"}})";
            };
            const std::int64_t one = build(model(1), "none").timeline.savedActivationBytes;
            const std::int64_t two = build(model(2), "none").timeline.savedActivationBytes;
            const std::int64_t sbh = std::int64_t(s) * b * h;
            const std::int64_t expected = 34 * sbh + 5 * std::int64_t(a) * s * s * b + 16 * s * b;
            QCOMPARE(two - one, expected);
        }
    }

    void noneHasNoRecompute() {
        std::mt19937 rng(7);
        for (int i = 0; i < 60; ++i) {
            Built b = build(randomChain(rng, 1 + i % 20), "none");
            QCOMPARE(countKind(b.program, InstrKind::Recompute), std::size_t(0));
            QCOMPARE(b.timeline.flops.recompute, 0.0);
            QCOMPARE(b.timeline.timeS.recompute, 0.0);
        }
    }

    void fullRecomputesEachElementOnce() {
        for (int layers : {1, 2, 5, 13, 30})
            for (RecomputeImpl impl : {RecomputeImpl::Pytorch, RecomputeImpl::PytorchReentrant}) {
            TrainingConfig cfg;
            cfg.recomputeImpl = impl;
            Built b = build(mlpChain(layers, 16, 48), "full", &cfg);
            auto counts = recomputeCounts(b);
            // Every op of every element saves something. A reentrant checkpoint recomputes
            // each op exactly once. PyTorch's non-reentrant one stops when the last saved
            // tensor is packed again: fc2 saves only its input (the relu's output), packed
            // before fc2's kernel would run, so fc2 never runs again. The loss is not in the
            // chain: never.
            for (std::size_t o = 0; o < b.graph.ops.size(); ++o) {
                const Op& op = b.graph.op(OpId(std::uint32_t(o)));
                const bool inChain = b.graph.module(op.module).layerIndex < layers;
                const bool stopped =
                    impl == RecomputeImpl::Pytorch && op.name.ends_with("/fc2");
                QCOMPARE(counts[o], inChain && !stopped ? 1 : 0);
            }
            // Recompute FLOPs equal the chain's forward FLOPs.
            double chainForward = 0;
            for (std::size_t o = 0; o < b.graph.ops.size(); ++o)
                if (counts[o]) chainForward += double(b.graph.ops[o].forward.flops.at(1));
            QCOMPARE(b.timeline.flops.recompute, chainForward);
            }
    }

    void nestedRegionsRecomputeDepthTimes() {
        // Regions as shrinking prefixes: [0, L-1] ⊃ [0, L/2-1] ⊃ [0, L/4-1] ...; each region has
        // direct ops after its child, so an op inside d regions runs forward d + 1 times, but
        // for the early stop: a region's recompute ends where its last layer's fc2 (which
        // saves only its input) would start, so that fc2 runs once less.
        for (int layers : {2, 4, 8, 16, 24}) {
            std::string model = mlpChain(layers, 8, 16);
            auto m = parseModel(model, "nested");
            QVERIFY(m.ok());
            m->planForm = PlanForm::Regions;
            std::vector<int> depthOfLayer(std::size_t(layers), 0);
            std::vector<bool> endsRegion(std::size_t(layers), false);
            for (int len = layers; len >= 2; len /= 2) {
                m->regions.push_back(RegionSpec{false, 0, len - 1, ""});
                for (int i = 0; i < len; ++i) ++depthOfLayer[std::size_t(i)];
                endsRegion[std::size_t(len - 1)] = true;
            }
            Built b = build(modelToJson(*m), "manual");
            auto counts = recomputeCounts(b);
            std::vector<int> forwards(b.graph.ops.size(), 0);
            for (const auto& ins : b.program.instructions)
                if (ins.kind == InstrKind::Forward) ++forwards[ins.op.index()];
            for (std::size_t o = 0; o < b.graph.ops.size(); ++o) {
                const int layer = b.graph.module(b.graph.ops[o].module).layerIndex;
                const int depth = layer < layers ? depthOfLayer[std::size_t(layer)] : 0;
                const bool stopped = layer < layers && endsRegion[std::size_t(layer)] &&
                                     b.graph.ops[o].name.ends_with("/fc2");
                QCOMPARE(counts[o], depth - (stopped ? 1 : 0));
                QCOMPARE(forwards[o], 1);
            }
        }
    }

    void everyProgramValidates() {
        std::mt19937 rng(11);
        const std::vector<std::string> strategies = {"none", "full", "every:2", "every:4", "sqrt"};
        for (int i = 0; i < 80; ++i) {
            const std::string model = randomChain(rng, 1 + i % 25);
            for (const auto& s : strategies) {
                for (std::int64_t accum : {1, 2}) {
                    TrainingConfig cfg;
                    cfg.microBatch = 1 + i % 4;
                    cfg.accumulationSteps = accum;
                    cfg.precision = i % 3 == 0 ? Precision::MixedBf16 : Precision::Fp32;
                    cfg.optimizer = Optimizer(i % 4);
                    Built b = build(model, s, &cfg);
                    QVERIFY(validateProgram(b.graph, b.program).ok());
                    // Everything allocated is freed: the step ends at zero live bytes.
                    QCOMPARE(liveAt(b, b.program.instructions.size() - 1), std::int64_t(0));
                    // The breakdown at the peak adds up to the peak.
                    QCOMPARE(totalBytes(b.timeline.breakdownAtPeak), b.timeline.peakBytes);
                    // Random dropout regions preserve the RNG state: nothing unsafe.
                    QVERIFY(!b.program.unsafe());
                }
            }
        }
    }

    void presetsUnderEveryStrategyValidate() {
        for (const auto& name : builtinModelNames()) {
            auto m = loadModel(name);
            QVERIFY(m.ok());
            auto g = lower(m->network, m->training.precision);
            QVERIFY(g.ok());
            for (const auto& s : comparisonStrategies(*g)) {
                auto plan = makePlan(*g, s);
                QVERIFY(plan.ok());
                auto p = compile(*g, *plan, m->training);
                QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
            }
        }
    }

    void invalidProgramNamesInstruction() {
        Built b = build(mlpChain(2, 8, 8), "full");
        Program broken = b.program;
        // Drop the first free of an activation: its buffer is then live at the end.
        for (std::size_t i = 0; i < broken.instructions.size(); ++i)
            if (broken.instructions[i].kind == InstrKind::Free) {
                broken.instructions.erase(broken.instructions.begin() + std::ptrdiff_t(i));
                break;
            }
        auto st = validateProgram(b.graph, broken);
        QVERIFY(!st.ok());
        QVERIFY(QString::fromStdString(st.error().message).contains("still allocated"));
        // Move a compute instruction before the alloc of its output: use before alloc.
        Program early = b.program;
        for (std::size_t i = 1; i < early.instructions.size(); ++i)
            if (early.instructions[i].kind == InstrKind::Forward &&
                early.instructions[i - 1].kind == InstrKind::Alloc) {
                std::swap(early.instructions[i], early.instructions[i - 1]);
                auto st2 = validateProgram(b.graph, early);
                QVERIFY(!st2.ok());
                const QString msg = QString::fromStdString(st2.error().message);
                QVERIFY2(msg.contains("instruction " + QString::number(i - 1)) &&
                             msg.contains("before its alloc"),
                         qPrintable(msg));
                break;
            }
    }

    void partialOverlapRejected() {
        auto m = parseModel(mlpChain(4, 8, 8), "overlap");
        QVERIFY(m.ok());
        auto g = lower(m->network, Precision::Fp32);
        QVERIFY(g.ok());
        Strategy manual;
        manual.kind = StrategyKind::Manual;
        auto plan = makePlan(*g, manual, {RegionSpec{false, 0, 2, ""}, RegionSpec{false, 1, 3, ""}});
        QVERIFY(!plan.ok());
        QVERIFY(QString::fromStdString(plan.error().message).contains("overlap partially"));
    }

    void unsafePrograms() {
        // An in-place GELU overwrites its own input, which its backward needs.
        Built inplace = build(R"({"format":"remat-model/1","input":{"shape":[8]},
            "layers":[{"kind":"linear","out":8},{"kind":"gelu","inplace":true},
                      {"kind":"linear","out":8},{"kind":"mse"}]})", "none");
        QVERIFY(inplace.program.unsafe());
        QVERIFY(QString::fromStdString(inplace.program.unsafeReasons[0]).contains("1/gelu"));
        // An in-place ReLU is safe: ReLU saves its output.
        Built relu = build(R"({"format":"remat-model/1","input":{"shape":[8]},
            "layers":[{"kind":"linear","out":8},{"kind":"relu","inplace":true},
                      {"kind":"linear","out":8},{"kind":"mse"}]})", "none");
        QVERIFY(!relu.program.unsafe());
        // A region whose RNG state is not preserved redraws its dropout mask.
        auto m = parseModel(R"({"format":"remat-model/1","input":{"shape":[8]},
            "layers":[{"kind":"linear","out":8},{"kind":"dropout","p":0.5},
                      {"kind":"linear","out":8},{"kind":"mse"}]})", "rng");
        QVERIFY(m.ok());
        auto g = lower(m->network, Precision::Fp32);
        Strategy manual;
        manual.kind = StrategyKind::Manual;
        auto plan = makePlan(*g, manual, {RegionSpec{false, 1, 1, ""}});
        QVERIFY(plan.ok());
        auto safe = compile(*g, *plan, m->training);
        QVERIFY(safe.ok() && !safe->unsafe());
        plan->regions[0].preserveRng = false;
        auto unsafeP = compile(*g, *plan, m->training);
        QVERIFY(unsafeP.ok() && unsafeP->unsafe());
        QVERIFY(QString::fromStdString(unsafeP->unsafeReasons[0]).contains("RNG"));
        // The recompute draws a different mask than the forward.
        std::uint32_t fwdDraw = 0, recDraw = 0;
        for (const auto& ins : unsafeP->instructions) {
            if (ins.kind == InstrKind::Forward && g->op(ins.op).kind == OpKind::Dropout)
                fwdDraw = ins.rngDraw;
            if (ins.kind == InstrKind::Recompute && g->op(ins.op).kind == OpKind::Dropout)
                recDraw = ins.rngDraw;
        }
        QVERIFY(fwdDraw != recDraw);
        for (const auto& ins : safe->instructions)
            if (ins.kind == InstrKind::Recompute && g->op(ins.op).kind == OpKind::Dropout)
                QCOMPARE(ins.rngDraw, fwdDraw);
    }

    void maxMicroBatchIsExact() {
        // The largest micro-batch that fits, from the affine pass, must be the boundary:
        // it fits when compiled at that size and the next size does not.
        for (const char* preset : {"gpt2-tiny", "mlp-3x1024"}) {
            auto m = loadModel(preset);
            QVERIFY(m.ok());
            auto g = lower(m->network, m->training.precision);
            QVERIFY(g.ok());
            const DeviceSpec small = unitDevice(std::int64_t(256) << 20);  // 256 MiB
            for (const char* s : {"none", "full"}) {
                auto plan = makePlan(*g, *parseStrategy(s));
                auto p = compile(*g, *plan, m->training);
                const std::int64_t maxB = simulate(*g, *p, small).maxMicroBatch;
                QVERIFY(maxB >= 1);
                TrainingConfig at = m->training;
                at.microBatch = maxB;
                auto pa = compile(*g, *plan, at);
                QVERIFY(simulate(*g, *pa, small).fits);
                at.microBatch = maxB + 1;
                auto pb = compile(*g, *plan, at);
                QVERIFY(!simulate(*g, *pb, small).fits);
            }
        }
    }

    // After keepFreedMemoryForReuse() a block of several megabytes comes from the heap and stays
    // there when freed, so the next program reuses it instead of zeroing fresh pages.
    void freedMemoryIsKept() {
#if defined(__SANITIZE_ADDRESS__)
        QSKIP("the sanitizer's allocator is not glibc's");
#elif !defined(__GLIBC__)
        QSKIP("a glibc setting");
#else
        keepFreedMemoryForReuse();
        const std::size_t mappedBefore = mallinfo2().hblkhd;
        auto* block = static_cast<char*>(std::malloc(std::size_t(8) << 20));
        QVERIFY(block);
        std::memset(block, 1, std::size_t(8) << 20);
        QCOMPARE(mallinfo2().hblkhd, mappedBefore);  // from the heap, not a mapping of its own
        const std::size_t heap = mallinfo2().arena;
        std::free(block);
        QCOMPARE(mallinfo2().arena, heap);  // and not handed back to the system when freed
#endif
    }

    // The operand list keeps its ids across growth from inline to heap storage, through
    // copies and moves, and refuses more than its 16-bit size holds.
    void bufferListKeepsItsIds() {
        for (std::uint32_t n : {0u, 1u, 4u, 5u, 9u, 100u}) {
            BufferList list;
            for (std::uint32_t i = 0; i < n; ++i) list.push_back(BufferId(i * 7));
            QCOMPARE(list.size(), std::size_t(n));
            for (std::uint32_t i = 0; i < n; ++i) QCOMPARE(list[i], BufferId(i * 7));
            list.reserve(n + 3);  // grows again with the ids in place
            for (std::uint32_t i = 0; i < n; ++i) QCOMPARE(list[i], BufferId(i * 7));
            BufferList copy = list;
            QVERIFY(copy == list);
            BufferList moved = std::move(copy);
            QVERIFY(moved == list);
            QVERIFY(copy.empty());
            BufferList assigned{BufferId(1), BufferId(2), BufferId(3), BufferId(4), BufferId(5)};
            assigned = std::move(moved);
            QVERIFY(assigned == list);
            assigned.resize(n + 2);
            QCOMPARE(assigned.back(), BufferId::invalid());
        }
        BufferList huge;
        QVERIFY_THROWS_EXCEPTION(std::length_error, huge.reserve(70000));
        QVERIFY(huge.empty());
    }
};

QTEST_APPLESS_MAIN(TestProgramProperties)
#include "tst_program_properties.moc"
