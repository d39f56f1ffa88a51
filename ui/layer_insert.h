// Adding a layer of a kind picked in the palette at a position of the stack, the one path both
// the palette's "Add" (and double-click) and a drag from the palette onto the stack take: the
// layer gets the defaults that fit the shape arriving at that position (layer_catalog.h) and
// goes in as one undoable document edit. A layer that cannot go there is refused by the
// document (editRejected, shown in the status bar) and the model stays as it was.
#pragma once

#include <cstddef>

#include "network.h"
#include "result.h"

namespace remat::ui {

class Document;

// Inserts before entry `position` (network.layers index; the layer count appends).
Status insertLayerOfKind(Document& document, LayerKind kind, std::size_t position);

}  // namespace remat::ui
