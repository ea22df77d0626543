// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

class QTranslator;

namespace Zhaoxi::Widgets {

// The console's display language, switchable at run time. Owns the translators it installs on
// the application: the console's own (compiled in under :/i18n) and Qt's (for the standard
// dialogs' buttons), where Qt ships one. Installing or removing a translator makes Qt post
// QEvent::LanguageChange to every window; widgets retranslate in changeEvent(). Built by the
// composition root and handed to the windows that offer a language menu (no singleton).
// GUI thread only; needs a QCoreApplication.
class LanguageController : public QObject
{
    Q_OBJECT

public:
    explicit LanguageController(QObject *parent = nullptr);
    ~LanguageController() override;

    // The languages the console ships, as codes: "en", "zh_CN".
    static QStringList languages();
    // The language's name in that language ("English", "简体中文"): menus list languages by
    // their own names so a reader can find theirs whatever the current language is.
    static QString nativeName(const QString &code);
    // The shipped language that suits the system locale: "zh_CN" for Chinese, else "en".
    static QString systemLanguage();

    // The current language; "en" (installed on construction) until setLanguage() changes it.
    QString language() const { return m_language; }
    // Switches to `code`. False (and nothing changes) for an unknown code or when its translation
    // cannot be loaded. Switching to the current language does nothing and returns true.
    bool setLanguage(const QString &code);

Q_SIGNALS:
    void languageChanged(const QString &code);

private:
    QString m_language = QStringLiteral("en");
    std::unique_ptr<QTranslator> m_console;
    std::unique_ptr<QTranslator> m_qt;
};

} // namespace Zhaoxi::Widgets
