#include "layer_fields.h"

#include <QCoreApplication>

#include "qt_convert.h"

namespace remat::ui {

namespace {

// Translation context for the free functions of this file.
class LayerFieldsText {
    Q_DECLARE_TR_FUNCTIONS(LayerFields)
};

LayerField sizeField(const char* key, const QString& label, std::int64_t Layer::*member,
                     FieldType type = FieldType::Size) {
    return {QString::fromLatin1(key),
            label,
            type,
            {},
            [member](const Layer& l) { return QVariant::fromValue<qlonglong>(l.*member); },
            [member](Layer& l, const QVariant& v) { l.*member = v.toLongLong(); }};
}

LayerField boolField(const char* key, const QString& label, bool Layer::*member) {
    return {QString::fromLatin1(key),
            label,
            FieldType::Bool,
            {},
            [member](const Layer& l) { return QVariant(l.*member); },
            [member](Layer& l, const QVariant& v) { l.*member = v.toBool(); }};
}

LayerField probabilityField(const char* key, const QString& label, double Layer::*member) {
    return {QString::fromLatin1(key),
            label,
            FieldType::Probability,
            {},
            [member](const Layer& l) { return QVariant(l.*member); },
            [member](Layer& l, const QVariant& v) { l.*member = v.toDouble(); }};
}

LayerField nameField() {
    return {QStringLiteral("name"),
            LayerFieldsText::tr("Name"),
            FieldType::Text,
            {},
            [](const Layer& l) { return QVariant(toQString(l.name)); },
            [](Layer& l, const QVariant& v) { l.name = v.toString().trimmed().toStdString(); }};
}

LayerField activationField() {
    return {QStringLiteral("activation"),
            LayerFieldsText::tr("Activation"),
            FieldType::Choice,
            {QStringLiteral("relu"), QStringLiteral("gelu"), QStringLiteral("silu")},
            [](const Layer& l) { return QVariant(toQString(activationName(l.activation))); },
            [](Layer& l, const QVariant& v) {
                if (auto a = parseActivation(v.toString().toStdString())) l.activation = *a;
            }};
}

LayerField normField() {
    return {QStringLiteral("norm"),
            LayerFieldsText::tr("Norm"),
            FieldType::Choice,
            {QStringLiteral("layernorm"), QStringLiteral("rmsnorm")},
            [](const Layer& l) {
                return QVariant(l.norm == NormKind::LayerNorm ? QStringLiteral("layernorm")
                                                              : QStringLiteral("rmsnorm"));
            },
            [](Layer& l, const QVariant& v) {
                l.norm = v.toString() == QLatin1String("rmsnorm") ? NormKind::RmsNorm
                                                                  : NormKind::LayerNorm;
            }};
}

LayerField normPositionField() {
    return {QStringLiteral("norm_position"),
            LayerFieldsText::tr("Norm position"),
            FieldType::Choice,
            {QStringLiteral("pre"), QStringLiteral("post")},
            [](const Layer& l) {
                return QVariant(l.normPosition == NormPosition::Post ? QStringLiteral("post")
                                                                     : QStringLiteral("pre"));
            },
            [](Layer& l, const QVariant& v) {
                l.normPosition = v.toString() == QLatin1String("post") ? NormPosition::Post
                                                                       : NormPosition::Pre;
            }};
}

LayerField attentionImplField() {
    return {QStringLiteral("attention"),
            LayerFieldsText::tr("Attention core"),
            FieldType::Choice,
            {QStringLiteral("eager"), QStringLiteral("flash")},
            [](const Layer& l) {
                return QVariant(l.attention == AttentionImpl::Eager ? QStringLiteral("eager")
                                                                    : QStringLiteral("flash"));
            },
            [](Layer& l, const QVariant& v) {
                l.attention = v.toString() == QLatin1String("flash") ? AttentionImpl::Flash
                                                                     : AttentionImpl::Eager;
            }};
}

LayerField variantField() {
    return {QStringLiteral("variant"),
            LayerFieldsText::tr("Variant"),
            FieldType::Choice,
            {QStringLiteral("basic"), QStringLiteral("bottleneck")},
            [](const Layer& l) {
                return QVariant(l.variant == ResidualVariant::Basic ? QStringLiteral("basic")
                                                                    : QStringLiteral("bottleneck"));
            },
            [](Layer& l, const QVariant& v) {
                l.variant = v.toString() == QLatin1String("bottleneck")
                                ? ResidualVariant::Bottleneck
                                : ResidualVariant::Basic;
            }};
}

// Format 2's `qkv_bias`: "same" (absent: follows `bias`), "true" or "false".
LayerField qkvBiasField() {
    return {QStringLiteral("qkv_bias"),
            LayerFieldsText::tr("QKV bias"),
            FieldType::Choice,
            {QStringLiteral("same"), QStringLiteral("true"), QStringLiteral("false")},
            [](const Layer& l) {
                return QVariant(!l.qkvBias ? QStringLiteral("same")
                                           : *l.qkvBias ? QStringLiteral("true")
                                                        : QStringLiteral("false"));
            },
            [](Layer& l, const QVariant& v) {
                const QString s = v.toString();
                if (s == QLatin1String("true")) l.qkvBias = true;
                else if (s == QLatin1String("false")) l.qkvBias = false;
                else l.qkvBias.reset();
            }};
}

}  // namespace

std::vector<LayerField> fieldsFor(LayerKind kind) {
    std::vector<LayerField> f{nameField()};
    if (isBlock(kind))
        f.push_back(
            sizeField("repeat", LayerFieldsText::tr("Repeat"), &Layer::repeat, FieldType::Count));
    switch (kind) {
        case LayerKind::Linear:
            f.push_back(sizeField("out", LayerFieldsText::tr("Output features"), &Layer::out));
            f.push_back(boolField("bias", LayerFieldsText::tr("Bias"), &Layer::bias));
            break;
        case LayerKind::Relu:
        case LayerKind::Gelu:
        case LayerKind::Silu:
        case LayerKind::Tanh:
        case LayerKind::Sigmoid:
            f.push_back(boolField("inplace", LayerFieldsText::tr("In place"), &Layer::inplace));
            break;
        case LayerKind::Dropout:
            f.push_back(probabilityField("p", LayerFieldsText::tr("Probability"), &Layer::p));
            f.push_back(boolField("inplace", LayerFieldsText::tr("In place"), &Layer::inplace));
            break;
        case LayerKind::Embedding:
            f.push_back(sizeField("dim", LayerFieldsText::tr("Width"), &Layer::dim));
            f.push_back(sizeField("positions", LayerFieldsText::tr("Learned positions (0: none)"),
                                  &Layer::positions, FieldType::Count));
            f.push_back(sizeField("token_types", LayerFieldsText::tr("Token types (0: none)"),
                                  &Layer::tokenTypes, FieldType::Count));
            f.push_back(
                probabilityField("dropout", LayerFieldsText::tr("Dropout"), &Layer::dropout));
            break;
        case LayerKind::Attention:
            f.push_back(sizeField("heads", LayerFieldsText::tr("Heads"), &Layer::heads));
            f.push_back(sizeField("kv_heads", LayerFieldsText::tr("KV heads (0: same)"),
                                  &Layer::kvHeads, FieldType::Count));
            f.push_back(attentionImplField());
            f.push_back(boolField("causal", LayerFieldsText::tr("Causal"), &Layer::causal));
            f.push_back(
                probabilityField("dropout", LayerFieldsText::tr("Dropout"), &Layer::dropout));
            f.push_back(boolField("bias", LayerFieldsText::tr("Bias"), &Layer::bias));
            f.push_back(qkvBiasField());
            // Model format 3; the rotated fraction and the base stay as the file says.
            f.push_back(boolField("rotary", LayerFieldsText::tr("Rotary positions (RoPE)"),
                                  &Layer::rotary));
            break;
        case LayerKind::Mlp:
            f.push_back(
                sizeField("mlp_hidden", LayerFieldsText::tr("Hidden width"), &Layer::mlpHidden));
            f.push_back(activationField());
            f.push_back(boolField("gated", LayerFieldsText::tr("Gated (SwiGLU)"), &Layer::gated));
            f.push_back(
                probabilityField("dropout", LayerFieldsText::tr("Dropout"), &Layer::dropout));
            f.push_back(boolField("bias", LayerFieldsText::tr("Bias"), &Layer::bias));
            break;
        case LayerKind::TransformerBlock:
            f.push_back(sizeField("heads", LayerFieldsText::tr("Heads"), &Layer::heads));
            f.push_back(sizeField("kv_heads", LayerFieldsText::tr("KV heads (0: same)"),
                                  &Layer::kvHeads, FieldType::Count));
            f.push_back(sizeField("mlp_hidden", LayerFieldsText::tr("MLP hidden width"),
                                  &Layer::mlpHidden));
            f.push_back(activationField());
            f.push_back(
                boolField("gated", LayerFieldsText::tr("Gated MLP (SwiGLU)"), &Layer::gated));
            f.push_back(normField());
            f.push_back(normPositionField());
            f.push_back(attentionImplField());
            f.push_back(boolField("causal", LayerFieldsText::tr("Causal"), &Layer::causal));
            f.push_back(
                probabilityField("dropout", LayerFieldsText::tr("Dropout"), &Layer::dropout));
            f.push_back(boolField("bias", LayerFieldsText::tr("Bias"), &Layer::bias));
            f.push_back(qkvBiasField());
            // Model format 3; the rotated fraction and the base stay as the file says.
            f.push_back(boolField("rotary", LayerFieldsText::tr("Rotary positions (RoPE)"),
                                  &Layer::rotary));
            f.push_back(boolField("parallel_residual", LayerFieldsText::tr("Parallel attention and MLP"),
                                  &Layer::parallelResidual));
            break;
        case LayerKind::Conv2d:
            f.push_back(sizeField("out_channels", LayerFieldsText::tr("Output channels"),
                                  &Layer::outChannels));
            f.push_back(sizeField("kernel", LayerFieldsText::tr("Kernel"), &Layer::kernel));
            f.push_back(sizeField("stride", LayerFieldsText::tr("Stride"), &Layer::stride));
            f.push_back(sizeField("padding", LayerFieldsText::tr("Padding"), &Layer::padding,
                                  FieldType::Count));
            // Model format 2 (written only when not 1).
            f.push_back(sizeField("dilation", LayerFieldsText::tr("Dilation"), &Layer::dilation));
            f.push_back(sizeField("groups", LayerFieldsText::tr("Groups"), &Layer::groups));
            f.push_back(boolField("bias", LayerFieldsText::tr("Bias"), &Layer::bias));
            break;
        case LayerKind::MaxPool2d:
            f.push_back(sizeField("kernel", LayerFieldsText::tr("Kernel"), &Layer::kernel));
            f.push_back(sizeField("stride", LayerFieldsText::tr("Stride"), &Layer::stride));
            f.push_back(sizeField("padding", LayerFieldsText::tr("Padding"), &Layer::padding,
                                  FieldType::Count));
            break;
        case LayerKind::PatchEmbedding:
            f.push_back(sizeField("dim", LayerFieldsText::tr("Width"), &Layer::dim));
            f.push_back(sizeField("patch", LayerFieldsText::tr("Patch"), &Layer::kernel));
            f.push_back(
                boolField("class_token", LayerFieldsText::tr("Class token"), &Layer::classToken));
            f.push_back(
                probabilityField("dropout", LayerFieldsText::tr("Dropout"), &Layer::dropout));
            break;
        case LayerKind::ResidualBlock:
            f.push_back(variantField());
            f.push_back(sizeField("channels", LayerFieldsText::tr("Channels"), &Layer::channels));
            f.push_back(sizeField("stride", LayerFieldsText::tr("Stride"), &Layer::stride));
            break;
        default:
            break;
    }
    return f;
}

}  // namespace remat::ui
