#include "layer_kind_mime.h"

#include <QMimeData>
#include <string>

namespace remat::ui {

QMimeData* layerKindMimeData(LayerKind kind) {
    auto* data = new QMimeData;
    const std::string_view name = layerKindName(kind);
    data->setData(QString::fromLatin1(kLayerKindMimeType),
                  QByteArray(name.data(), qsizetype(name.size())));
    return data;
}

std::optional<LayerKind> layerKindFromMimeData(const QMimeData* data) {
    if (!data || !data->hasFormat(QString::fromLatin1(kLayerKindMimeType))) return std::nullopt;
    const QByteArray bytes = data->data(QString::fromLatin1(kLayerKindMimeType));
    return parseLayerKind(std::string_view(bytes.constData(), std::size_t(bytes.size())));
}

}  // namespace remat::ui
