// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl events export | metrics: the event log and the metrics history of a store file.
#include "commands.h"

#include "core/storage/exporter.h"
#include "core/storage/prometheus.h"
#include "core/storage/store.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QTimeZone>

#include <cstdio>

namespace Zhaoxi::Cli {

namespace St = Zhaoxi::Storage;

namespace {

// Values of a repeatable option; each may be a comma-separated list.
QStringList listValues(Args &args, const QString &name)
{
    QStringList r;
    while (auto v = args.value(name)) {
        for (const QString &part : v->split(QLatin1Char(','), Qt::SkipEmptyParts))
            r << part.trimmed();
    }
    return r;
}

bool leftovers(const char *command, const Args &args, Io &io)
{
    if (!args.missingValueFor().isEmpty()) {
        io.err << "zhaoxictl " << command << ": option " << args.missingValueFor()
               << " needs a value\n";
        return false;
    }
    const QStringList unknown = args.unknownOptions();
    if (!unknown.isEmpty()) {
        io.err << "zhaoxictl " << command << ": unknown option"
               << (unknown.size() == 1 ? " " : "s ") << unknown.join(QStringLiteral(", ")) << "\n";
        return false;
    }
    if (!args.positional().isEmpty()) {
        io.err << "zhaoxictl " << command << ": unexpected argument "
               << args.positional().join(QStringLiteral(", ")) << "\n";
        return false;
    }
    return true;
}

int usageError(Io &io, const QString &message)
{
    io.err << "zhaoxictl events: " << message << "\n";
    return 2;
}

} // namespace

int runEvents(const QStringList &argList, Io &io)
{
    if (!argList.isEmpty() && argList.first() == QLatin1String("tail"))
        return runEventsTail(argList.mid(1), io);
    if (argList.isEmpty() || argList.first() != QLatin1String("export")) {
        io.err << "zhaoxictl events: expected 'tail' or 'export', e.g.\n  zhaoxictl events tail "
                  "--follow\n  zhaoxictl events export --db FILE "
                  "--format csv|jsonl [--from T] [--to T] [--severity S] [--source S] [--card N] "
                  "[--job J] [--code C] [--tz ZONE] [--bom] [--out FILE] [--force]\n";
        return 2;
    }
    Args args(argList.mid(1));
    const auto db = args.value(QStringLiteral("db"));
    const auto format = args.value(QStringLiteral("format"));
    const auto from = args.value(QStringLiteral("from"));
    const auto to = args.value(QStringLiteral("to"));
    const auto out = args.value(QStringLiteral("out"));
    const auto tz = args.value(QStringLiteral("tz"));
    const bool bom = args.flag(QStringLiteral("bom"));
    const bool force = args.flag(QStringLiteral("force"));
    const QStringList severities = listValues(args, QStringLiteral("severity"));
    const QStringList sources = listValues(args, QStringLiteral("source"));
    const QStringList cards = listValues(args, QStringLiteral("card"));
    const QStringList jobs = listValues(args, QStringLiteral("job"));
    const QStringList codes = listValues(args, QStringLiteral("code"));
    if (!leftovers("events export", args, io))
        return 2;
    if (!db)
        return usageError(io, QStringLiteral("--db FILE is required"));
    if (!format)
        return usageError(io, QStringLiteral("--format csv|jsonl is required"));

    St::ExportOptions options;
    if (*format == QLatin1String("csv"))
        options.format = St::ExportFormat::Csv;
    else if (*format == QLatin1String("jsonl"))
        options.format = St::ExportFormat::JsonLines;
    else
        return usageError(io, QStringLiteral("--format: '%1' is not csv or jsonl").arg(*format));
    if (bom && options.format != St::ExportFormat::Csv)
        return usageError(
                io, QStringLiteral("--bom: only for --format csv (JSON Lines never has a BOM)"));
    options.bom = bom;
    if (tz) {
        const QTimeZone zone = *tz == QLatin1String("local") ? QTimeZone::systemTimeZone()
                                                             : QTimeZone(tz->toUtf8());
        if (!zone.isValid())
            return usageError(io, QStringLiteral("--tz: unknown time zone '%1'").arg(*tz));
        options.timeZone = zone;
    }

    St::EventFilter filter;
    if (from) {
        filter.fromMs = parseTimeArg(*from);
        if (!filter.fromMs)
            return usageError(
                    io, QStringLiteral("--from: '%1' is neither ISO-8601 nor epoch ms").arg(*from));
    }
    if (to) {
        filter.toMs = parseTimeArg(*to);
        if (!filter.toMs)
            return usageError(
                    io, QStringLiteral("--to: '%1' is neither ISO-8601 nor epoch ms").arg(*to));
    }
    if (filter.fromMs && filter.toMs && *filter.fromMs > *filter.toMs)
        return usageError(io,
                          QStringLiteral("--from (%1) is later than --to (%2): no event can match")
                                  .arg(*from, *to));
    for (const QString &s : severities) {
        const auto v = St::severityFromString(s);
        if (!v)
            return usageError(
                    io,
                    QStringLiteral("--severity: '%1' is not info, warning, error or critical")
                            .arg(s));
        filter.severities << *v;
    }
    for (const QString &s : sources) {
        const auto v = St::sourceFromString(s);
        if (!v)
            return usageError(
                    io,
                    QStringLiteral(
                            "--source: '%1' is not scheduler, policy, device, operator or system")
                            .arg(s));
        filter.sources << *v;
    }
    for (const auto &[list, name, target] :
         {std::tuple{&cards, "--card", &filter.cards}, std::tuple{&jobs, "--job", &filter.jobs}}) {
        for (const QString &s : *list) {
            bool ok = false;
            const int v = s.toInt(&ok);
            if (!ok || v < 0)
                return usageError(io,
                                  QStringLiteral("%1: '%2' is not a number >= 0")
                                          .arg(QLatin1String(name), s));
            *target << v;
        }
    }
    for (const QString &c : codes)
        filter.codes << c.toUtf8();

    QString err;
    if (!QFileInfo::exists(*db))
        return usageError(io, QStringLiteral("--db: %1: no such file").arg(*db));
    auto reader = St::Reader::open(*db, St::Reader::OpenMode::MigrateIfOlder, &err);
    if (!reader)
        return usageError(io, QStringLiteral("--db: %1").arg(err));
    // A damaged store may read as fewer events than it holds, without an error: say so.
    if (const QString check = reader->quickCheck(); check != QLatin1String("ok")) {
        const QString problem
                = QStringLiteral("the store %1 fails its check (%2)")
                          .arg(*db,
                               QString(check).replace(QLatin1Char('\n'), QStringLiteral("; ")));
        if (!force)
            return usageError(io,
                              problem
                                      + QStringLiteral(": its export may be incomplete or wrong; "
                                                       "--force exports what can be read"));
        io.err << "zhaoxictl events: warning: " << problem
               << "; exporting what can be read (--force)\n";
    }

    St::ExportResult result;
    if (out) {
        result = St::exportEventsToFile(*reader, filter, options, *out);
    } else {
        io.out.flush();
        QFile stdoutFile;
        if (!stdoutFile.open(stdout, QIODevice::WriteOnly))
            return usageError(io, QStringLiteral("cannot write to standard output"));
        result = St::exportEvents(*reader, filter, options, &stdoutFile);
        stdoutFile.flush();
    }
    if (!result.ok)
        return usageError(io, result.error);
    if (out)
        io.err << "zhaoxictl events: " << result.rows << " events written to " << *out << "\n";
    return 0;
}

int runMetrics(const QStringList &argList, Io &io)
{
    Args args(argList);
    const auto db = args.value(QStringLiteral("db"));
    const bool prom = args.flag(QStringLiteral("prom"));
    if (!leftovers("metrics", args, io))
        return 2;
    if (!db) {
        io.err << "zhaoxictl metrics: --db FILE is required\n";
        return 2;
    }
    if (!prom) {
        io.err << "zhaoxictl metrics: --prom is required (the only output format so far)\n";
        return 2;
    }
    QString err;
    if (!QFileInfo::exists(*db)) {
        io.err << "zhaoxictl metrics: --db: " << *db << ": no such file\n";
        return 2;
    }
    auto reader = St::Reader::open(*db, St::Reader::OpenMode::MigrateIfOlder, &err);
    if (!reader) {
        io.err << "zhaoxictl metrics: --db: " << err << "\n";
        return 2;
    }
    const QList<St::LatestMetric> latest = reader->latestMetrics(&err);
    if (!err.isEmpty()) {
        io.err << "zhaoxictl metrics: " << *db << ": " << err << "\n";
        return 2;
    }
    io.out << QString::fromUtf8(St::prometheusText(latest));
    return 0;
}

} // namespace Zhaoxi::Cli
