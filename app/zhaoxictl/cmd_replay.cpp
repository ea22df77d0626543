// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl replay: a recorded period of a store replayed in the twin under one policy, or what
// happened beside every policy's replay (--compare) (docs/replay.md).
#include "commands.h"

#include "core/catalogue/catalogue.h"
#include "core/policy/policy.h"
#include "core/replay/replay.h"
#include "core/storage/store.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonDocument>

namespace Zhaoxi::Cli {

namespace {

int usage(Io &io, const QString &why)
{
    io.err << "replay: " << why << "\n";
    return 2;
}

QString shownTime(qint64 ms, qint64 offsetMs)
{
    QDateTime t = QDateTime::fromMSecsSinceEpoch(ms, Qt::OffsetFromUTC, int(offsetMs / 1000));
    return t.toString(Qt::ISODate);
}

} // namespace

int runReplay(const QStringList &argList, Io &io)
{
    Args args(argList);
    const std::optional<QString> db = args.value(QStringLiteral("db"));
    const std::optional<QString> fromText = args.value(QStringLiteral("from"));
    const std::optional<QString> toText = args.value(QStringLiteral("to"));
    std::optional<QString> policy = args.value(QStringLiteral("policy"));
    const bool compare = args.flag(QStringLiteral("compare"));
    const bool json = args.flag(QStringLiteral("json"));
    if (!args.missingValueFor().isEmpty())
        return usage(io, args.missingValueFor() + QStringLiteral(" needs a value"));
    if (!args.unknownOptions().isEmpty() || !args.positional().isEmpty())
        return usage(io,
                     QStringLiteral("unexpected argument(s): ")
                             + (args.unknownOptions() + args.positional()).join(QLatin1Char(' ')));
    if (!db)
        return usage(io, QStringLiteral("--db FILE is required (the store a run recorded)"));
    if (!fromText || !toText)
        return usage(io, QStringLiteral("--from T and --to T are required (ISO-8601 or epoch ms)"));
    if (compare == policy.has_value())
        return usage(io, QStringLiteral("give --policy NAME or --compare (one of them)"));
    const std::optional<qint64> from = parseTimeArg(*fromText);
    if (!from)
        return usage(
                io, QStringLiteral("--from: '%1' is neither ISO-8601 nor epoch ms").arg(*fromText));
    const std::optional<qint64> to = parseTimeArg(*toText);
    if (!to)
        return usage(io,
                     QStringLiteral("--to: '%1' is neither ISO-8601 nor epoch ms").arg(*toText));
    if (policy) {
        if (const QString known = knownName(*policy, Policy::policyNames()); !known.isEmpty())
            policy = known;
        if (!Policy::policyNames().contains(*policy))
            return usage(io,
                         QStringLiteral("unknown policy \"%1\" (known: %2)")
                                 .arg(*policy, Policy::policyNames().join(QStringLiteral(", "))));
    }
    if (!QFileInfo::exists(*db))
        return usage(io, QStringLiteral("--db: %1: no such file").arg(*db));
    QString err;
    auto reader = Storage::Reader::open(*db, Storage::Reader::OpenMode::MigrateIfOlder, &err);
    if (!reader)
        return usage(io, QStringLiteral("--db: %1").arg(err));
    const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    QElapsedTimer wall;
    wall.start();
    const std::optional<Replay::RecordedPeriod> period
            = Replay::readRecordedPeriod(*reader, *from, *to, catalogue, &err);
    if (!period)
        return usage(io, err);
    const double readSeconds = double(wall.nsecsElapsed()) / 1e9;
    const QList<Sim::Report> reports
            = compare ? Replay::replayCompare(*period)
                      : QList<Sim::Report>{Replay::replay(*period, *policy)};
    if (json) {
        QJsonObject o = Replay::replayJson(*period, reports);
        o.insert(QStringLiteral("read_seconds"), readSeconds);
        io.out << QJsonDocument(o).toJson(QJsonDocument::Indented);
        return 0;
    }
    const qint64 offset = period->scenario.utcOffsetMs;
    io.out << "recorded " << shownTime(period->fromMs, offset) << " - "
           << shownTime(period->toMs, offset) << " of " << *db << "\n"
           << "basis: " << period->scenario.name << ", ran under " << period->basisPolicy
           << ", seed " << period->seed << "; " << period->recordedServices
           << " service(s) with recorded requests, " << period->recordedJobs
           << " training/batch job(s), " << period->recordedFaults << " fault(s); read in "
           << QString::number(readSeconds, 'f', 2) << " s\n";
    for (const QString &n : period->notes)
        io.out << "note: " << n << "\n";
    io.out << "\n";
    if (compare)
        io.out << Sim::formatComparison(reports)
               << "\n\"recorded\" is what happened; its p99 is the request-weighted mean of the "
                  "recorded windows' p99, its bound the replays'.\n";
    else
        io.out << Sim::formatReport(reports.first());
    return 0;
}

} // namespace Zhaoxi::Cli
