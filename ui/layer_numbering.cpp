#include "layer_numbering.h"

#include <QCoreApplication>

#include "qt_convert.h"

namespace remat::ui {

namespace {
QString tr(const char* text) {
    return QCoreApplication::translate("remat::ui::LayerNumbering", text);
}
}  // namespace

LayerNumbering::LayerNumbering(const Network& network, std::int64_t firstInstance)
    : m_first(firstInstance) {
    for (std::size_t e = 0; e < network.layers.size(); ++e) {
        const Layer& l = network.layers[e];
        m_firstOf.push_back(std::int64_t(m_layers.size()));
        QString name = toQString(layerKindName(l.kind));
        if (!l.name.empty()) name += QStringLiteral(" '%1'").arg(printableText(l.name, 80));
        m_names.push_back(name);
        m_rowLabels.push_back(l.name.empty() ? toQString(layerKindName(l.kind))
                                             : printableText(l.name));
        const std::int64_t n = std::max<std::int64_t>(1, l.repeat);
        for (std::int64_t k = 1; k <= n; ++k) m_layers.push_back(Instance{e, k, n});
    }
}

QString LayerNumbering::nameOf(std::size_t entry) const {
    return entry < m_names.size() ? m_names[entry] : QString();
}

QString LayerNumbering::layer(std::int64_t local) const {
    const std::int64_t i = number(local);
    if (i < 0 || std::size_t(i) >= m_layers.size())
        return tr("layer %1").arg(i);
    const Instance& in = m_layers[std::size_t(i)];
    if (in.n == 1)
        //: A layer named by its row in the layer stack: "layer 13 (layernorm)"
        return tr("layer %1 (%2)").arg(i).arg(nameOf(in.entry));
    //: An instance of a repeated block: "layer 5 (transformer_block 5/12)"
    return tr("layer %1 (%2 %3/%4)").arg(i).arg(nameOf(in.entry)).arg(in.k).arg(in.n);
}

QString LayerNumbering::range(std::int64_t firstLocal, std::int64_t lastLocal) const {
    if (lastLocal <= firstLocal) return layer(firstLocal);
    //: A range of layers by their rows in the layer stack: "layers 4–6"
    return tr("layers %1–%2").arg(number(firstLocal)).arg(number(lastLocal));
}

QString LayerNumbering::entryRow(std::size_t entry) const {
    if (entry >= m_firstOf.size()) return {};
    const std::int64_t first = m_firstOf[entry];
    const Instance& in = m_layers[std::size_t(first)];
    const QString& label = m_rowLabels[entry];
    if (in.n == 1) return QStringLiteral("%1  %2").arg(first).arg(label);
    //: A repeated block, shown compactly: "1–12  transformer_block × 12"
    return tr("%1–%2  %3 × %4").arg(first).arg(first + in.n - 1).arg(label).arg(in.n);
}

QString LayerNumbering::instanceRow(std::int64_t instance) const {
    if (instance < 0 || std::size_t(instance) >= m_layers.size()) return {};
    const Instance& in = m_layers[std::size_t(instance)];
    const QString& label = m_rowLabels[in.entry];
    if (in.n == 1) return QStringLiteral("%1  %2").arg(instance).arg(label);
    //: An instance of a repeated block in the layer stack: "5  transformer_block 5/12"
    return tr("%1  %2 %3/%4").arg(instance).arg(label).arg(in.k).arg(in.n);
}

QString LayerNumbering::entryName(std::size_t entry) const {
    if (entry >= m_firstOf.size()) return {};
    const std::int64_t first = m_firstOf[entry];
    const Instance& in = m_layers[std::size_t(first)];
    if (in.n == 1) return layer(first - m_first);
    //: A repeated block in running text: "layers 1–12 (transformer_block × 12)"
    return tr("layers %1–%2 (%3 × %4)").arg(first).arg(first + in.n - 1).arg(nameOf(entry)).arg(in.n);
}

QString LayerNumbering::entryTitle(std::size_t entry) const {
    if (entry >= m_firstOf.size()) return {};
    const std::int64_t first = m_firstOf[entry];
    const Instance& in = m_layers[std::size_t(first)];
    if (in.n == 1)
        //: The inspector's title: the layer's row in the stack and its kind
        return tr("Layer %1: %2").arg(first).arg(nameOf(entry));
    //: The inspector's title for a repeated block: its rows in the stack
    return tr("Layers %1–%2: %3 × %4").arg(first).arg(first + in.n - 1).arg(nameOf(entry)).arg(in.n);
}

}  // namespace remat::ui
