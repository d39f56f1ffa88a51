// One layer numbering for every view: the layer stack's row numbers. A layer is named by its
// expanded instance index as the stack shows it (the input is row "input", the first layer 0, a
// block repeated 12 times after it the rows 1–12), with "k/N" for the k-th of N instances of a
// repeated block. The stack, the inspector, the step-through's captions and the schedule grid
// all name layers through this, so "layer 5" is the same row everywhere; the model file's
// `network.layers[i]` (an entry, not an instance) is never shown as a layer number.
#pragma once

#include <QString>
#include <cstdint>
#include <vector>

#include "network.h"

namespace remat::ui {

class LayerNumbering {
public:
    LayerNumbering() = default;
    // `firstInstance`: the network's instance that is the numbered graph's layer 0 (under
    // pipeline parallelism a stage's first; else 0). Numbers shown are the network's.
    explicit LayerNumbering(const Network& network, std::int64_t firstInstance = 0);

    bool empty() const { return m_layers.empty(); }
    // The number shown for layer `local` of the numbered graph (its instance in the network).
    std::int64_t number(std::int64_t local) const { return local + m_first; }
    // "layer 13 (layernorm 'ln_f')", "layer 5 (transformer_block 5/12)"; "layer 7" when the
    // network does not have that instance.
    QString layer(std::int64_t local) const;
    // "layers 4–6"; one layer as layer().
    QString range(std::int64_t firstLocal, std::int64_t lastLocal) const;
    // The stack's row text of entry `entry` (its name, else its kind; the kind has a column):
    // "13  ln_f", "1–12  transformer_block × 12".
    QString entryRow(std::size_t entry) const;
    // The stack's row text of an instance of a repeated block: "5  transformer_block 5/12".
    QString instanceRow(std::int64_t instance) const;
    // Entry `entry` in running text (undo texts): "layer 13 (layernorm 'ln_f')",
    // "layers 1–12 (transformer_block × 12)".
    QString entryName(std::size_t entry) const;
    // The inspector's title for entry `entry`: "Layer 13: layernorm 'ln_f'",
    // "Layers 1–12: transformer_block × 12".
    QString entryTitle(std::size_t entry) const;

private:
    struct Instance {
        std::size_t entry = 0;
        std::int64_t k = 1, n = 1;  // the k-th of n instances of its entry
    };
    QString nameOf(std::size_t entry) const;

    std::vector<Instance> m_layers;          // per network instance
    std::vector<std::int64_t> m_firstOf;     // per entry: its first instance
    std::vector<QString> m_names;            // per entry: kind, and 'name' when it has one
    std::vector<QString> m_rowLabels;        // per entry: its name, else its kind (the stack's)
    std::int64_t m_first = 0;
};

}  // namespace remat::ui
