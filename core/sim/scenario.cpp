// SPDX-License-Identifier: GPL-3.0-or-later
#include "scenario.h"

#include "random.h"

#include "core/domain/demand.h"
#include "core/domain/jsonreader.h"

#include "core/policy/params.h"
#include "core/policy/policy.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>

#include <cmath>

namespace Zhaoxi::Sim {

using Domain::jsonPath;
using Domain::JsonReader;
using Domain::JsonScope;
using Policy::ParamReader;
using Policy::PolicyError;

QString ScenarioError::toString() const
{
    QString s = file;
    if (line > 0)
        s += QStringLiteral(":%1:%2").arg(line).arg(column);
    if (!field.isEmpty())
        s += (s.isEmpty() ? QString() : QStringLiteral(": ")) + field;
    return s + (s.isEmpty() ? QString() : QStringLiteral(": ")) + message;
}

namespace {

constexpr qint64 kHourMs = 3600'000;
constexpr qint64 kYearMs = 365 * 24 * kHourMs;

// Reads one scenario through the shared JSON reader; the first problem is kept.
class Reader : public JsonReader
{
public:
    Reader(const QString &baseDir, const Catalogue::Catalogue &cat)
        : m_baseDir(baseDir)
        , m_cat(cat)
    {}

    bool take(const PolicyError &e) { return fail(e.field, e.message); }

    QString path(const QString &rel) const
    {
        return QFileInfo(rel).isAbsolute() ? rel : QDir(m_baseDir).filePath(rel);
    }

    QString m_baseDir;
    const Catalogue::Catalogue &m_cat;
};

// Strict object reading: every key must be one of `allowed`.
bool checkKeys(const QJsonObject &o, const QString &path, const QStringList &allowed, Reader &rd)
{
    return rd.checkKeys(JsonScope{o, path}, allowed);
}

std::optional<QJsonObject> subObject(
        const QJsonObject &o, const QString &path, const QString &key, bool required, Reader &rd)
{
    JsonScope sub;
    if (!rd.readObject(JsonScope{o, path},
                       key,
                       &sub,
                       required ? JsonReader::Presence::Required : JsonReader::Presence::Optional)
        || !o.contains(key)) {
        return std::nullopt;
    }
    return sub.object;
}

std::optional<QJsonArray> subArray(const QJsonObject &o,
                                   const QString &path,
                                   const QString &key,
                                   Reader &rd)
{
    QJsonArray a;
    if (!rd.readArray(JsonScope{o, path}, key, &a))
        return std::nullopt;
    return a;
}

// An element of a list that must be an object ("expected an object, got a number").
std::optional<QJsonObject> element(const QJsonArray &list,
                                   qsizetype i,
                                   const QString &path,
                                   Reader &rd)
{
    JsonScope o;
    if (!rd.objectValue(list.at(i), path, &o))
        return std::nullopt;
    return o.object;
}

// Reads a number/duration/... through a ParamReader on the object, with the path as prefix.
struct Fields
{
    Fields(const QJsonObject &o, const QString &path)
        : reader(o, path, &err)
    {}
    PolicyError err;
    ParamReader reader;
    bool flush(Reader &rd)
    {
        if (!reader.ok())
            return rd.take(err);
        return true;
    }
};

std::optional<Domain::WorkloadSpec> readSpec(const QJsonObject &o, const QString &path, Reader &rd)
{
    const std::optional<QJsonObject> so = subObject(o, path, QStringLiteral("spec"), true, rd);
    if (!so)
        return std::nullopt;
    Domain::SpecError se;
    std::optional<Domain::WorkloadSpec> spec = Domain::workloadSpecFromJson(*so, &se);
    if (!spec) {
        rd.fail(jsonPath(jsonPath(path, QStringLiteral("spec")), se.field), se.message);
        return std::nullopt;
    }
    return spec;
}

std::optional<RateCurve> readRate(const QJsonObject &o,
                                  const QString &path,
                                  Reader &rd,
                                  QString *source)
{
    const QStringList forms = {QStringLiteral("curve"),
                               QStringLiteral("trace"),
                               QStringLiteral("formula"),
                               QStringLiteral("constant")};
    int given = 0;
    for (const QString &f : forms)
        given += o.contains(f);
    if (given != 1) {
        rd.fail(path, QStringLiteral("give exactly one of curve, trace, formula, constant"));
        return std::nullopt;
    }
    if (o.contains(QStringLiteral("constant"))) {
        if (!checkKeys(o, path, {QStringLiteral("constant")}, rd))
            return std::nullopt;
        Fields f(o, path);
        const double c = f.reader.number(QStringLiteral("constant"), 0, 0, 1e6);
        if (!f.flush(rd))
            return std::nullopt;
        *source = QStringLiteral("constant");
        return RateCurve::constant(c);
    }
    if (o.contains(QStringLiteral("formula"))) {
        if (!checkKeys(o,
                       path,
                       {QStringLiteral("formula"),
                        QStringLiteral("base"),
                        QStringLiteral("peak"),
                        QStringLiteral("peakHour")},
                       rd))
            return std::nullopt;
        Fields f(o, path);
        f.reader.string(QStringLiteral("formula"), QString(), {QStringLiteral("diurnal")});
        const double base = f.reader.number(QStringLiteral("base"), 0, 0, 1e6);
        const double peak = f.reader.number(QStringLiteral("peak"), 1, 0, 1e6);
        const double hour = f.reader.number(QStringLiteral("peakHour"), 14, 0, 24);
        if (!f.flush(rd))
            return std::nullopt;
        if (!o.contains(QStringLiteral("peak"))) {
            rd.fail(jsonPath(path, QStringLiteral("peak")), QStringLiteral("required"));
            return std::nullopt;
        }
        *source = QStringLiteral("diurnal");
        return RateCurve::diurnal(base, peak, hour);
    }
    const bool isTrace = o.contains(QStringLiteral("trace"));
    QStringList keys
            = {QStringLiteral("peak"), QStringLiteral("shiftHours"), QStringLiteral("floor")};
    keys << (isTrace ? QStringList{QStringLiteral("trace"),
                                   QStringLiteral("column"),
                                   QStringLiteral("utcOffsetHours")}
                     : QStringList{QStringLiteral("curve")});
    if (!checkKeys(o, path, keys, rd))
        return std::nullopt;
    Fields f(o, path);
    const QString file = f.reader.string(
            isTrace ? QStringLiteral("trace") : QStringLiteral("curve"), QString());
    const double peak = f.reader.number(QStringLiteral("peak"), 1, 0, 1e6);
    const double shift = f.reader.number(QStringLiteral("shiftHours"), 0, -168, 168);
    const double floor = f.reader.number(QStringLiteral("floor"), 0, 0, 1);
    const QString column = f.reader.string(QStringLiteral("column"), QStringLiteral("gmt_create"));
    const double utcOffset = f.reader.number(QStringLiteral("utcOffsetHours"), 0, -24, 24);
    if (!f.flush(rd))
        return std::nullopt;
    if (!o.contains(QStringLiteral("peak"))) {
        rd.fail(jsonPath(path, QStringLiteral("peak")), QStringLiteral("required"));
        return std::nullopt;
    }
    QString why;
    std::optional<QList<double>> points
            = isTrace ? hourlyShapeFromTrace(rd.path(file), column, utcOffset, false, &why)
                      : readHourlyCurve(rd.path(file), &why);
    if (!points) {
        rd.fail(jsonPath(path, isTrace ? QStringLiteral("trace") : QStringLiteral("curve")),
                QStringLiteral("%1: %2").arg(file, why));
        return std::nullopt;
    }
    *source = file;
    return RateCurve(*points, peak, shift, floor);
}

std::optional<Device::FaultKind> faultKind(const QString &s)
{
    if (s == QLatin1String("card-lost"))
        return Device::FaultKind::CardLost;
    if (s == QLatin1String("memory-error"))
        return Device::FaultKind::MemoryError;
    if (s == QLatin1String("thermal-throttle"))
        return Device::FaultKind::ThermalThrottle;
    return std::nullopt;
}

} // namespace

std::optional<Scenario> readScenario(const QByteArray &json,
                                     const QString &fileName,
                                     const QString &baseDir,
                                     const Catalogue::Catalogue &catalogue,
                                     ScenarioError *error)
{
    Reader rd(baseDir, catalogue);
    auto fail = [&]() -> std::optional<Scenario> {
        if (error)
            *error = ScenarioError{fileName, rd.error().path, rd.error().message};
        return std::nullopt;
    };
    Domain::JsonError jsonError;
    const std::optional<QJsonObject> parsed = Domain::parseJsonObject(json, &jsonError);
    if (!parsed) {
        if (error) {
            *error = ScenarioError{
                    fileName, jsonError.path, jsonError.message, jsonError.line, jsonError.column};
        }
        return std::nullopt;
    }
    const QJsonObject root = *parsed;
    Scenario sc;
    sc.file = fileName;
    sc.source = json;
    const QStringList topKeys = {QStringLiteral("name"),
                                 QStringLiteral("start"),
                                 QStringLiteral("duration"),
                                 QStringLiteral("seed"),
                                 QStringLiteral("referenceModel"),
                                 QStringLiteral("appliance"),
                                 QStringLiteral("device"),
                                 QStringLiteral("scheduler"),
                                 QStringLiteral("control"),
                                 QStringLiteral("paths"),
                                 QStringLiteral("power"),
                                 QStringLiteral("training"),
                                 QStringLiteral("services"),
                                 QStringLiteral("faults"),
                                 QStringLiteral("policy"),
                                 QStringLiteral("history"),
                                 QStringLiteral("live"),
                                 QStringLiteral("gangEfficiency"),
                                 QStringLiteral("crossDomainEfficiency"),
                                 QStringLiteral("reclaimIdlePartitions")};
    if (!checkKeys(root, QString(), topKeys, rd))
        return fail();

    {
        Fields f(root, QString());
        sc.name = f.reader.string(QStringLiteral("name"), QString());
        const QString start = f.reader.string(QStringLiteral("start"),
                                              QStringLiteral("2026-01-05T00:00:00+08:00"));
        sc.durationMs = f.reader.duration(QStringLiteral("duration"), 0, 1000, kYearMs);
        sc.seed = quint64(f.reader.number(QStringLiteral("seed"), 1, 0, 9007199254740991.0));
        const QString ref
                = f.reader.string(QStringLiteral("referenceModel"), QStringLiteral("H200-141GB"));
        sc.gangEfficiency
                = f.reader.number(QStringLiteral("gangEfficiency"), sc.gangEfficiency, 0.1, 1);
        sc.crossDomainEfficiency = f.reader.number(
                QStringLiteral("crossDomainEfficiency"), sc.crossDomainEfficiency, 0.1, 1);
        sc.reclaimIdlePartitions = f.reader.boolean(QStringLiteral("reclaimIdlePartitions"), true);
        if (!f.flush(rd))
            return fail();
        if (sc.name.trimmed().isEmpty())
            return rd.fail(QStringLiteral("name"), QStringLiteral("required")), fail();
        if (!root.contains(QStringLiteral("duration")))
            return rd.fail(QStringLiteral("duration"), QStringLiteral("required")), fail();
        if (root.value(QStringLiteral("seed")).isDouble()
            && std::floor(root.value(QStringLiteral("seed")).toDouble())
                       != root.value(QStringLiteral("seed")).toDouble())
            return rd.fail(QStringLiteral("seed"), QStringLiteral("expected an integer")), fail();
        const QDateTime dt = QDateTime::fromString(start, Qt::ISODateWithMs);
        if (!dt.isValid()
            || !(start.endsWith(QLatin1Char('Z')) || start.contains(QLatin1Char('+'))
                 || start.lastIndexOf(QLatin1Char('-')) > 10))
            return rd.fail(QStringLiteral("start"),
                           QStringLiteral("expected an ISO-8601 time with Z or an offset, e.g. "
                                          "2026-01-05T00:00:00+08:00")),
                   fail();
        sc.startMs = dt.toMSecsSinceEpoch();
        sc.utcOffsetMs = qint64(dt.offsetFromUtc()) * 1000;
        sc.referenceModel = catalogue.indexOf(ref);
        if (sc.referenceModel < 0)
            return rd.fail(QStringLiteral("referenceModel"),
                           QStringLiteral("unknown card model \"%1\"").arg(ref)),
                   fail();
    }

    // The appliance, in the appliance file's format.
    {
        const std::optional<QJsonObject> a
                = subObject(root, QString(), QStringLiteral("appliance"), true, rd);
        if (!a)
            return fail();
        Sched::ApplianceError ae;
        std::optional<Sched::Appliance> app
                = Sched::readApplianceObject(*a, catalogue, fileName, &ae);
        if (!app)
            return rd.fail(ae.field.isEmpty() ? QStringLiteral("appliance")
                                              : QStringLiteral("appliance.") + ae.field,
                           ae.message),
                   fail();
        sc.appliance = std::move(*app);
    }
    const Sched::ClusterState &state = sc.appliance.state;

    if (const auto d = subObject(root, QString(), QStringLiteral("device"), false, rd)) {
        Fields f(*d, QStringLiteral("device"));
        sc.device.createMs
                = f.reader.duration(QStringLiteral("createTime"), sc.device.createMs, 0, kHourMs);
        sc.device.destroyMs
                = f.reader.duration(QStringLiteral("destroyTime"), sc.device.destroyMs, 0, kHourMs);
        sc.device.modeSwitchMs = f.reader.duration(
                QStringLiteral("modeSwitchTime"), sc.device.modeSwitchMs, 0, kHourMs);
        sc.device.ambientC
                = f.reader.number(QStringLiteral("ambientC"), sc.device.ambientC, -20, 60);
        sc.device.thermalTauS
                = f.reader.number(QStringLiteral("thermalTauS"), sc.device.thermalTauS, 1, 3600);
        sc.device.throttleAtC
                = f.reader.number(QStringLiteral("throttleAtC"), sc.device.throttleAtC, 30, 120);
        sc.device.resumeBelowC
                = f.reader.number(QStringLiteral("resumeBelowC"), sc.device.resumeBelowC, 20, 120);
        sc.device.riseAtMaxPowerC = f.reader.number(
                QStringLiteral("riseAtMaxPowerC"), sc.device.riseAtMaxPowerC, 0, 150);
        if (!f.reader.finish() | !f.flush(rd))
            return fail();
    }
    if (rd.failed())
        return fail();
    sc.scheduler.preemption.graceMs = 10'000;
    sc.scheduler.reserveNominatedHosts = true;
    sc.scheduler.preemption.maxCheckpointWaitMs = 30 * 60'000;
    if (const auto s = subObject(root, QString(), QStringLiteral("scheduler"), false, rd)) {
        Fields f(*s, QStringLiteral("scheduler"));
        sc.scheduler.preemption.graceMs = f.reader.duration(
                QStringLiteral("grace"), sc.scheduler.preemption.graceMs, 0, kHourMs);
        sc.scheduler.preemption.maxCheckpointWaitMs
                = f.reader.duration(QStringLiteral("maxCheckpointWait"),
                                    sc.scheduler.preemption.maxCheckpointWaitMs,
                                    0,
                                    24 * kHourMs);
        // Off: the scheduler never evicts by itself; an operator's placement still may.
        sc.scheduler.preemptionEnabled
                = f.reader.boolean(QStringLiteral("automaticPreemption"), true);
        if (!f.reader.finish() | !f.flush(rd))
            return fail();
    }
    if (rd.failed())
        return fail();
    if (const auto c = subObject(root, QString(), QStringLiteral("control"), false, rd)) {
        Fields f(*c, QStringLiteral("control"));
        sc.controlPeriodMs
                = f.reader.duration(QStringLiteral("period"), sc.controlPeriodMs, 100, 600'000);
        const qint64 window = f.reader.duration(QStringLiteral("window"), 60'000, 100, 3600'000);
        if (!f.reader.finish() | !f.flush(rd))
            return fail();
        sc.windowSlots = int(std::max<qint64>(1, window / sc.controlPeriodMs));
    }
    if (rd.failed())
        return fail();
    for (int i = 0; i < state.hosts().size(); ++i)
        sc.paths.append(HostPaths{});
    if (const auto p = subObject(root, QString(), QStringLiteral("paths"), false, rd)) {
        // {"default": {...}, "<host name>": {...}}
        for (auto it = p->constBegin(); it != p->constEnd(); ++it) {
            const QString path = QStringLiteral("paths.") + it.key();
            const bool isDefault = it.key() == QLatin1String("default");
            const int host = state.hostIndexByName(it.key());
            if (!isDefault && host < 0)
                return rd.fail(path, QStringLiteral("no host of that name (or \"default\")")),
                       fail();
            JsonScope hostPaths;
            if (!rd.objectValue(it.value(), path, &hostPaths))
                return fail();
            Fields f(hostPaths.object, path);
            HostPaths hp;
            hp.pcieGBps = f.reader.number(QStringLiteral("pcieGBps"), hp.pcieGBps, 0.001, 1e5);
            hp.networkGBps
                    = f.reader.number(QStringLiteral("networkGBps"), hp.networkGBps, 0.001, 1e5);
            if (!f.reader.finish() | !f.flush(rd))
                return fail();
            if (isDefault) {
                for (int h = 0; h < sc.paths.size(); ++h)
                    if (!p->contains(state.hosts()[h].name))
                        sc.paths[h] = hp;
            } else {
                sc.paths[host] = hp;
            }
        }
    }
    if (rd.failed())
        return fail();
    if (const auto p = subObject(root, QString(), QStringLiteral("power"), false, rd)) {
        Fields f(*p, QStringLiteral("power"));
        sc.powerBudgetW = f.reader.number(QStringLiteral("budgetW"), -1, -1, 1e8);
        if (!f.reader.finish() | !f.flush(rd))
            return fail();
    }
    if (rd.failed())
        return fail();
    if (const auto l = subObject(root, QString(), QStringLiteral("live"), false, rd)) {
        Fields f(*l, QStringLiteral("live"));
        sc.liveSpeed = f.reader.number(QStringLiteral("speed"), sc.liveSpeed, 1, 100'000);
        sc.liveLoad = f.reader.boolean(QStringLiteral("load"), sc.liveLoad);
        if (!f.reader.finish() | !f.flush(rd))
            return fail();
    }
    if (rd.failed())
        return fail();
    if (const auto h = subObject(root, QString(), QStringLiteral("history"), false, rd)) {
        Fields f(*h, QStringLiteral("history"));
        sc.historyDays = int(f.reader.number(QStringLiteral("days"), sc.historyDays, 0, 56));
        sc.historyNoise = f.reader.number(QStringLiteral("noise"), sc.historyNoise, 0, 1);
        if (!f.reader.finish() | !f.flush(rd))
            return fail();
    }
    if (rd.failed())
        return fail();

    // Services.
    const std::optional<QJsonArray> services
            = subArray(root, QString(), QStringLiteral("services"), rd);
    if (!services)
        return fail();
    QStringList serviceNames;
    for (qsizetype i = 0; i < services->size(); ++i) {
        const QString path = QStringLiteral("services[%1]").arg(i);
        const std::optional<QJsonObject> item = element(*services, i, path, rd);
        if (!item)
            return fail();
        const QJsonObject o = *item;
        if (!checkKeys(o,
                       path,
                       {QStringLiteral("spec"),
                        QStringLiteral("serviceTimeMs"),
                        QStringLiteral("serviceTimeCv"),
                        QStringLiteral("requestMB"),
                        QStringLiteral("loadTime"),
                        QStringLiteral("rate")},
                       rd))
            return fail();
        ServiceDef def;
        std::optional<Domain::WorkloadSpec> spec = readSpec(o, path, rd);
        if (!spec)
            return fail();
        if (spec->kind != Domain::WorkloadKind::Inference)
            return rd.fail(path + QStringLiteral(".spec.kind"),
                           QStringLiteral("a service's spec must be of kind \"inference\"")),
                   fail();
        if (spec->demand.cards != 1)
            return rd.fail(path + QStringLiteral(".spec.demand.cards"),
                           QStringLiteral("a replica takes exactly one unit")),
                   fail();
        if (serviceNames.contains(spec->inference->service))
            return rd.fail(path + QStringLiteral(".spec.inference.service"),
                           QStringLiteral("service \"%1\" already defined")
                                   .arg(spec->inference->service)),
                   fail();
        serviceNames.append(spec->inference->service);
        def.spec = *spec;
        Fields f(o, path);
        def.serviceMs = f.reader.number(QStringLiteral("serviceTimeMs"), 0, 0.001, 3600'000);
        def.cv = f.reader.number(QStringLiteral("serviceTimeCv"), 0, 0, 5);
        def.requestMB = f.reader.number(QStringLiteral("requestMB"), 0, 0, 1e5);
        def.loadMs = f.reader.duration(QStringLiteral("loadTime"), def.loadMs, 0, kHourMs);
        if (!f.flush(rd))
            return fail();
        if (!o.contains(QStringLiteral("serviceTimeMs")))
            return rd.fail(path + QStringLiteral(".serviceTimeMs"), QStringLiteral("required")),
                   fail();
        const std::optional<QJsonObject> rate
                = subObject(o, path, QStringLiteral("rate"), true, rd);
        if (!rate)
            return fail();
        std::optional<RateCurve> curve
                = readRate(*rate, path + QStringLiteral(".rate"), rd, &def.curveSource);
        if (!curve)
            return fail();
        def.curve = *curve;
        sc.services.append(def);
    }

    // Training queue.
    const std::optional<QJsonArray> training
            = subArray(root, QString(), QStringLiteral("training"), rd);
    if (!training)
        return fail();
    for (qsizetype i = 0; i < training->size(); ++i) {
        const QString path = QStringLiteral("training[%1]").arg(i);
        const std::optional<QJsonObject> item = element(*training, i, path, rd);
        if (!item)
            return fail();
        const QJsonObject o = *item;
        if (!checkKeys(o,
                       path,
                       {QStringLiteral("spec"),
                        QStringLiteral("submitAt"),
                        QStringLiteral("workHours"),
                        QStringLiteral("restartCost"),
                        QStringLiteral("dataGBps"),
                        QStringLiteral("checkpointGB"),
                        QStringLiteral("loss")},
                       rd))
            return fail();
        TrainingDef def;
        std::optional<Domain::WorkloadSpec> spec = readSpec(o, path, rd);
        if (!spec)
            return fail();
        if (spec->kind == Domain::WorkloadKind::Inference)
            return rd.fail(path + QStringLiteral(".spec.kind"),
                           QStringLiteral(
                                   "the training queue takes \"training\" or \"batch\" work")),
                   fail();
        if (spec->demand.cards < 1)
            return rd.fail(path + QStringLiteral(".spec.demand.cards"),
                           QStringLiteral("training needs at least one card")),
                   fail();
        def.spec = *spec;
        Fields f(o, path);
        def.submitAtMs = f.reader.duration(QStringLiteral("submitAt"), 0, 0, kYearMs);
        const double hours = f.reader.number(QStringLiteral("workHours"), -1, 0.0001, 1e6);
        def.restartCostMs
                = f.reader.duration(QStringLiteral("restartCost"), def.restartCostMs, 0, kHourMs);
        def.dataGBps = f.reader.number(QStringLiteral("dataGBps"), def.dataGBps, 0, 1e4);
        def.checkpointGB
                = f.reader.number(QStringLiteral("checkpointGB"), def.checkpointGB, 0, 1e6);
        if (!f.flush(rd))
            return fail();
        def.workMs = hours > 0 ? hours * double(kHourMs)
                               : double(def.spec.time.expectedDurationMs) * def.spec.demand.cards;
        if (def.workMs <= 0)
            return rd.fail(path + QStringLiteral(".workHours"),
                           QStringLiteral("give workHours or spec.time.expectedDuration")),
                   fail();
        if (const auto l = subObject(o, path, QStringLiteral("loss"), false, rd)) {
            Fields lf(*l, path + QStringLiteral(".loss"));
            def.loss.start = lf.reader.number(QStringLiteral("start"), def.loss.start, 0, 1e6);
            def.loss.floor = lf.reader.number(QStringLiteral("floor"), def.loss.floor, 0, 1e6);
            def.loss.alpha = lf.reader.number(QStringLiteral("alpha"), def.loss.alpha, 0.001, 10);
            def.loss.scaleMs
                    = lf.reader.number(
                              QStringLiteral("scaleHours"), def.loss.scaleMs / kHourMs, 0.001, 1e6)
                      * kHourMs;
            if (!lf.reader.finish() | !lf.flush(rd))
                return fail();
        }
        if (rd.failed())
            return fail();
        sc.training.append(def);
    }

    // Faults.
    const std::optional<QJsonArray> faults
            = subArray(root, QString(), QStringLiteral("faults"), rd);
    if (!faults)
        return fail();
    for (qsizetype i = 0; i < faults->size(); ++i) {
        const QString path = QStringLiteral("faults[%1]").arg(i);
        const std::optional<QJsonObject> item = element(*faults, i, path, rd);
        if (!item)
            return fail();
        const QJsonObject o = *item;
        Fields f(o, path);
        FaultDef def;
        def.atMs = f.reader.duration(QStringLiteral("at"), 0, 0, kYearMs);
        const QString host = f.reader.string(QStringLiteral("host"), QString());
        const int card = int(f.reader.number(QStringLiteral("card"), 0, 0, 63));
        const QString kind = f.reader.string(QStringLiteral("kind"),
                                             QString(),
                                             {QStringLiteral("card-lost"),
                                              QStringLiteral("memory-error"),
                                              QStringLiteral("thermal-throttle")});
        def.durationMs = f.reader.duration(QStringLiteral("duration"), 0, 0, kYearMs);
        if (!f.reader.finish() | !f.flush(rd))
            return fail();
        for (const QString &k :
             {QStringLiteral("at"), QStringLiteral("host"), QStringLiteral("kind")}) {
            if (!o.contains(k))
                return rd.fail(path + QLatin1Char('.') + k, QStringLiteral("required")), fail();
        }
        const int h = state.hostIndexByName(host);
        if (h < 0)
            return rd.fail(path + QStringLiteral(".host"),
                           QStringLiteral("no host \"%1\"").arg(host)),
                   fail();
        if (card >= state.hosts()[h].cardCount)
            return rd.fail(path + QStringLiteral(".card"),
                           QStringLiteral("host \"%1\" has %2 card(s)")
                                   .arg(host)
                                   .arg(state.hosts()[h].cardCount)),
                   fail();
        def.card = Domain::CardId(state.hosts()[h].firstCard + card);
        def.kind = *faultKind(kind);
        sc.faults.append(def);
    }

    // Policies: every policy's parameters are checked, whichever runs.
    if (const auto p = subObject(root, QString(), QStringLiteral("policy"), false, rd)) {
        for (auto it = p->constBegin(); it != p->constEnd(); ++it) {
            const QString path = QStringLiteral("policy.") + it.key();
            if (it.key() == QLatin1String("default")) {
                if (!rd.choiceValue(it.value(), path, Policy::policyNames(), &sc.defaultPolicy))
                    return fail();
                continue;
            }
            if (!Policy::policyNames().contains(it.key()))
                return rd.fail(path,
                               QStringLiteral("unknown policy (known: default, %1)")
                                       .arg(Policy::policyNames().join(QStringLiteral(", ")))),
                       fail();
            JsonScope params;
            if (!rd.objectValue(it.value(), path, &params))
                return fail();
            PolicyError perr;
            if (!Policy::makePolicy(it.key(), it.value().toObject(), &perr))
                return rd.fail(perr.field.isEmpty() ? path : path + QLatin1Char('.') + perr.field,
                               perr.message),
                       fail();
            sc.policyParams.insert(it.key(), it.value());
        }
    }
    if (rd.failed())
        return fail();
    return sc;
}

Policy::HistoryDays syntheticHistoryDays(const Scenario &scenario,
                                         int service,
                                         quint64 seed,
                                         qint64 bucketMs)
{
    constexpr qint64 kDay = 24 * 3600'000LL;
    Policy::HistoryDays h;
    h.byWeekday = scenario.services[service].curve.isWeekly();
    const QList<QList<double>> rates = syntheticHistory(scenario, service, seed, bucketMs);
    // Local days since the epoch (a Thursday) of the start.
    const qint64 local = scenario.startMs + scenario.utcOffsetMs;
    const qint64 today = local / kDay - (local % kDay < 0 ? 1 : 0);
    for (int i = 0; i < rates.size(); ++i) {
        const qint64 day = today - (rates.size() - i);
        h.days.append(Policy::HistoryDay{int(((day + 3) % 7 + 7) % 7) + 1, rates[i]});
    }
    return h;
}

Policy::HistoryDays scenarioHistoryDays(const Scenario &scenario,
                                        int service,
                                        quint64 seed,
                                        qint64 bucketMs)
{
    const ServiceDef &def = scenario.services[service];
    const QString name = def.spec.inference ? def.spec.inference->service : def.spec.name;
    const auto it = scenario.learned.constFind(name);
    if (it != scenario.learned.constEnd() && !it->days.isEmpty())
        return Policy::HistoryDays{it->days, it->byWeekday};
    return syntheticHistoryDays(scenario, service, seed, bucketMs);
}

QList<QList<double>> historyRates(const Policy::HistoryDays &history)
{
    QList<QList<double>> r;
    r.reserve(history.days.size());
    for (const Policy::HistoryDay &d : history.days)
        r.append(d.rates);
    return r;
}

std::optional<Scenario> loadScenarioFile(const QString &path,
                                         const Catalogue::Catalogue &catalogue,
                                         ScenarioError *error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = ScenarioError{
                    path, QString(), QStringLiteral("cannot open: %1").arg(f.errorString())};
        return std::nullopt;
    }
    return readScenario(f.readAll(), path, QFileInfo(path).absolutePath(), catalogue, error);
}

ReplicaUnit replicaUnit(const Scenario &scenario, const ServiceDef &def)
{
    ReplicaUnit u;
    const Sched::ClusterState &state = scenario.appliance.state;
    const Domain::CardModel &ref = state.catalogue().models()[scenario.referenceModel];
    // The unit a replica takes on the first card model that can serve it.
    const Domain::ComputeDemand &d = def.spec.demand.compute;
    for (const Sched::CardState &c : state.cards()) {
        const Domain::CardModel &m = state.model(c);
        if (!def.spec.affinity.cardModels.isEmpty()) {
            bool ok = false;
            for (const QString &n : def.spec.affinity.cardModels)
                ok |= m.matchesName(n);
            if (!ok)
                continue;
        }
        if (d.kind == Domain::ComputeDemand::Kind::MigProfile && m.profileIndex(d.profile) < 0)
            continue;
        if (d.kind == Domain::ComputeDemand::Kind::MigSlices && !m.supportsMig())
            continue;
        double frac = Domain::demandShareOn(m, d);
        const qint64 milli = Domain::demandMilliOn(m, d);
        if (d.kind == Domain::ComputeDemand::Kind::Fraction)
            frac *= m.softModes.isEmpty() ? 1.0 : m.softModes.first().overheadFactor;
        u.unitRef = m.fp16Tflops / ref.fp16Tflops * frac;
        u.unitMilli = milli;
        break;
    }
    return u;
}

QList<QList<double>> syntheticHistory(const Scenario &scenario,
                                      int service,
                                      quint64 seed,
                                      qint64 bucketMs)
{
    constexpr qint64 kDay = 24 * 3600'000LL;
    QList<QList<double>> days;
    const ServiceDef &def = scenario.services[service];
    Random rng(Random::streamSeed(seed, 500 + quint64(service)));
    // Local time since a Monday midnight: the epoch was a Thursday.
    const qint64 startLocal = scenario.startMs + scenario.utcOffsetMs + 3 * kDay;
    const qint64 midnight = startLocal - startLocal % kDay;
    for (int d = scenario.historyDays; d >= 1; --d) {
        const double level = std::exp(scenario.historyNoise * rng.normal());
        QList<double> day;
        for (qint64 t = 0; t < kDay; t += bucketMs) {
            const double rate = def.curve.rate(midnight - d * kDay + t + bucketMs / 2) * level;
            const double secs = bucketMs / 1000.0;
            day.append(double(rng.poisson(rate * secs)) / secs);
        }
        days.append(day);
    }
    return days;
}

} // namespace Zhaoxi::Sim
