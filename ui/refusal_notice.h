// Refusals shown where the edit was made. When the document refuses an edit (heads that do not
// divide the width, a micro-batch whose program is too large, a budget below anything a plan
// reaches), the editor that made it shows its previous valid value again and this notice says
// why right under it: a framed message over the window (a child of the editor's window, so it
// moves and is captured with it), pointing at the editor or at a part of it (a row of the
// layer stack). One notice per window; a new refusal replaces it, and it goes after a while,
// on a click, or when the next edit is accepted. The status bar keeps the message too.
#pragma once

#include <QRect>
#include <QString>
#include <functional>

class QObject;
class QWidget;

namespace remat::ui {

class Document;

// Where a refusal is shown: a widget, and optionally a part of it (in its coordinates).
struct RefusalPlace {
    QWidget* anchor = nullptr;
    QRect area;
};

// Shows `message` under `anchor` (under `area`, in the anchor's coordinates, when it is not
// empty). Does nothing for a null or hidden anchor.
void showRefusal(QWidget* anchor, const QString& message, const QRect& area = QRect());
// Shows the document's refusals of edits that came from `owner` or a widget inside it
// (EditOrigin): `revert` gets the origin and the message, makes the editors show the document's values again and
// says where the notice goes (the origin itself when it returns no anchor).
void connectRefusals(Document* document, QWidget* owner,
                     std::function<RefusalPlace(QWidget* origin, const QString& message)> revert);
// Hides the notice of `window` (a top-level widget), if shown.
void hideRefusal(QWidget* window);
// The message the notice of `window` shows, or empty when none is shown (for tests).
QString shownRefusal(const QWidget* window);
// The widget the notice of `window` points at, or null (for tests).
QWidget* refusalAnchor(const QWidget* window);

}  // namespace remat::ui
