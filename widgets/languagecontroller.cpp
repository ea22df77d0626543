// SPDX-License-Identifier: GPL-3.0-or-later
#include "languagecontroller.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

// Q_INIT_RESOURCE must be used from the global namespace. The .qm files are a resource of this
// static library; registering it again is harmless.
static void initTranslationResources()
{
    Q_INIT_RESOURCE(zhaoxi_widgets_translations);
}

namespace Zhaoxi::Widgets {

namespace {

const QString kConsoleDir = QStringLiteral(":/i18n");

} // namespace

LanguageController::LanguageController(QObject *parent)
    : QObject(parent)
{
    initTranslationResources();
    // English needs its catalogue too: it holds the plural forms ("1 host", "2 hosts").
    m_language.clear();
    if (!setLanguage(QStringLiteral("en")))
        m_language = QStringLiteral("en");
}

LanguageController::~LanguageController()
{
    // Without an application there is nothing to uninstall from (and Qt would warn).
    if (QCoreApplication::instance()) {
        if (m_console)
            QCoreApplication::removeTranslator(m_console.get());
        if (m_qt)
            QCoreApplication::removeTranslator(m_qt.get());
    }
}

QStringList LanguageController::languages()
{
    return {QStringLiteral("en"), QStringLiteral("zh_CN")};
}

QString LanguageController::nativeName(const QString &code)
{
    if (code == QLatin1String("en"))
        return QStringLiteral("English");
    if (code == QLatin1String("zh_CN"))
        return QStringLiteral("\u7b80\u4f53\u4e2d\u6587"); // 简体中文
    return code;
}

QString LanguageController::systemLanguage()
{
    return QLocale::system().language() == QLocale::Chinese ? QStringLiteral("zh_CN")
                                                            : QStringLiteral("en");
}

bool LanguageController::setLanguage(const QString &code)
{
    if (!languages().contains(code))
        return false;
    if (code == m_language)
        return true;

    // The source strings are English; the English catalogue only holds plural forms.
    auto console = std::make_unique<QTranslator>();
    if (!console->load(QStringLiteral("zhaoxi_") + code, kConsoleDir))
        return false;
    auto qt = std::make_unique<QTranslator>();
    if (code == QLatin1String("en")
        || !qt->load(QStringLiteral("qt_") + code,
                     QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        qt.reset(); // Qt's own strings stay English
    }

    if (m_console)
        QCoreApplication::removeTranslator(m_console.get());
    if (m_qt)
        QCoreApplication::removeTranslator(m_qt.get());
    m_console = std::move(console);
    m_qt = std::move(qt);
    QCoreApplication::installTranslator(m_console.get());
    if (m_qt)
        QCoreApplication::installTranslator(m_qt.get());
    m_language = code;
    // Dates and numbers the views format with QLocale() follow the language ("周一 23:30");
    // English keeps the system's conventions.
    QLocale::setDefault(code == QLatin1String("zh_CN") ? QLocale(QLocale::Chinese, QLocale::China)
                                                       : QLocale::system());
    Q_EMIT languageChanged(code);
    return true;
}

} // namespace Zhaoxi::Widgets
