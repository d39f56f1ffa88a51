// The inspector: edits the parameters of the layer selected in the stack (or the network's
// input). Every keystroke re-checks the candidate network with remat::inferShapes and shows the
// result inline — the output shape, or the error naming the layer and the mismatch — without
// touching the model; Apply makes the edit one undo command, Revert discards it.
#pragma once

#include <QStringList>
#include <QWidget>
#include <vector>

#include "layer_fields.h"
#include "network.h"

class QFormLayout;
class QLabel;
class QPushButton;

namespace remat::ui {

class Document;

class Inspector : public QWidget {
    Q_OBJECT
public:
    explicit Inspector(Document* document, QWidget* parent = nullptr);

    // Shows entry `entry` of the network; -1 the input; anything else: nothing.
    void setEntry(int entry);
    int entry() const { return m_entry; }

    // For tests: the editor of a field, the inline status, whether Apply is possible.
    QWidget* editorFor(const QString& key) const;
    QString statusText() const;
    bool canApply() const;

public slots:
    void apply();
    void revert();

private:
    void rebuild();
    void revalidate();
    void reloadIfChanged();
    Layer editedLayer() const;
    InputSpec editedInput() const;
    QWidget* makeEditor(const LayerField& field, const QVariant& value);
    void clearForm();
    // Keys of the fields whose value differs from the layer (or input) as it is.
    QStringList changedKeys() const;
    // The status line under the fields says the edit was refused, and why.
    void showRefused(const QString& message);

    Document* m_document;
    int m_entry = -2;
    Layer m_baseLayer;
    InputSpec m_baseInput;
    std::vector<LayerField> m_fields;
    std::vector<QWidget*> m_editors;
    QWidget* m_shapeEdit = nullptr;
    QWidget* m_tokensEdit = nullptr;
    QWidget* m_vocabEdit = nullptr;
    QLabel* m_title;
    QWidget* m_formHost;
    QFormLayout* m_form;
    QLabel* m_status;
    QPushButton* m_apply;
    QPushButton* m_revert;
    bool m_valid = false;
};

}  // namespace remat::ui
