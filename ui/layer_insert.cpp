#include "layer_insert.h"

#include <algorithm>

#include "document.h"
#include "layer_catalog.h"

namespace remat::ui {

Status insertLayerOfKind(Document& document, LayerKind kind, std::size_t position) {
    position = std::min(position, document.network().layers.size());
    // The shape arriving at `position` is the output of the instance just before it (the
    // input's shape when it goes first).
    const auto& shapes = document.state().shapes;
    const std::int64_t before = document.firstInstanceOf(position);
    const Shape input = std::size_t(before) < shapes.size() ? shapes[std::size_t(before)] : Shape{};
    return document.insertLayer(position, defaultLayer(kind, input));
}

}  // namespace remat::ui
