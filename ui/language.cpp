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

bool installTranslators(QCoreApplication& app, const QString& code) {
    const QLocale locale = localeFor(code);
    QLocale::setDefault(locale);
    bool ours = false;
    auto* remat = new QTranslator(&app);
    if (remat->load(locale, QStringLiteral("remat"), QStringLiteral("_"),
                    QString::fromLatin1(kTranslationsPath))) {
        app.installTranslator(remat);
        ours = true;
    } else {
        delete remat;
    }
    auto* qt = new QTranslator(&app);
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        app.installTranslator(qt);
    else
        delete qt;
    return ours;
}

}  // namespace remat::ui
