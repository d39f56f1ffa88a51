// The one undo command of the document: it swaps the whole model file between the state before
// and after an edit. A model file is small (a layer list and a few settings), so storing both
// states is cheaper and safer than writing an inverse for every kind of edit; consecutive edits
// of one spin box merge into a single step.
#pragma once

#include <QUndoCommand>

#include "model_file.h"

namespace remat::ui {

class Document;

// Merge ids: edits of the same field in a row become one undo step.
enum class EditMergeId : int {
    None = -1,
    MicroBatch = 1,
    AccumulationSteps,
    EveryK,
    NetworkName,
};

class ModelCommand : public QUndoCommand {
public:
    ModelCommand(Document* document, const QString& text, ModelFile before, ModelFile after,
                 EditMergeId mergeId = EditMergeId::None);

    void undo() override;
    void redo() override;
    int id() const override { return static_cast<int>(m_mergeId); }
    bool mergeWith(const QUndoCommand* other) override;

private:
    Document* m_document;
    ModelFile m_before;
    ModelFile m_after;
    EditMergeId m_mergeId;
};

}  // namespace remat::ui
