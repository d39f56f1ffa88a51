// The drag-and-drop payload of a layer kind dragged out of the palette: a custom MIME type whose
// data is the kind's model-file spelling ("transformer_block"), so that it reads the same in
// every build and a drop from anywhere else (a file, text) is never taken for a layer. The
// palette writes it; the layer stack model accepts it and inserts a layer of that kind.
#pragma once

#include <optional>

#include "network.h"

class QMimeData;

namespace remat::ui {

inline constexpr const char* kLayerKindMimeType = "application/x-remat-layer-kind";

// A new QMimeData carrying `kind` (the caller, usually QDrag, owns it).
QMimeData* layerKindMimeData(LayerKind kind);
// The kind a payload carries; nothing when it is not one or names no known kind.
std::optional<LayerKind> layerKindFromMimeData(const QMimeData* data);

}  // namespace remat::ui
