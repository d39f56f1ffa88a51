#include "language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QTranslator>

namespace remat::ui {

std::vector<LanguageChoice> availableLanguages() {
    // Native names are not translated: a person looks for their own language in its own script.
    return {{QStringLiteral("en"), QStringLiteral("English")},
            {QStringLiteral("zh_CN"), QString::fromUtf8("简体中文")}};
}

QLocale localeFor(const QString& code) {
    return code.isEmpty() ? QLocale::system() : QLocale(code);
}

namespace {

// The object name that marks the translators installTranslators() installed.
const QLatin1String kInstalledName("remat-installed-translator");

}  // namespace

bool installTranslators(QCoreApplication& app, const QString& code) {
    for (QTranslator* t : app.findChildren<QTranslator*>(QString(kInstalledName),
                                                         Qt::FindDirectChildrenOnly)) {
        QCoreApplication::removeTranslator(t);
        delete t;
    }
    const QLocale locale = localeFor(code);
    QLocale::setDefault(locale);
    bool ours = false;
    auto* remat = new QTranslator(&app);
    remat->setObjectName(kInstalledName);
    if (remat->load(locale, QStringLiteral("remat"), QStringLiteral("_"),
                    QString::fromLatin1(kTranslationsPath))) {
        app.installTranslator(remat);
        ours = true;
    } else {
        delete remat;
    }
    auto* qt = new QTranslator(&app);
    qt->setObjectName(kInstalledName);
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        app.installTranslator(qt);
    else
        delete qt;
    return ours;
}

}  // namespace remat::ui
