// The languages Remat Studio's user interface speaks and how the process switches to one: the
// English source strings, or a translation compiled from resources/translations/remat_<code>.ts
// into the executable (under the resource path kTranslationsPath). Which one is used comes from
// `remat-studio --language CODE`, else the choice saved from View → Language, else the system
// locale (LANG, LC_ALL). A choice made in the menu takes effect at once: the translators are
// replaced and the main window rebuilds its views (MainWindow::setLanguage).
#pragma once

#include <QLocale>
#include <QString>
#include <vector>

class QCoreApplication;

namespace remat::ui {

inline constexpr const char* kTranslationsPath = ":/i18n";

struct LanguageChoice {
    QString code;        // "en", "zh_CN"
    QString nativeName;  // as its speakers write it: "English", "简体中文"
};

// Every language with a translation (English, the source language, first).
std::vector<LanguageChoice> availableLanguages();

// The locale a language code names; the system's for an empty code.
QLocale localeFor(const QString& code);

// Installs on `app` the translation of Remat Studio's strings for `code` (empty: the system
// locale) and Qt's own (standard dialogs, context menus), and makes that locale the default.
// Returns whether a translation of Remat Studio's strings was installed: false for English,
// which needs none, and for a language without one (the English strings are shown). The
// translators an earlier call installed are removed first, so that calling it again switches
// the language.
bool installTranslators(QCoreApplication& app, const QString& code);

}  // namespace remat::ui
