// `remat import-hf`: a Hugging Face config.json (or a checkpoint directory holding one) as a
// model file, printed or written with -o, so that every other command can take it.
#include <iostream>
#include <optional>

#include "commands.h"
#include "common.h"
#include "hf_import.h"
#include "lower.h"

namespace remat::cli {

namespace {

struct ImportOptions {
    std::string config;
    std::string out;
    std::optional<std::int64_t> seqLen;
    std::optional<std::int64_t> microBatch;
};

int runImportHf(const ImportOptions& o) {
    // Flags first: a wrong flag is named before the config is read.
    if (o.seqLen && (*o.seqLen < 1 || *o.seqLen > (std::int64_t{1} << 31)))
        return userError("--seq-len must be between 1 and 2147483648" + echoedCount(*o.seqLen));
    if (o.microBatch && (*o.microBatch < 1 || *o.microBatch > (std::int64_t{1} << 24)))
        return userError("--micro-batch must be between 1 and 16777216" +
                         echoedCount(*o.microBatch));
    HfImportOptions options;
    options.seqLen = o.seqLen;
    options.microBatch = o.microBatch;
    auto imported = importHfConfigFile(o.config, options);
    if (!imported) return userError(imported.error().message);
    const ModelFile& model = imported->model;
    // With the model on stdout, everything else goes to stderr so that `> model.json` works.
    std::ostream& notes = o.out.empty() ? std::cerr : std::cout;
    if (o.out.empty()) {
        std::cout << modelToJson(model);
    } else {
        auto saved = saveModel(model, o.out);
        if (!saved) return userError(saved.error().message);
        auto g = lower(model.network, model.training);
        notes << "wrote " << shown(o.out, kSentenceLimit) << ": " << shown(model.network.name)
              << " (model_type " << shown(imported->modelType) << "), "
              << (g ? std::to_string(g->parameterCount) : std::string("?")) << " parameters, "
              << (model.network.input.isTokens()
                      ? std::to_string(model.network.input.tokens) + " tokens"
                      : "input " + shapeToString(model.network.input.shape))
              << ", micro-batch "
              << model.training.microBatch << "\n";
    }
    for (const auto& field : imported->ignored)
        notes << "ignored " << shown(field.key) << ": " << shown(field.reason, kSentenceLimit) << "\n";
    return 0;
}

}  // namespace

void addImportHf(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "import-hf", "turn a Hugging Face config.json into a model file (docs/import.md)");
    auto o = std::make_shared<ImportOptions>();
    cmd->add_option("CONFIG", o->config,
                    "a config.json, or a directory holding one (a downloaded checkpoint)")
        ->required();
    cmd->add_option("-o,--output", o->out, "write the model file here (default: print it)");
    cmd->add_option("--seq-len", o->seqLen,
                    "tokens per sequence (default: the config's max_position_embeddings, "
                    "n_positions or n_ctx)");
    cmd->add_option("-b,--micro-batch", o->microBatch, "samples per micro-batch (1 to 16777216)");
    cmd->callback([o, &exitCode] { exitCode = runImportHf(*o); });
}

}  // namespace remat::cli
