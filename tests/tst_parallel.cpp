// Parallel layouts: activation memory per layer under tensor and sequence parallelism against
// Korthikanti et al. 2022 (exact, from the graph), ZeRO's model-state accounting against the
// ZeRO paper's own example, pipeline in-flight counts, layout validation, model-file round
// trips, the ring cost model and the whole evaluation on presets.
#include <QtTest/QtTest>

#include <cmath>

#include "comm_cost.h"
#include "model_file.h"
#include "parallel_batch.h"
#include "parallel_eval.h"
#include "sharding.h"
#include "sim_test_support.h"

using namespace remat;

namespace {

// s tokens, h width, a heads, L blocks of a GPT layer with dropout (so every mask of the
// paper's count exists) and eager attention, bf16, between a dense input and an MSE loss.
std::string gptLayers(std::int64_t s, std::int64_t h, std::int64_t a, std::int64_t blocks) {
    return R"({"format": "remat-model/1", "name": "k", "input": {"shape": [)" + std::to_string(s) +
           ", " + std::to_string(h) + R"(]}, "layers": [
        {"kind": "transformer_block", "repeat": )" +
           std::to_string(blocks) + R"(, "heads": )" + std::to_string(a) +
           R"(, "mlp_hidden": )" + std::to_string(4 * h) +
           R"(, "activation": "gelu", "norm": "layernorm", "dropout": 0.1, "attention": "eager"},
        {"kind": "mse"}],
        "training": {"micro_batch": 2, "precision": "mixed-bf16", "optimizer": "adam"}})";
}

// Activation bytes kept for backward per block: the saved activations of L + 1 blocks less
// those of L blocks (input, target and loss cancel).
std::int64_t perBlockSaved(std::int64_t s, std::int64_t h, std::int64_t a, const ShardOptions& sh,
                           const std::string& strategy) {
    std::int64_t saved[2];
    for (int k = 0; k < 2; ++k) {
        auto m = parseModel(gptLayers(s, h, a, 2 + k), "k.json");
        if (!m) qFatal("%s", m.error().message.c_str());
        auto g = lower(m->network, m->training, sh);
        if (!g) qFatal("%s", g.error().message.c_str());
        auto st = parseStrategy(strategy);
        auto plan = makePlan(*g, *st, std::vector<RegionSpec>{});
        if (!plan) qFatal("%s", plan.error().message.c_str());
        auto p = compile(*g, *plan, m->training);
        if (!p) qFatal("%s", p.error().message.c_str());
        saved[k] = simulate(*g, *p, test::unitDevice()).savedActivationBytes;
    }
    return saved[1] - saved[0];
}

}  // namespace

class TestParallel : public QObject {
    Q_OBJECT

private slots:
    // Korthikanti et al. 2022, section 4: per layer, 16-bit, s x b x h units:
    // no parallelism 34 + 5as/h; tensor parallel 10 + 24/t + 5as/(ht); with sequence
    // parallelism (34 + 5as/h)/t; selective recompute drops 5as/h; full keeps the layer input.
    // The graph also keeps the layer norms' fp32 mean and rstd per row (2 norms x 8 bytes),
    // which the paper leaves out: added here, split along the sequence under SP.
    void korthikantiForms_data() {
        QTest::addColumn<int>("t");
        QTest::addColumn<bool>("sp");
        QTest::newRow("no parallelism") << 1 << false;
        QTest::newRow("tp 2") << 2 << false;
        QTest::newRow("tp 4") << 4 << false;
        QTest::newRow("tp 4 + sp") << 4 << true;
        QTest::newRow("tp 8 + sp") << 8 << true;
    }
    void korthikantiForms() {
        QFETCH(int, t);
        QFETCH(bool, sp);
        const std::int64_t s = 64, h = 256, a = 8, b = 2;
        ShardOptions sh;
        sh.tp = t;
        sh.sequenceParallel = sp;
        const double sbh = double(s * b * h);
        const double stats = 16.0 * double(s * b) / (sp ? t : 1);
        const double attn = 5.0 * double(a * s) / double(h);
        const double none = sp ? sbh / t * (34 + attn) : sbh * (10 + 24.0 / t + attn / t);
        QCOMPARE(double(perBlockSaved(s, h, a, sh, "none")), none + stats);
        const double selective = sp ? sbh / t * 34 : sbh * (10 + 24.0 / t);
        QCOMPARE(double(perBlockSaved(s, h, a, sh, "selective:attention_core")),
                 selective + stats);
        const double full = sp ? 2 * sbh / t : 2 * sbh;
        QCOMPARE(double(perBlockSaved(s, h, a, sh, "full")), full);
    }

    // ZeRO paper (Rajbhandari et al. 2020), Figure 1: Psi = 7.5B parameters, Nd = 64, mixed
    // precision Adam (K = 12): 120 GB, 31.4 GB, 16.6 GB, 1.9 GB per GPU for stages 0-3.
    void zeroPaperExample() {
        // Three 50,000 x 50,000 linears: 7.5e9 parameters.
        const std::string model = R"({"format": "remat-model/1", "name": "z",
            "input": {"shape": [50000]}, "layers": [
            {"kind": "linear", "out": 50000, "bias": false},
            {"kind": "linear", "out": 50000, "bias": false},
            {"kind": "linear", "out": 50000, "bias": false},
            {"kind": "mse"}],
            "training": {"micro_batch": 1, "precision": "mixed-fp16", "optimizer": "adam"}})";
        const double psi = 7.5e9;
        const double expected[4] = {16 * psi, 4 * psi + 12 * psi / 64, 2 * psi + 14 * psi / 64,
                                    16 * psi / 64};
        for (int stage = 0; stage <= 3; ++stage) {
            auto b = test::build(model, "none");
            QCOMPARE(b.graph.parameterCount, std::int64_t(7500000000));
            ShardingPlan plan;
            plan.zeroStage = stage;
            plan.shardDegree = 64;
            QVERIFY(applySharding(b.graph, b.program, plan).ok());
            const Timeline t = simulate(b.graph, b.program, test::unitDevice(std::int64_t{1} << 48));
            // The resident states as the optimizer starts (a layer's whole gradients before
            // their reduce-scatter come and go during backward; the paper counts them apart).
            std::int64_t states = -1;
            for (std::size_t i = 0; i < b.program.instructions.size() && states < 0; ++i)
                if (b.program.instructions[i].kind == InstrKind::OptimizerStep) {
                    const CategoryBytes& live = t.live[i];
                    states = live[std::size_t(Category::Parameters)] +
                             live[std::size_t(Category::Gradients)] +
                             live[std::size_t(Category::OptimizerState)];
                }
            // Each of the 12 state buffers rounds its shard up by under a byte.
            QVERIFY2(std::fabs(double(states) - expected[stage]) <= 12,
                     qPrintable(QString("stage %1: %2").arg(stage).arg(states)));
            // The figures the paper prints, in GB.
            const double gb[4] = {120, 31.4, 16.6, 1.9};
            QCOMPARE(std::round(double(states) / 1e8) / 10, gb[stage]);
            // Stage 3 gathers a layer's whole parameters, visibly.
            std::int64_t gathered = 0;
            for (const auto& live : t.live)
                gathered = std::max(gathered, live[std::size_t(Category::GatheredParameters)]);
            QCOMPARE(gathered > 0, stage == 3);
        }
    }

    void inFlightCounts() {
        ParallelConfig p;
        p.pp = 4;
        QCOMPARE(inFlightMicroBatches(p, 0, 8), 4.0);
        QCOMPARE(inFlightMicroBatches(p, 3, 8), 1.0);
        QCOMPARE(inFlightMicroBatches(p, 0, 2), 2.0);
        p.schedule = PipelineSchedule::GPipe;
        QCOMPARE(inFlightMicroBatches(p, 3, 8), 8.0);
        // Korthikanti: interleaving multiplies the first stage's footprint by 1 + (p-1)/(pV).
        p.schedule = PipelineSchedule::Interleaved;
        p.virtualStages = 2;
        QCOMPARE(inFlightMicroBatches(p, 0, 64), 4.0 * (1.0 + 3.0 / 8.0));
        QCOMPARE(pipelineBubbleFraction(p, 8), 3.0 / 16.0);
        p.pp = 1;
        QCOMPARE(inFlightMicroBatches(p, 0, 8), 1.0);
    }

    // The first 1F1B stage holds pp micro-batches' kept activations: its program carries the
    // other pp - 1 as one visible buffer of exactly that many times one micro-batch's.
    void pipelineStageHoldsInFlightActivations() {
        auto m = parseModel(gptLayers(64, 256, 8, 8), "k.json");
        QVERIFY(m.ok());
        TrainingConfig cfg = m->training;
        cfg.accumulationSteps = 8;
        cfg.parallel.pp = 4;
        const ClusterSpec cluster = clusterForDevice(test::unitDevice());
        Strategy none;
        auto e = evaluateParallel(m->network, none, {}, cfg, cluster);
        QVERIFY2(e.ok(), e.ok() ? "" : e.error().message.c_str());
        QCOMPARE(e->stages.size(), std::size_t(4));
        QCOMPARE(e->stages[0].inFlight, 4.0);
        QCOMPARE(e->stages[3].inFlight, 1.0);
        QCOMPARE(e->peakStage, std::size_t(0));
        std::int64_t band = -1;
        for (const Buffer& b : e->evaluation.program.buffers)
            if (b.role == BufferRole::InFlightActivations) band = b.bytes.at(cfg.microBatch);
        // One micro-batch's kept activations on stage 0, from a plain compile of that stage.
        auto sn = stageNetwork(m->network, cfg.parallel, 0);
        QVERIFY(sn.ok());
        auto g = lower(sn->network, cfg, sn->shard);
        QVERIFY(g.ok());
        Plan plan;
        TrainingConfig one = cfg;
        one.parallel = {};
        one.accumulationSteps = 1;
        auto p = compile(*g, plan, one);
        QVERIFY(p.ok());
        QCOMPARE(band, 3 * simulate(*g, *p, test::unitDevice()).savedActivationBytes);
        // Stage 0 sends its output on and has no loss; the last stage receives and has one.
        QVERIFY(sn->shard.sendsActivations && g->stageOutput.valid() && !g->loss.valid());
        auto last = stageNetwork(m->network, cfg.parallel, 3);
        QVERIFY(last.ok() && last->shard.receivesActivations && !last->shard.sendsActivations);
        auto gl = lower(last->network, cfg, last->shard);
        QVERIFY(gl.ok() && gl->loss.valid() && !gl->stageOutput.valid());
        QCOMPARE(e->time.bubbleS > 0, true);
    }

    // Activation offload: every kept activation used again only after other work leaves the GPU
    // and comes back as its own buffer; the program stays valid and the peak falls by less than
    // what went to the host (the loss's log-probabilities stay, being used right away).
    void activationOffload() {
        auto m = parseModel(gptLayers(64, 256, 8, 4), "k.json");
        QVERIFY(m.ok());
        auto b = test::build(gptLayers(64, 256, 8, 4), "none");
        const Timeline before = b.timeline;
        ShardingPlan plan;
        plan.offloadActivations = true;
        QVERIFY(applySharding(b.graph, b.program, plan).ok());
        const std::int64_t sent = offloadedActivationBytes(b.program, b.program.microBatch);
        QVERIFY(sent > 0);
        const Timeline after = simulate(b.graph, b.program, test::unitDevice());
        QVERIFY(after.peakBytes < before.peakBytes);
        QVERIFY(before.peakBytes - after.peakBytes <= sent);
        std::size_t back = 0;
        for (const Buffer& buf : b.program.buffers)
            back += buf.role == BufferRole::Activation && buf.backward;
        QVERIFY(back > 0);
    }

    void validation_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("text");
        QTest::newRow("tp heads") << "tp:3" << "parallel.tp" << "8 attention heads are not divisible by tp 3";
        QTest::newRow("pp blocks") << "pp:3" << "parallel.pp" << "4 blocks are not divisible by pp x V = 3";
        QTest::newRow("cp eager") << "cp:2" << "parallel.cp" << "needs flash attention";
        QTest::newRow("zero dp") << "zero:2" << "parallel.zero" << "needs dp > 1";
        QTest::newRow("sp") << "sp" << "parallel.sequence_parallel" << "needs tp > 1";
    }
    void validation() {
        QFETCH(QString, model);
        QFETCH(QString, field);
        QFETCH(QString, text);
        auto m = parseModel(gptLayers(64, 256, 8, 4), "k.json");
        QVERIFY(m.ok());
        ParallelConfig p;
        const QString what = model.section(':', 0, 0);
        const int v = model.section(':', 1, 1).toInt();
        if (what == "tp") p.tp = v;
        if (what == "pp") p.pp = v;
        if (what == "cp") p.cp = v;
        if (what == "zero") p.zeroStage = v;
        if (what == "sp") p.sequenceParallel = true;
        auto st = validateLayout(m->network, p);
        QVERIFY(!st.ok());
        const QString msg = QString::fromStdString(st.error().message);
        QVERIFY2(msg.startsWith(field + ": ") && msg.contains(text), qPrintable(msg));
    }

    void modelFileRoundTrip() {
        auto m = loadModel("gpt3-175b");
        QVERIFY(m.ok());
        ParallelConfig& p = m->training.parallel;
        p.dp = 8;
        p.zeroStage = 1;
        p.tp = 8;
        p.sequenceParallel = true;
        p.pp = 16;
        p.schedule = PipelineSchedule::Interleaved;
        p.virtualStages = 2;
        p.offloadOptimizer = true;
        const std::string text = modelToJson(*m);
        QVERIFY(text.find("\"remat-model/2\"") != std::string::npos);
        auto back = parseModel(text, "rt.json");
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QVERIFY(back->training.parallel == p);
        // A version 1 file does not know the field.
        std::string v1 = text;
        v1.replace(v1.find("remat-model/2"), 13, "remat-model/1");
        auto refused = parseModel(v1, "v1.json");
        QVERIFY(!refused.ok());
        QVERIFY(QString::fromStdString(refused.error().message).contains("$.parallel"));
        // FSDP's names.
        bool hybrid = false;
        QCOMPARE(parseZeroStage("full_shard", &hybrid).value(), 3);
        QCOMPARE(parseZeroStage("shard_grad_op").value(), 2);
        QCOMPARE(parseZeroStage("no_shard").value(), 0);
        QCOMPARE(parseZeroStage("hybrid", &hybrid).value(), 3);
        QVERIFY(hybrid);
        QVERIFY(!parseZeroStage("4"));
    }

    // Ring: all-reduce 2(n-1)/n B/bw + 2(n-1) latencies; all-gather and reduce-scatter half.
    void ringCosts() {
        ClusterSpec c = clusterForDevice(test::unitDevice());
        c.gpusPerNode = 8;
        c.intraNode = {1e11, 1e-6, ""};
        c.interNode = {1e10, 1e-5, ""};
        ParallelConfig p;
        p.tp = 8;
        p.dp = 4;
        const LayoutPlacement place = placeLayout(p, c);
        QVERIFY(!place.tp.crossesNodes);
        QVERIFY(place.dp.crossesNodes);
        QCOMPARE(place.nodes, std::int64_t(4));
        const double b = 1e9;
        QCOMPARE(collectiveTime(CollectiveKind::AllReduce, b, place.tp, c),
                 2 * (7.0 / 8 * b / 1e11 + 7 * 1e-6));
        QCOMPARE(collectiveTime(CollectiveKind::AllGather, b, place.dp, c),
                 3.0 / 4 * b / 1e10 + 3 * 1e-5);
        QCOMPARE(collectiveTime(CollectiveKind::ReduceScatter, b, GroupPlacement{1, false}, c), 0.0);
    }

    // Every preset evaluates under a layout it admits, and more sharding never raises the
    // peaking rank's memory.
    void presetsUnderLayouts() {
        for (const std::string name : {"gpt2-small", "llama-7b", "gpt3-175b", "mlp-3x1024",
                                       "resnet-101", "gpt2-tiny"}) {
            auto m = loadModel(name);
            QVERIFY(m.ok());
            const ClusterSpec cluster = *findCluster("dgx-a100-80gb");
            std::int64_t previous = -1;
            for (int zero = 0; zero <= 3; ++zero) {
                TrainingConfig cfg = m->training;
                cfg.parallel.dp = 8;
                cfg.parallel.zeroStage = zero;
                Strategy full;
                full.kind = StrategyKind::Full;
                auto e = evaluateParallel(m->network, full, {}, cfg, cluster, false);
                QVERIFY2(e.ok(), e.ok() ? "" : (name + ": " + e.error().message).c_str());
                const std::int64_t peak = e->evaluation.timeline.peakBytes;
                if (previous >= 0) QVERIFY2(peak <= previous, name.c_str());
                previous = peak;
                QVERIFY(e->time.totalS > 0);
                QVERIFY(e->mfu > 0 && e->mfu < 1);
            }
        }
    }

    // max-batch under a layout: the largest micro-batch per data-parallel rank whose peaking
    // rank fits one GPU (the next one does not), larger with ZeRO-3 than on one GPU; a global
    // batch across dp picks a divisor of G / dp that fits; a batch dp does not divide is refused.
    void largestMicroBatchPerGpu() {
        auto m = loadModel("gpt2-small");
        QVERIFY(m.ok());
        const ClusterSpec cluster = *findCluster("dgx-a100-40gb");
        Strategy none;
        TrainingConfig cfg = m->training;
        cfg.accumulationSteps = 1;
        cfg.parallel.dp = 8;
        cfg.parallel.zeroStage = 3;
        auto f = fitStrategyParallel(m->network, none, cfg, cluster, 0);
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().message.c_str());
        const std::int64_t largest = f->fit.maxMicroBatch;
        QVERIFY(largest >= 1);
        QCOMPARE(f->fit.microBatch, largest);
        QVERIFY(f->fit.peakBytes <= cluster.device.usableBytes());
        QCOMPARE(f->globalBatch, largest * 8);
        auto at = [&](std::int64_t b) {
            TrainingConfig c = cfg;
            c.microBatch = b;
            auto e = evaluateParallel(m->network, none, {}, c, cluster, false);
            return e.ok() && e->fits;
        };
        QVERIFY(at(largest));
        QVERIFY(!at(largest + 1));
        // One GPU holds the whole model states: a smaller micro-batch fits there.
        TrainingConfig one = cfg;
        one.parallel = ParallelConfig{};
        auto single = fitStrategyParallel(m->network, none, one, cluster, 0);
        QVERIFY(single.ok());
        QVERIFY2(single->fit.maxMicroBatch < largest,
                 qPrintable(QString("%1 vs %2").arg(single->fit.maxMicroBatch).arg(largest)));
        // Global batch 8 x 24 across dp 8: the largest divisor of 24 that fits.
        auto g = fitStrategyParallel(m->network, none, cfg, cluster, 192);
        QVERIFY(g.ok());
        QVERIFY(g->fit.microBatch >= 1 && 24 % g->fit.microBatch == 0);
        QCOMPARE(g->fit.microBatch * g->fit.accumulationSteps * 8, std::int64_t(192));
        QCOMPARE(g->globalBatch, std::int64_t(192));
        for (std::int64_t d = g->fit.microBatch + 1; d <= 24; ++d) {
            if (24 % d != 0) continue;
            TrainingConfig c = cfg;
            c.microBatch = d;
            c.accumulationSteps = 24 / d;
            auto e = evaluateParallel(m->network, none, {}, c, cluster, false);
            QVERIFY(e.ok());
            QVERIFY2(!e->fits, qPrintable(QString("divisor %1 fits too").arg(d)));
        }
        auto bad = fitStrategyParallel(m->network, none, cfg, cluster, 100);
        QVERIFY(!bad.ok());
        QVERIFY2(QString::fromStdString(bad.error().message)
                     .contains("the global batch 100 does not split over the data-parallel degree 8"),
                 bad.error().message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestParallel)
#include "tst_parallel.moc"
