// The catalog of layers a user can add from the palette: every layer kind of the model format,
// grouped as a person looks for them, with a one-line description, and a sensible default for
// each kind given the shape it will receive (a linear keeps the width, a transformer block
// picks a head count that divides the width), so that an added layer usually fits at once.
#pragma once

#include <QString>
#include <vector>

#include "network.h"

namespace remat::ui {

struct CatalogGroup {
    QString title;
    std::vector<LayerKind> kinds;
};

// All kinds, grouped, in palette order.
std::vector<CatalogGroup> layerCatalog();
QString layerDescription(LayerKind kind);
// A layer of `kind` ready to follow a layer whose per-sample output is `input`.
Layer defaultLayer(LayerKind kind, const Shape& input);

}  // namespace remat::ui
