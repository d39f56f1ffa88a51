// Tests of the plan exports (sim/export_*.h, docs/ecosystem.md): the text each target writes for
// a few plans of gpt2-tiny, gpt2-small and the MLP preset (the PyTorch module's checkpoint calls
// and sub-module regions, transformers' gradient_checkpointing_enable or per-module code,
// Megatron-LM's flags, DeepSpeed's section), and every refusal with its reason: nested regions,
// a region reaching into the loss, several blocks in one Hugging Face checkpoint, the core
// attention alone for Hugging Face, plans Megatron-LM cannot express, models without blocks,
// regions that cut through a module, regions that do not preserve the RNG state. The PyTorch
// export is also run with PyTorch: tests/torch/test_export_pytorch.py. The command: stdout, -o
// FILE and its user errors.
#include <QtTest/QtTest>

#include <QProcess>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>
#include <string>

#include "device.h"
#include "export_plan.h"
#include "lower.h"
#include "model_file.h"
#include "strategy.h"

using namespace remat;

namespace {

Result<ExportResult> run(const std::string& preset, const std::string& strategy,
                         ExportTarget target, std::vector<RegionSpec> manual = {},
                         RecomputeImpl impl = RecomputeImpl::Pytorch) {
    auto model = loadModel(preset);
    if (!model) return model.error();
    auto device = findDevice("a100-80gb");
    if (!device) return device.error();
    auto s = parseStrategy(strategy);
    if (!s) return s.error();
    if (manual.empty()) manual = manualRegions(*model);
    model->training.recomputeImpl = impl;
    return exportStrategy(target, model->network, model->training, *device, *s, manual);
}

std::string text(const std::string& preset, const std::string& strategy, ExportTarget target,
                 std::vector<RegionSpec> manual = {}) {
    auto r = run(preset, strategy, target, std::move(manual));
    if (!r) {
        qWarning("%s", r.error().message.c_str());
        return {};
    }
    return r->text;
}

std::string refusal(const std::string& preset, const std::string& strategy, ExportTarget target,
                    std::vector<RegionSpec> manual = {}) {
    auto r = run(preset, strategy, target, std::move(manual));
    return r ? std::string() : r.error().message;
}

bool has(const std::string& haystack, const std::string& needle) {
    const bool found = haystack.find(needle) != std::string::npos;
    if (!found) qWarning("missing: %s", needle.c_str());
    return found;
}

// Whether `haystack` lacks `needle` (no warning: the absence is what is expected).
bool lacks(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) == std::string::npos;
}

RegionSpec layers(std::int64_t first, std::int64_t last) { return {false, first, last, {}}; }
RegionSpec path(const std::string& p) { return {true, 0, 0, p}; }

}  // namespace

class TestExport : public QObject {
    Q_OBJECT
private slots:
    void targetSpellings() {
        for (ExportTarget t : kExportTargets)
            QVERIFY(parseExportTarget(exportTargetName(t)) == t);
        QVERIFY(!parseExportTarget("torch"));
    }

    void pytorchFullCheckpointsEachBlock() {
        const std::string t = text("gpt2-tiny", "full", ExportTarget::Pytorch);
        QVERIFY(has(t, "x = self.run_region(self.layers[1], x)  # region \"1\""));
        QVERIFY(has(t, "x = self.run_region(self.layers[2], x)  # region \"2\""));
        QVERIFY(has(t, "return checkpoint(function, *args, use_reentrant=USE_REENTRANT)"));
        QVERIFY(has(t, "\nUSE_REENTRANT = False\n"));
        QVERIFY(lacks(t, "checkpoint_sequential("));
        QVERIFY(has(t, "(\"1\", [\"layers.1\"]),\n    (\"2\", [\"layers.2\"]),\n]"));
        // The structure of the lowering: embedding, blocks, final norm, tied head, loss.
        QVERIFY(has(t, "Embedding(512, 128, 128, 0.1),  # 0 embedding"));
        QVERIFY(has(t, "TransformerBlock(128, 4, 4, 512, \"gelu\", False, \"layernorm\", 0.1, "
                       "True, True, True, False),  # 1 transformer_block"));
        QVERIFY(has(t, "nn.Linear(128, 512, bias=False),  # 4 linear"));
        QVERIFY(has(t, "self.layers[4].weight = self.layers[0].wte.weight"));
        QVERIFY(has(t, "return self.layers[5](x, targets)"));
        QVERIFY(has(t, "x = self.layers[3](x)\n"));
    }

    void pytorchGroupsAreOneMethod() {
        const std::string t = text("gpt2-tiny", "every:2", ExportTarget::Pytorch);
        QVERIFY(has(t, "def layers_1_to_2(self, x):"));
        QVERIFY(has(t, "x = self.run_region(self.layers_1_to_2, x)  # region \"1-2\""));
        QVERIFY(has(t, "(\"1-2\", [\"layers.1\", \"layers.2\"])"));
        QVERIFY(has(t, "never checkpoints its last segment"));
    }

    void pytorchSelectiveIsSubModules() {
        const std::string core = text("gpt2-tiny", "selective:attention_core", ExportTarget::Pytorch);
        QVERIFY(has(core, "self.layers[1].attention.checkpointed.add(\"attention_core\")"));
        QVERIFY(has(core, "self.layers[2].attention.checkpointed.add(\"attention_core\")"));
        QVERIFY(has(core, "(\"1/attention/attention_core\", [\"layers.1.attention.attention_core\"])"));
        QVERIFY(lacks(core, "x = self.run_region("));
        const std::string both = text("gpt2-tiny", "selective:attention,mlp", ExportTarget::Pytorch);
        QVERIFY(has(both, "self.layers[1].checkpointed.add(\"attention\")"));
        QVERIFY(has(both, "self.layers[2].checkpointed.add(\"mlp\")"));
    }

    void pytorchNoneAndMlp() {
        const std::string none = text("gpt2-tiny", "none", ExportTarget::Pytorch);
        QVERIFY(has(none, "#   none: nothing is checkpointed"));
        QVERIFY(has(none, "PLAN_REGIONS = [\n]"));
        QVERIFY(lacks(none, "x = self.run_region("));
        const std::string mlp = text("mlp-3x1024", "manual", ExportTarget::Pytorch);
        QVERIFY(has(mlp, "nn.Linear(1024, 1024, bias=True),  # 1 linear"));
        QVERIFY(has(mlp, "x = self.run_region(self.layers[1], x)  # region \"1\""));
        QVERIFY(has(mlp, "def forward(self, x, target):"));
        QVERIFY(has(mlp, "target = torch.randn(batch, 1024)"));
    }

    // Predicted with PyTorch's reentrant checkpoint: use_reentrant=True, checkpoint_sequential
    // where m groups of K layers are followed by K layers no region touches (its last segment).
    void pytorchReentrantUsesCheckpointSequential() {
        auto reentrant = [](const std::string& preset, const std::string& strategy) {
            auto r = run(preset, strategy, ExportTarget::Pytorch, {},
                         RecomputeImpl::PytorchReentrant);
            return r ? r->text : r.error().message;
        };
        const std::string full = reentrant("gpt2-tiny", "full");
        QVERIFY(has(full, "\nUSE_REENTRANT = True\n"));
        QVERIFY(has(full, "        # regions \"1\", \"2\"; layer 3 unchecked (the last segment)\n"
                          "        x = self.run_sequential([self.layers[1], self.layers[2], "
                          "self.layers[3]], 3, x)\n"));
        QVERIFY(has(reentrant("gpt2-tiny", "every:2"),
                    "x = self.run_sequential([self.layers[1], self.layers[2], self.layers[3], "
                    "self.layers[4]], 2, x)\n"));
        // Sub-module regions are not layers: checkpoint calls as before, reentrant.
        const std::string selective = reentrant("gpt2-tiny", "selective:mlp");
        QVERIFY(lacks(selective, "self.run_sequential(["));
        QVERIFY(has(selective, "self.layers[1].checkpointed.add(\"mlp\")"));
        // gpt2-small every:5: groups 1-5, 6-10 and 11-12. The five layers after 6-10 include
        // a region, so 1-5 and 6-10 are checkpoint calls; 11-12 is followed by the final norm
        // and the head (13, 14): checkpoint_sequential over 11-14 in two segments.
        const std::string five = reentrant("gpt2-small", "every:5");
        QVERIFY(has(five, "x = self.run_region(self.layers_1_to_5, x)  # region \"1-5\"\n"));
        QVERIFY(has(five, "x = self.run_region(self.layers_6_to_10, x)  # region \"6-10\"\n"));
        QVERIFY(has(five, "x = self.run_sequential([self.layers[11], self.layers[12], "
                          "self.layers[13], self.layers[14]], 2, x)\n"));
        QVERIFY(has(reentrant("mlp-3x1024", "full"),
                    "region '0' starts at the network's input, which needs no gradient"));
    }

    void pytorchRefusals() {
        QVERIFY(has(refusal("gpt2-tiny", "manual", ExportTarget::Pytorch,
                            {path("1"), path("1/attention")}),
                    "region '1/attention' lies inside region '1'"));
        QVERIFY(has(refusal("gpt2-tiny", "manual", ExportTarget::Pytorch, {layers(4, 5)}),
                    "region '4-5' includes the loss layer"));
        QVERIFY(has(refusal("mlp-3x1024", "selective:attention", ExportTarget::Pytorch),
                    "no 'attention' sub-module"));
    }

    void hfEveryBlockIsGradientCheckpointing() {
        const std::string t = text("gpt2-tiny", "full", ExportTarget::HuggingFace);
        QVERIFY(has(t, "model.gradient_checkpointing_enable(gradient_checkpointing_kwargs="
                       "{\"use_reentrant\": False})"));
        QVERIFY(lacks(t, "checkpoint_module("));
    }

    void hfOtherPlansArePerModule() {
        const std::string t = text("gpt2-tiny", "selective:attention", ExportTarget::HuggingFace);
        QVERIFY(has(t, "    (0, \"attention\"),  # 1/attention\n    (1, \"attention\"),  # 2/attention"));
        QVERIFY(has(t, "\"gpt2\": \"transformer.h\""));
        QVERIFY(has(t, "checkpoint(functools.partial(forward, **kwargs), *args, use_reentrant=False)"));
        QVERIFY(lacks(t, "gradient_checkpointing_enable"));
        const std::string one = text("gpt2-small", "manual", ExportTarget::HuggingFace, {layers(3, 3)});
        QVERIFY(has(one, "    (2, None),  # 3\n]"));
        QVERIFY(has(one, "if len(blocks) != 12:"));
    }

    void hfRefusals() {
        QVERIFY(has(refusal("gpt2-tiny", "every:2", ExportTarget::HuggingFace),
                    "region '1-2' puts several layers in one checkpoint"));
        QVERIFY(has(refusal("gpt2-tiny", "selective:attention_core", ExportTarget::HuggingFace),
                    "is the attention_core alone"));
        QVERIFY(has(refusal("gpt2-tiny", "manual", ExportTarget::HuggingFace, {layers(0, 0)}),
                    "region '0' is not in a transformer block"));
        QVERIFY(has(refusal("mlp-3x1024", "full", ExportTarget::HuggingFace),
                    "needs transformer blocks"));
    }

    void megatronFlags() {
        QVERIFY(has(text("gpt2-tiny", "full", ExportTarget::Megatron),
                    "\n--recompute-granularity full --recompute-method uniform "
                    "--recompute-num-layers 1\n"));
        QVERIFY(has(text("gpt2-small", "every:3", ExportTarget::Megatron),
                    "--recompute-method uniform --recompute-num-layers 3\n"));
        // every:5 over 12 layers: groups 5, 5, 2 (Megatron-LM's last group is the rest).
        QVERIFY(has(text("gpt2-small", "every:5", ExportTarget::Megatron),
                    "--recompute-num-layers 5\n"));
        QVERIFY(has(text("gpt2-small", "manual", ExportTarget::Megatron,
                         {layers(1, 1), layers(2, 2), layers(3, 3)}),
                    "--recompute-method block --recompute-num-layers 3\n"));
        QVERIFY(has(text("gpt2-tiny", "selective:attention_core", ExportTarget::Megatron),
                    "\n--recompute-granularity selective\n"));
        const std::string none = text("gpt2-tiny", "none", ExportTarget::Megatron);
        QVERIFY(has(none, "no recompute flag"));
        QVERIFY(lacks(none, "\n--recompute"));
    }

    void megatronRefusals() {
        QVERIFY(has(refusal("gpt2-small", "manual", ExportTarget::Megatron,
                            {layers(2, 2), layers(4, 4)}),
                    "is not one Megatron-LM's flags express"));
        QVERIFY(has(refusal("gpt2-tiny", "selective:mlp", ExportTarget::Megatron),
                    "region '1/mlp' is the mlp"));
        QVERIFY(has(refusal("mlp-3x1024", "full", ExportTarget::Megatron),
                    "no transformer_block"));
    }

    void deepspeedSection() {
        const std::string t = text("gpt2-tiny", "full", ExportTarget::DeepSpeed);
        auto j = nlohmann::json::parse(t);
        QCOMPARE(j["activation_checkpointing"]["number_checkpoints"].get<int>(), 2);
        QCOMPARE(j["activation_checkpointing"]["partition_activations"].get<bool>(), false);
        QCOMPARE(j["remat_plan"]["regions"][1]["label"].get<std::string>(), std::string("2"));
        QCOMPARE(j["remat_plan"]["regions"][1]["modules"][0].get<std::string>(),
                 std::string("layers.2"));
        QVERIFY(has(j["remat_plan"]["code"].get<std::string>(),
                    "x = deepspeed.checkpointing.checkpoint(self.layers[1], x)\n"));
        QVERIFY(has(refusal("gpt2-tiny", "manual", ExportTarget::DeepSpeed,
                            {path("1"), path("1/mlp")}),
                    "nests regions"));
    }

    void regionsCuttingModulesAndUnsafeRegions() {
        auto model = loadModel("gpt2-tiny");
        QVERIFY(model);
        auto g = lower(model->network, model->training);
        QVERIFY(g);
        const Module& block = g->module(g->findModule("1"));
        Plan cut{"manual", {Region{block.firstOp, block.firstOp + 1, "cut", true}}};
        auto r = exportPlan(ExportTarget::Pytorch, model->network, model->training, *g, cut);
        QVERIFY(!r);
        QVERIFY(has(r.error().message, "region 'cut' is neither whole layers nor one sub-module"));
        Plan unsafe{"manual", {Region{block.firstOp, block.lastOp(), "1", false}}};
        for (ExportTarget t : kExportTargets) {
            auto u = exportPlan(t, model->network, model->training, *g, unsafe);
            QVERIFY(!u);
            QVERIFY(has(u.error().message, "does not preserve the RNG state"));
        }
    }

    // The command: stdout or -o FILE (the same text, one line on stderr), and its user errors.
    void command() {
        auto run = [](const QStringList& args, QString* out = nullptr, QString* err = nullptr) {
            QProcess p;
            p.start(QStringLiteral(REMAT_CLI_PATH), args);
            if (!p.waitForFinished(60000)) return -1;
            if (out) *out = QString::fromUtf8(p.readAllStandardOutput());
            if (err) *err = QString::fromUtf8(p.readAllStandardError());
            return p.exitCode();
        };
        QString printed, err;
        QCOMPARE(run({"export", "gpt2-tiny", "-s", "full", "--to", "megatron"}, &printed), 0);
        QVERIFY(printed.endsWith("--recompute-num-layers 1\n"));
        QTemporaryDir dir;
        const QString path = dir.filePath("flags.txt");
        QString out;
        QCOMPARE(run({"export", "gpt2-tiny", "-s", "full", "--to", "megatron", "-o", path}, &out,
                     &err),
                 0);
        QVERIFY(out.isEmpty());
        QCOMPARE(err, "wrote " + path + ": plan full of gpt2-tiny for megatron, 2 checkpointed "
                                        "regions\n");
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(f.readAll()), printed);
        QCOMPARE(run({"export", "gpt2-tiny", "--to", "torch"}, nullptr, &err), 2);
        QVERIFY(err.startsWith("remat: --to: unknown target 'torch' (known: pytorch, hf, "));
        QCOMPARE(run({"export", "gpt2-tiny", "-s", "every:2", "--to", "hf"}, nullptr, &err), 2);
        QVERIFY(err.startsWith("remat: gpt2-tiny: cannot export plan 'every:2' to hf: region "
                               "'1-2' puts several layers in one checkpoint"));
        QCOMPARE(run({"export", "gpt2-tiny", "--to", "pytorch", "-o", dir.filePath("no/such/x.py")},
                     nullptr, &err),
                 2);
        QVERIFY(err.startsWith("remat: cannot write '"));
        QCOMPARE(run({"export", "gpt2-tiny", "--to", "pytorch"}, nullptr, &err), 0);
        QCOMPARE(run({"export", "gpt2-tiny"}, nullptr, &err), 2);
        QVERIFY(err.contains("--to"));
    }

    void pythonStrings() {
        QCOMPARE(pythonString("a\"b\\c\nd"), std::string("\"a\\\"b\\\\c\\x0ad\""));
    }
};

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
