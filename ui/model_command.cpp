#include "model_command.h"

#include "document.h"

namespace remat::ui {

ModelCommand::ModelCommand(Document* document, const QString& text, ModelFile before,
                           ModelFile after, EditMergeId mergeId)
    : QUndoCommand(text),
      m_document(document),
      m_before(std::move(before)),
      m_after(std::move(after)),
      m_mergeId(mergeId) {}

void ModelCommand::undo() {
    m_document->restore(m_before);
}

void ModelCommand::redo() {
    m_document->restore(m_after);
}

bool ModelCommand::mergeWith(const QUndoCommand* other) {
    if (other->id() != id() || m_mergeId == EditMergeId::None) return false;
    const auto* o = static_cast<const ModelCommand*>(other);
    m_after = o->m_after;
    setText(o->text());
    // Typing a value and back again leaves nothing to undo.
    setObsolete(m_after == m_before);
    return true;
}

}  // namespace remat::ui
