#include "help_browser.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace remat::ui {

QString embeddedHelpText(const QString& resource) {
    QFile f(resource);
    if (!f.open(QIODevice::ReadOnly)) return {};
    QString text = QString::fromUtf8(f.readAll());
    // Screenshots are not embedded: they would show as broken images.
    static const QRegularExpression image(QStringLiteral("!\\[[^\\]]*\\]\\([^)]*\\)"));
    text.remove(image);
    return text;
}

HelpBrowser::HelpBrowser(const QString& title, const QString& resource, QWidget* parent)
    : QDialog(parent), m_browser(new QTextBrowser(this)) {
    setWindowTitle(title);
    setAttribute(Qt::WA_DeleteOnClose);
    m_browser->setOpenExternalLinks(true);
    m_browser->setSearchPaths({QStringLiteral(":/docs")});
    m_markdown = embeddedHelpText(resource);
    if (m_markdown.isEmpty())
        m_browser->setPlainText(tr("This page is not built into this copy of Remat Studio."));
    else
        m_browser->setMarkdown(m_markdown);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_browser);
    layout->addWidget(buttons);
    resize(820, 640);
}

}  // namespace remat::ui
