// Help → User guide and Help → Glossary: docs/user-guide.md and docs/glossary.md, embedded in
// the executable (:/docs), shown as rendered Markdown in a non-modal window. Links to other
// pages of the docs open inside it when they are embedded, in the system browser otherwise.
#pragma once

#include <QDialog>
#include <QString>

class QTextBrowser;

namespace remat::ui {

class HelpBrowser : public QDialog {
    Q_OBJECT
public:
    // `resource`: ":/docs/user-guide.md" or ":/docs/glossary.md".
    HelpBrowser(const QString& title, const QString& resource, QWidget* parent = nullptr);
    // The Markdown text shown (empty when the resource is missing).
    QString markdown() const { return m_markdown; }
    QTextBrowser* browser() const { return m_browser; }

private:
    QTextBrowser* m_browser;
    QString m_markdown;
};

// The embedded Markdown text of a help page, or an empty string.
QString embeddedHelpText(const QString& resource);

}  // namespace remat::ui
