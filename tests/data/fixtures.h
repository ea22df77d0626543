// SPDX-License-Identifier: GPL-3.0-or-later
// Shared test fixtures: files under tests/data/, each kept once, and one way to read them.
//
//   tests/data/scenarios.h       the scenarios tests share (the shipped demo day)
//   tests/data/events/*.jsonl    events, one JSON object a line, with the fields of the event
//                                export's JSON Lines (exporter.h): epoch_ms, severity, source,
//                                code, card, partition, job, actor, params; null or absent ids
//                                are -1, a null or absent actor is empty, params is an object
//                                (absent: none). id, time and message, which the store and the
//                                exporter make, are refused, as is any other key.
//
// The folder is ZHAOXI_TEST_DATA_DIR when the build defines it; otherwise the folder this header
// was found in (the compiler's __FILE__, an absolute path in this build), so that a test needs no
// CMake change to use it; failing that, $ZHAOXI_SOURCE_DIR/tests/data (set by ctest).
//
// A fixture that is missing or malformed is a broken checkout, not a test result: the readers
// stop the test with qFatal() naming the file (and the line), instead of letting it pass on
// nothing.
#pragma once

#include "core/storage/event.h"

#include <QByteArray>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

namespace Zhaoxi::TestData {

inline QString dir()
{
#ifdef ZHAOXI_TEST_DATA_DIR
    return QStringLiteral(ZHAOXI_TEST_DATA_DIR);
#else
    const QFileInfo here(QString::fromUtf8(__FILE__));
    if (here.isAbsolute() && here.exists())
        return here.absolutePath();
    return qEnvironmentVariable("ZHAOXI_SOURCE_DIR") + QStringLiteral("/tests/data");
#endif
}

// "events/export-texts.jsonl" -> the fixture's path.
inline QString path(const QString &relative)
{
    return dir() + QLatin1Char('/') + relative;
}

// The fixture's bytes.
inline QByteArray read(const QString &relative)
{
    QFile f(path(relative));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("test fixture %s: %s", qPrintable(f.fileName()), qPrintable(f.errorString()));
    return f.readAll();
}

// The events of a .jsonl fixture, in file order; ids are left 0 (the store assigns them).
inline QList<Storage::Event> events(const QString &relative)
{
    const QString file = path(relative);
    const QByteArray data = read(relative);
    QList<Storage::Event> out;
    int lineNo = 0;
    for (const QByteArray &line : data.split('\n')) {
        ++lineNo;
        if (line.trimmed().isEmpty())
            continue;
        auto fail = [&](const QString &why) {
            qFatal("test fixture %s:%d: %s", qPrintable(file), lineNo, qPrintable(why));
        };
        QJsonParseError pe;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &pe);
        if (!doc.isObject())
            fail(pe.error != QJsonParseError::NoError ? pe.errorString()
                                                      : QStringLiteral("not an object"));
        const QJsonObject o = doc.object();
        static const QStringList known = {QStringLiteral("epoch_ms"),
                                          QStringLiteral("severity"),
                                          QStringLiteral("source"),
                                          QStringLiteral("code"),
                                          QStringLiteral("card"),
                                          QStringLiteral("partition"),
                                          QStringLiteral("job"),
                                          QStringLiteral("actor"),
                                          QStringLiteral("params")};
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (!known.contains(it.key()))
                fail(QStringLiteral("unknown key \"%1\"").arg(it.key()));
        }
        Storage::Event e;
        if (!o.value(QStringLiteral("epoch_ms")).isDouble())
            fail(QStringLiteral("epoch_ms must be a number"));
        e.atMs = o.value(QStringLiteral("epoch_ms")).toInteger();
        const auto severity
                = Storage::severityFromString(o.value(QStringLiteral("severity")).toString());
        const auto source = Storage::sourceFromString(o.value(QStringLiteral("source")).toString());
        if (!severity || !source)
            fail(QStringLiteral("severity and source must be their export spellings"));
        e.severity = *severity;
        e.source = *source;
        e.code = o.value(QStringLiteral("code")).toString().toLatin1();
        if (e.code.isEmpty())
            fail(QStringLiteral("code is missing"));
        auto id = [&](const char *key) {
            const QJsonValue v = o.value(QLatin1String(key));
            if (v.isNull() || v.isUndefined())
                return -1;
            if (!v.isDouble() || v.toInt(-1) < 0)
                fail(QStringLiteral("%1 must be null or an integer >= 0").arg(QLatin1String(key)));
            return v.toInt();
        };
        e.card = id("card");
        e.partition = id("partition");
        e.job = id("job");
        e.actor = o.value(QStringLiteral("actor")).toString();
        const QJsonValue params = o.value(QStringLiteral("params"));
        if (params.isObject())
            e.params = QJsonDocument(params.toObject()).toJson(QJsonDocument::Compact);
        else if (!params.isUndefined() && !params.isNull())
            fail(QStringLiteral("params must be an object"));
        out.append(e);
    }
    if (out.isEmpty())
        qFatal("test fixture %s: no events", qPrintable(file));
    return out;
}

} // namespace Zhaoxi::TestData
