#include "backend.h"

namespace remat {

Status runOp(Backend& b, const OpCall& c, bool backward) {
    switch (c.op->kind) {
        case OpKind::Linear: return backward ? b.linearBackward(c) : b.linearForward(c);
        case OpKind::Relu: return backward ? b.reluBackward(c) : b.reluForward(c);
        case OpKind::Gelu: return backward ? b.geluBackward(c) : b.geluForward(c);
        case OpKind::Silu: return backward ? b.siluBackward(c) : b.siluForward(c);
        case OpKind::Tanh: return backward ? b.tanhBackward(c) : b.tanhForward(c);
        case OpKind::Sigmoid: return backward ? b.sigmoidBackward(c) : b.sigmoidForward(c);
        case OpKind::Softmax: return backward ? b.softmaxBackward(c) : b.softmaxForward(c);
        case OpKind::LayerNorm: return backward ? b.layerNormBackward(c) : b.layerNormForward(c);
        case OpKind::RmsNorm: return backward ? b.rmsNormBackward(c) : b.rmsNormForward(c);
        case OpKind::Dropout: return backward ? b.dropoutBackward(c) : b.dropoutForward(c);
        case OpKind::Mul: return backward ? b.mulBackward(c) : b.mulForward(c);
        case OpKind::Add: return backward ? b.addBackward(c) : b.addForward(c);
        case OpKind::Embedding: return backward ? b.embeddingBackward(c) : b.embeddingForward(c);
        case OpKind::AttnScores: return backward ? b.attnScoresBackward(c) : b.attnScoresForward(c);
        case OpKind::AttnContext:
            return backward ? b.attnContextBackward(c) : b.attnContextForward(c);
        case OpKind::ExpandKv: return backward ? b.expandKvBackward(c) : b.expandKvForward(c);
        case OpKind::CrossEntropy:
            return backward ? b.crossEntropyBackward(c) : b.crossEntropyForward(c);
        case OpKind::Mse: return backward ? b.mseBackward(c) : b.mseForward(c);
        case OpKind::Conv2d: return backward ? b.conv2dBackward(c) : b.conv2dForward(c);
        case OpKind::BatchNorm2d:
            return backward ? b.batchNorm2dBackward(c) : b.batchNorm2dForward(c);
        case OpKind::MaxPool2d: return backward ? b.maxPool2dBackward(c) : b.maxPool2dForward(c);
        case OpKind::GlobalAvgPool:
            return backward ? b.globalAvgPoolBackward(c) : b.globalAvgPoolForward(c);
        case OpKind::FlashAttn: return backward ? b.flashAttnBackward(c) : b.flashAttnForward(c);
        case OpKind::Rotary: return backward ? b.rotaryBackward(c) : b.rotaryForward(c);
        default: break;
    }
    return makeError(std::string("no ") + (backward ? "backward" : "forward") + " entry for " +
                     std::string(opKindName(c.op->kind)));
}

Status Backend::missingEntry(const OpCall& c, bool backward) const {
    return makeError("the " + displayName() + " executor has no " +
                     std::string(opKindName(c.op->kind)) + (backward ? " backward" : " forward") +
                     " entry");
}

}  // namespace remat
