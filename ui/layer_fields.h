// The editable parameters of each layer kind, as the model format names them: which kinds
// have which field, its type and range, and how to read and write it on a Layer. The inspector
// builds its form from this table, so a kind's form always matches what the file format and
// the simulator understand.
#pragma once

#include <QString>
#include <QStringList>
#include <QVariant>
#include <functional>
#include <vector>

#include "network.h"

namespace remat::ui {

enum class FieldType { Size, Count, Probability, Bool, Choice, Text };

struct LayerField {
    QString key;    // model-file spelling: "out", "mlp_hidden"
    QString label;  // translated
    FieldType type = FieldType::Size;
    QStringList choices;  // FieldType::Choice: the spellings
    std::function<QVariant(const Layer&)> get;
    std::function<void(Layer&, const QVariant&)> set;
};

// The fields `kind` reads, in form order (name first, repeat for blocks).
std::vector<LayerField> fieldsFor(LayerKind kind);

}  // namespace remat::ui
