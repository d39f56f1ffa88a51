// The GEMM efficiency model of the device profiles (sim/gemm_model.h, docs/devices.md): a
// GEMM's time never falls when a dimension grows; its efficiency is bounded by the profile's
// best achievable fraction, so no GEMM runs faster than the peak; crossing a tile edge that
// starts a new wave costs a whole wave; a skinny GEMM with fewer tiles than SMs is split along
// k; the exposed epilogue makes short reductions slow; a profile without the model is the plain
// peak. The GEMMs each op is decomposed into carry exactly the op's FLOPs on every preset, and
// the simulator times an op as its GEMMs at their efficiency or its bytes at the achievable
// bandwidth, plus a launch per kernel. And the check docs/devices.md reports: one GPT-3 175B
// layer on one tensor-parallel rank of Megatron-LM's published A100 run, whose compute alone
// must not be slower than the published throughput (which adds communication to it).
#include <QtTest/QtTest>

#include <cmath>
#include <vector>

#include "device.h"
#include "compiler.h"
#include "gemm_model.h"
#include "lower.h"
#include "model_file.h"
#include "simulator.h"

using namespace remat;

namespace {

const DType kDtypes[] = {DType::F32, DType::BF16, DType::F16};

double timeOf(const DeviceSpec& d, DType t, GemmShape g) {
    return gemmComputeTime(d, t, g);
}

}  // namespace

class TstGemmEfficiency : public QObject {
    Q_OBJECT

private slots:
    void timeNeverFallsWhenADimensionGrows() {
        for (const DeviceSpec& d : builtinDevices()) {
            for (DType t : kDtypes) {
                for (int dim = 0; dim < 4; ++dim) {
                    GemmShape g{48, 96, 80, 1};
                    double previous = 0.0;
                    for (int step = 0; step < 300; ++step) {
                        std::int64_t& x = dim == 0 ? g.m : dim == 1 ? g.n : dim == 2 ? g.k : g.batch;
                        x += dim == 3 ? 1 : 37;
                        const double now = timeOf(d, t, g);
                        QVERIFY2(now >= previous * (1 - 1e-12),
                                 qPrintable(QString::fromStdString(d.id) +
                                            QString(" dim %1 at %2: %3 < %4")
                                                .arg(dim).arg(x).arg(now).arg(previous)));
                        previous = now;
                    }
                }
            }
        }
    }

    void boundedByTheBestFractionAndThePeak() {
        for (const DeviceSpec& d : builtinDevices()) {
            for (DType t : kDtypes) {
                const double best = d.matmulBestFraction(t);
                QVERIFY(best > 0.0 && best <= 1.0);
                for (std::int64_t m : {1, 17, 256, 2048, 8192, 65536})
                    for (std::int64_t n : {1, 64, 128, 1000, 12288})
                        for (std::int64_t k : {1, 64, 2048, 49152}) {
                            const GemmShape g{m, n, k, 1};
                            const double e = gemmEfficiency(d, t, g);
                            QVERIFY(e > 0.0);
                            QVERIFY2(e <= best * (1 + 1e-12), qPrintable(QString::number(e)));
                            QVERIFY(g.flops() / timeOf(d, t, g) <= d.matmulPeak(t) * (1 + 1e-12));
                        }
            }
        }
    }

    // One full wave on the A100 (108 SMs, 256 x 128 tiles): 9 x 12 tiles. One row more starts
    // a tenth tile row, 12 more tiles and a second wave: the time doubles. Rows within the
    // same tile row cost the same.
    void aTileEdgeThatStartsAWaveCostsAWave() {
        const DeviceSpec d = *findDevice("a100-80gb");
        QCOMPARE(d.efficiency.smCount, std::int64_t(108));
        const std::int64_t tm = d.efficiency.tileM, tn = d.efficiency.tileN;
        const GemmShape full{9 * tm, 12 * tn, 8192, 1};
        const GemmSchedule s = gemmSchedule(d, DType::BF16, full);
        QCOMPARE(s.tiles, 108.0);
        QCOMPARE(s.waves, 1.0);
        QCOMPARE(s.utilization, 1.0);
        GemmShape over = full;
        over.m += 1;
        QCOMPARE(gemmSchedule(d, DType::BF16, over).waves, 2.0);
        const double t = timeOf(d, DType::BF16, full);
        QVERIFY(qFuzzyCompare(timeOf(d, DType::BF16, over), 2 * t));
        GemmShape under = full;
        under.m -= tm - 1;  // still nine tile rows
        QVERIFY(qFuzzyCompare(timeOf(d, DType::BF16, under), t));
        QVERIFY(gemmEfficiency(d, DType::BF16, under) < gemmEfficiency(d, DType::BF16, full));
    }

    // A skinny GEMM (one tile, long k) is split along k over the idle SMs.
    void fewTilesAreSplitAlongK() {
        const DeviceSpec d = *findDevice("h100-80gb-sxm");
        const GemmShape g{256, 128, 1 << 16, 1};
        const GemmSchedule s = gemmSchedule(d, DType::BF16, g);
        QCOMPARE(s.tiles, 1.0);
        QVERIFY(s.splits > 1);
        QVERIFY(s.splits <= double(d.efficiency.smCount));
        // Better than the unsplit tile on one SM.
        const double unsplit = double(g.k) / double(g.k + s.kFill) / double(d.efficiency.smCount);
        QVERIFY(s.utilization * s.fill > unsplit * 10);
    }

    // The exposed epilogue: per unit of work, a short reduction is slower than a long one.
    void shortReductionsAreSlower() {
        const DeviceSpec d = *findDevice("a100-80gb");
        const double k64 = gemmEfficiency(d, DType::BF16, {4096, 4096, 64, 1});
        const double k512 = gemmEfficiency(d, DType::BF16, {4096, 4096, 512, 1});
        const double k8192 = gemmEfficiency(d, DType::BF16, {4096, 4096, 8192, 1});
        QVERIFY(k64 < k512 && k512 < k8192);
        // The fill is the epilogue's bytes at the SM's bandwidth share over its GEMM rate.
        const double kFill = epilogueKFill(d, DType::BF16);
        QVERIFY(qFuzzyCompare(kFill, d.efficiency.epilogueExposed * 2.0 * d.peakBf16 *
                                         d.efficiency.gemmBf16 /
                                         (2.0 * d.bandwidthBytesPerS * d.efficiency.bandwidth)));
        // fp32 output is twice the bytes of bf16, at the fp32 rate.
        QVERIFY(epilogueKFill(d, DType::F32) < kFill);
    }

    void withoutTheModelTheDatasheetPeak() {
        DeviceSpec d = *findDevice("a100-80gb");
        d.efficiency = {};
        const GemmShape g{100, 300, 700, 3};
        QCOMPARE(gemmEfficiency(d, DType::BF16, g), 1.0);
        QCOMPARE(timeOf(d, DType::BF16, g), g.flops() / d.peakBf16);
        QCOMPARE(d.achievableBandwidth(), d.bandwidthBytesPerS);
    }

    // The GEMMs an op is decomposed into do the op's FLOPs (a linear's bias aside).
    void opGemmsCarryTheOpsFlops() {
        for (const char* preset : {"gpt2-small", "llama-7b", "resnet-101", "gpt3-175b", "mlp-3x1024"}) {
            auto m = loadModel(preset);
            QVERIFY(m.ok());
            auto g = lower(m->network, m->training.precision);
            QVERIFY(g.ok());
            int matmuls = 0;
            for (const Op& op : g->ops) {
                for (Direction dir : {Direction::Forward, Direction::Backward}) {
                    const OpCost& c = dir == Direction::Forward ? op.forward : op.backward;
                    const GemmList list = opGemms(*g, op, dir, 3);
                    QCOMPARE(list.empty(), !c.matmul);
                    if (list.empty()) continue;
                    ++matmuls;
                    double f = 0;
                    for (const GemmShape& s : list) f += s.flops();
                    double want = c.flops.atReal(3);
                    if (op.kind == OpKind::Linear && op.attrs.bias)
                        want -= double(g->tensor(op.outputs[0]).elements()) * 3;  // bias adds
                    QVERIFY2(std::abs(f - want) <= 1e-9 * want,
                             qPrintable(QString::fromStdString(op.name) +
                                        QString(": %1 vs %2").arg(f).arg(want)));
                }
            }
            QVERIFY2(matmuls > 0, preset);
        }
    }

    void kernelCounts() {
        Op linear;
        linear.kind = OpKind::Linear;
        QCOMPARE(opKernelCount(linear, Direction::Forward), 1);
        QCOMPARE(opKernelCount(linear, Direction::Backward), 2);
        linear.attrs.bias = true;
        QCOMPARE(opKernelCount(linear, Direction::Backward), 3);
        Op flatten;
        flatten.kind = OpKind::Flatten;
        QCOMPARE(opKernelCount(flatten, Direction::Forward), 0);
        Op ln;
        ln.kind = OpKind::LayerNorm;
        QCOMPARE(opKernelCount(ln, Direction::Backward), 2);
    }

    // The simulator's time of a GEMM op and of a memory-bound op, re-derived from the parts.
    void simulatorTimesOpsFromTheModel() {
        auto m = loadModel("gpt2-small");
        QVERIFY(m.ok());
        auto g = lower(m->network, m->training.precision);
        QVERIFY(g.ok());
        const DeviceSpec d = *findDevice("a100-80gb");
        Plan none;
        none.strategy = "none";
        auto p = compile(*g, none, m->training);
        QVERIFY(p.ok());
        const DType t = computeDType(m->training.precision);
        bool sawGemm = false, sawMemory = false;
        for (const Instruction& ins : p->instructions) {
            if (ins.kind != InstrKind::Forward && ins.kind != InstrKind::Backward) continue;
            const Op& op = g->op(ins.op);
            const Direction dir = ins.kind == InstrKind::Forward ? Direction::Forward : Direction::Backward;
            const OpCost& c = dir == Direction::Forward ? op.forward : op.backward;
            const double memory = c.bytesMoved.atReal(p->microBatch) /
                                  (d.bandwidthBytesPerS * d.efficiency.bandwidth);
            const double launches = opKernelCount(op, dir) * d.launchOverheadS;
            double want = 0;
            if (op.kind == OpKind::Linear) {
                double compute = 0;
                for (const GemmShape& s : opGemms(*g, op, dir, p->microBatch))
                    compute += gemmComputeTime(d, t, s);
                want = std::max(compute, memory) + launches;
                sawGemm = sawGemm || compute > memory;
            } else if (op.kind == OpKind::LayerNorm || op.kind == OpKind::Add) {
                want = std::max(c.flops.atReal(p->microBatch) / d.peakFp32, memory) + launches;
                sawMemory = sawMemory || memory > c.flops.atReal(p->microBatch) / d.peakFp32;
            } else {
                continue;
            }
            QVERIFY(qFuzzyCompare(instructionTime(*g, *p, ins, d), want));
        }
        QVERIFY(sawGemm && sawMemory);
    }

    // Narayanan et al. 2021, Table 1: GPT-3 175B on 1024 A100 80 GB, TP 8, PP 16, full
    // recompute, bf16, global batch 1536 (DP 8: 192 micro-batches of one 2048-token sequence per
    // pipeline), 138 TFLOP/s per GPU = 44 % of peak counting the recompute. One layer on one TP
    // rank: h = 12288, 12 of the 96 heads, Megatron's fused memory-bound kernels, no sequence
    // parallelism. The prediction has no communication, so it must reach at least the published
    // figure, and stays below the GEMMs' best achievable fraction.
    void gpt3LayerOnOneTensorParallelRank() {
        const DeviceSpec d = *findDevice("a100-80gb");
        const DType t = DType::BF16;
        const std::int64_t h = 12288, s = 2048, tp = 8, hd = 128, heads = 96 / tp;
        const std::vector<GemmShape> fwd = {{s, 3 * h / tp, h},     {s, s, hd, heads},
                                            {s, hd, s, heads},      {s, h, h / tp},
                                            {s, 4 * h / tp, h},     {s, h, 4 * h / tp}};
        const std::vector<GemmShape> bwd = {
            {s, h, 3 * h / tp}, {3 * h / tp, h, s}, {s, hd, s, heads}, {s, hd, s, heads},
            {s, s, hd, heads},  {s, hd, s, heads},  {s, h / tp, h},    {h, h / tp, s},
            {s, h, 4 * h / tp}, {4 * h / tp, h, s}, {s, 4 * h / tp, h}, {h, 4 * h / tp, s}};
        const double bw = d.achievableBandwidth(), launch = d.launchOverheadS;
        auto gemm = [&](const GemmShape& g) {
            const double bytes =
                2.0 * double(g.batch) * double(g.m * g.k + g.k * g.n + g.m * g.n);
            return std::max(gemmComputeTime(d, t, g), bytes / bw) + launch;
        };
        double forward = 0, backward = 0, flops = 0;
        for (const GemmShape& g : fwd) {
            forward += gemm(g);
            flops += g.flops();
            QVERIFY(gemmEfficiency(d, t, g) > 0.4);
        }
        for (const GemmShape& g : bwd) backward += gemm(g);
        // Layer norms, scale-mask-softmax, attention dropout (u8 mask), bias-dropout-adds,
        // bias-GeLU: bytes read and written in bf16, one kernel each; backward twice.
        const double sh = 2.0 * double(s * h), att = double(heads * s * s);
        const double memoryBytes = 2 * sh + 4 * att + 5 * att + 2 * (3.5 * sh) + 2 * sh +
                                   4.0 * double(s * 4 * h / tp);
        const double memory = memoryBytes / bw + 7 * launch;
        forward += memory;
        backward += 2 * memory;
        // Full recompute: forward, recomputed forward, backward; the 1F1B bubble (p - 1) / m.
        const double perLayer = (2 * forward + backward) * (1.0 + 15.0 / 192.0);
        const double hfu = 4 * flops / perLayer / d.peakBf16;
        const double mfu = 3 * flops / perLayer / d.peakBf16;
        qInfo("GPT-3 175B layer, TP rank of 8, A100: forward %.3f ms, backward %.3f ms; "
              "HFU %.1f%%, MFU %.1f%% before communication",
              forward * 1e3, backward * 1e3, 100 * hfu, 100 * mfu);
        QVERIFY(hfu >= 0.44);
        QVERIFY(hfu < d.efficiency.gemmBf16);
    }
};

QTEST_GUILESS_MAIN(TstGemmEfficiency)
#include "tst_gemm_efficiency.moc"
