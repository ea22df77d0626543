// SPDX-License-Identifier: GPL-3.0-or-later
#include "appliancefile.h"

#include "core/catalogue/layoutrules.h"
#include "core/domain/jsonreader.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Sched {

using Domain::MigPlacement;

namespace {

constexpr int kMaxCardsPerHost = 64; // HostState::failedCards has one bit per card
constexpr double kMaxCpuCores = 1 << 20;
constexpr double kMaxMemoryGiB = 1 << 30;

using Domain::jsonPath;
using Domain::JsonReader;
using Domain::JsonScope;
using Presence = JsonReader::Presence;

// Reads the appliance object. Stops at the first problem: one honest error beats a cascade.
class ApplianceReader : public JsonReader
{
public:
    explicit ApplianceReader(const Catalogue::Catalogue &catalogue)
        : m_catalogue(catalogue)
    {}

    std::optional<Appliance> read(const JsonScope &root);

private:
    struct CardEntry
    {
        int model = -1;
        PartitionMode mode = PartitionMode::Whole;
        int linkDomain = 0;
        int count = 1;
        QList<MigPlacement> layout;
    };
    struct HostEntry
    {
        QString name;
        qint64 cpuMilli = 0;
        qint64 memoryMiB = 0;
        QList<CardEntry> cards;
    };

    // Positive quantities with a top: "must be in (0, max], got v".
    bool readAmount(const JsonScope &in, const QString &key, double max, double *out);
    bool readHost(const QJsonValue &v, const QString &path, HostEntry *out);
    bool readCard(const QJsonValue &v, const QString &path, CardEntry *out);
    bool readLayout(const QJsonArray &array,
                    const QString &path,
                    const Domain::CardModel &model,
                    QList<MigPlacement> *out);

    const Catalogue::Catalogue &m_catalogue;
};

bool ApplianceReader::readAmount(const JsonScope &in, const QString &key, double max, double *out)
{
    NumberRange range;
    range.min = 0;
    range.minExclusive = true;
    range.max = max;
    return readNumber(in, key, range, out, Presence::Required);
}

std::optional<Appliance> ApplianceReader::read(const JsonScope &root)
{
    Appliance appliance;
    QJsonArray hosts;
    if (!checkKeys(root, {"name", "hosts"})
        || !readTrimmedName(root, "name", &appliance.name, Presence::Required)
        || !readArray(root, "hosts", &hosts, Presence::Required)) {
        return std::nullopt;
    }
    if (hosts.isEmpty()) {
        fail(root.field("hosts"), QStringLiteral("must list at least one host"));
        return std::nullopt;
    }

    QList<HostEntry> entries;
    QHash<QString, qsizetype> hostByName;
    for (qsizetype i = 0; i < hosts.size(); ++i) {
        const QString path = jsonPath(root.field("hosts"), i);
        HostEntry h;
        if (!readHost(hosts[i], path, &h))
            return std::nullopt;
        const auto seen = hostByName.constFind(h.name);
        if (seen != hostByName.constEnd()) {
            fail(jsonPath(path, QStringLiteral("name")),
                 QStringLiteral("duplicate host name \"%1\" (hosts[%2] has it already)")
                         .arg(h.name)
                         .arg(*seen));
            return std::nullopt;
        }
        hostByName.insert(h.name, i);
        entries.append(h);
    }

    // Everything is valid: build the state. Nothing below can fail.
    appliance.state = ClusterState(m_catalogue);
    ClusterState &s = appliance.state;
    for (const HostEntry &h : std::as_const(entries)) {
        const HostId host = s.addHost(h.name, h.cpuMilli, h.memoryMiB);
        for (const CardEntry &c : h.cards) {
            // Instances are created in start order so that their uids follow the order the
            // writer uses: a written and re-read appliance compares equal.
            QList<MigPlacement> sorted = c.layout;
            std::sort(sorted.begin(), sorted.end(), [](MigPlacement a, MigPlacement b) {
                return a.start < b.start || (a.start == b.start && a.profile < b.profile);
            });
            for (int n = 0; n < c.count; ++n) {
                const CardId card = s.addCard(host, c.model, c.mode, c.linkDomain);
                for (const MigPlacement &p : std::as_const(sorted))
                    s.createPartition(card, p.profile, p.start);
            }
        }
    }
    return appliance;
}

bool ApplianceReader::readHost(const QJsonValue &v, const QString &path, HostEntry *out)
{
    JsonScope in;
    double cpu = 0;
    double memoryGiB = 0;
    QJsonArray cards;
    if (!objectValue(v, path, &in) || !checkKeys(in, {"name", "cpu", "memoryGiB", "cards"})
        || !readTrimmedName(in, "name", &out->name, Presence::Required)
        || !readAmount(in, "cpu", kMaxCpuCores, &cpu)
        || !readAmount(in, "memoryGiB", kMaxMemoryGiB, &memoryGiB)
        || !readArray(in, "cards", &cards)) {
        return false;
    }
    out->cpuMilli = std::llround(cpu * 1000);
    out->memoryMiB = std::llround(memoryGiB * 1024);
    if (out->cpuMilli <= 0)
        return fail(in.field("cpu"), QStringLiteral("must be at least 0.001"));
    if (out->memoryMiB <= 0)
        return fail(in.field("memoryGiB"), QStringLiteral("must be at least 1 MiB (0.0009765625)"));

    int total = 0;
    for (qsizetype i = 0; i < cards.size(); ++i) {
        const QString cardPath = jsonPath(in.field("cards"), i);
        CardEntry c;
        if (!readCard(cards[i], cardPath, &c))
            return false;
        total += c.count;
        if (total > kMaxCardsPerHost) {
            return fail(cardPath,
                        QStringLiteral("a host holds at most %1 cards; this entry brings "
                                       "it to %2")
                                .arg(kMaxCardsPerHost)
                                .arg(total));
        }
        out->cards.append(c);
    }
    return true;
}

bool ApplianceReader::readCard(const QJsonValue &v, const QString &path, CardEntry *out)
{
    JsonScope in;
    QString modelName;
    if (!objectValue(v, path, &in)
        || !checkKeys(in, {"model", "mode", "linkDomain", "count", "layout"})
        || !readTrimmedName(in, "model", &modelName, Presence::Required)) {
        return false;
    }
    out->model = m_catalogue.indexOf(modelName);
    if (out->model < 0) {
        return fail(in.field("model"),
                    QStringLiteral("unknown card model \"%1\" (known: %2)")
                            .arg(modelName, m_catalogue.names().join(QStringLiteral(", "))));
    }
    const Domain::CardModel &model = m_catalogue.models()[out->model];

    QString modeName = Domain::toString(PartitionMode::Whole);
    if (!readTrimmedName(in, "mode", &modeName))
        return false;
    if (!Domain::partitionModeFromString(modeName, &out->mode)) {
        return fail(in.field("mode"),
                    QStringLiteral("unknown mode \"%1\" (known: whole, mig, time-slicing, mps)")
                            .arg(modeName));
    }
    if (!model.supports(out->mode)) {
        QStringList supported;
        for (PartitionMode m : {PartitionMode::Whole,
                                PartitionMode::Mig,
                                PartitionMode::TimeSlicing,
                                PartitionMode::Mps}) {
            if (model.supports(m))
                supported << Domain::toString(m);
        }
        return fail(in.field("mode"),
                    QStringLiteral("%1 does not support mode \"%2\" (it supports: %3)")
                            .arg(model.name, modeName, supported.join(QStringLiteral(", "))));
    }
    QJsonArray layout;
    if (!readInt(in, "linkDomain", 0, 1 << 20, &out->linkDomain)
        || !readInt(in, "count", 1, kMaxCardsPerHost, &out->count)
        || !readArray(in, "layout", &layout))
        return false;
    if (in.has("layout") && out->mode != PartitionMode::Mig) {
        return fail(in.field("layout"),
                    QStringLiteral("is only allowed in mode \"mig\", not \"%1\"").arg(modeName));
    }
    return readLayout(layout, in.field("layout"), model, &out->layout);
}

bool ApplianceReader::readLayout(const QJsonArray &array,
                                 const QString &path,
                                 const Domain::CardModel &model,
                                 QList<MigPlacement> *out)
{
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString at = jsonPath(path, i);
        QString text;
        if (!stringValue(array[i], at, &text))
            return false;
        const qsizetype sep = text.lastIndexOf(QLatin1Char('@'));
        bool ok = false;
        const int start = sep > 0 ? text.mid(sep + 1).toInt(&ok) : -1;
        if (!ok || start < 0 || text.mid(sep + 1) != QString::number(start)) {
            return fail(at,
                        QStringLiteral("\"%1\" is not \"<profile>@<start>\", e.g. \"%2@0\"")
                                .arg(text, model.migProfiles.last().name));
        }
        const QString profileName = text.left(sep);
        const int profile = model.profileIndex(profileName);
        if (profile < 0) {
            QStringList known;
            for (const Domain::MigProfile &p : model.migProfiles)
                known << p.name;
            return fail(at,
                        QStringLiteral("%1 has no MIG profile \"%2\" (known: %3)")
                                .arg(model.name, profileName, known.join(QStringLiteral(", "))));
        }
        out->append(MigPlacement{profile, start});
    }
    const Catalogue::LayoutVerdict verdict = Catalogue::validateLayout(model, *out);
    if (!verdict.isValid()) {
        return fail(verdict.index >= 0 ? jsonPath(path, verdict.index) : path,
                    verdict.describe(model, *out));
    }
    return true;
}

} // namespace

QString ApplianceError::toString() const
{
    QString s = file;
    if (line > 0) {
        s += QLatin1Char(':') + QString::number(line);
        if (column > 0)
            s += QLatin1Char(':') + QString::number(column);
    }
    if (!field.isEmpty())
        s += (s.isEmpty() ? QString() : QStringLiteral(": ")) + field;
    if (!message.isEmpty())
        s += (s.isEmpty() ? QString() : QStringLiteral(": ")) + message;
    return s;
}

std::optional<Appliance> readAppliance(const QByteArray &json,
                                       const Catalogue::Catalogue &catalogue,
                                       const QString &fileName,
                                       ApplianceError *error)
{
    Domain::JsonError jsonError;
    const std::optional<QJsonObject> root = Domain::parseJsonObject(json, &jsonError);
    if (!root) {
        if (error) {
            *error = ApplianceError{
                    fileName, jsonError.line, jsonError.column, jsonError.path, jsonError.message};
        }
        return std::nullopt;
    }
    return readApplianceObject(*root, catalogue, fileName, error);
}

std::optional<Appliance> readApplianceObject(const QJsonObject &root,
                                             const Catalogue::Catalogue &catalogue,
                                             const QString &fileName,
                                             ApplianceError *error)
{
    ApplianceReader reader(catalogue);
    std::optional<Appliance> appliance = reader.read(JsonScope{root, QString()});
    if (!appliance && error)
        *error = ApplianceError{fileName, 0, 0, reader.error().path, reader.error().message};
    return appliance;
}

std::optional<Appliance> loadApplianceFile(const QString &path,
                                           const Catalogue::Catalogue &catalogue,
                                           ApplianceError *error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error) {
            *error = ApplianceError{};
            error->file = path;
            error->message = QStringLiteral("cannot read the file: %1").arg(f.errorString());
        }
        return std::nullopt;
    }
    return readAppliance(f.readAll(), catalogue, path, error);
}

QByteArray writeAppliance(const Appliance &appliance)
{
    const ClusterState &s = appliance.state;
    const auto layoutOf = [&](const CardState &c) {
        QJsonArray layout;
        const Domain::CardModel &model = s.model(c);
        for (const MigPlacement &p : c.migLayout())
            layout.append(Catalogue::formatPlacement(model, p));
        return layout;
    };
    QJsonArray hosts;
    for (const HostState &h : s.hosts()) {
        QJsonArray cards;
        QJsonObject pending; // the entry being folded
        int pendingCount = 0;
        const auto flush = [&] {
            if (pendingCount == 0)
                return;
            if (pendingCount > 1)
                pending.insert(QStringLiteral("count"), pendingCount);
            cards.append(pending);
            pendingCount = 0;
        };
        for (int i = h.firstCard; i < h.firstCard + h.cardCount; ++i) {
            const CardState &c = s.cards()[i];
            QJsonObject entry{{QStringLiteral("model"), s.model(c).name},
                              {QStringLiteral("mode"), Domain::toString(c.mode)},
                              {QStringLiteral("linkDomain"), c.linkDomain}};
            if (c.mode == PartitionMode::Mig)
                entry.insert(QStringLiteral("layout"), layoutOf(c));
            if (pendingCount > 0 && entry == pending) {
                ++pendingCount;
                continue;
            }
            flush();
            pending = entry;
            pendingCount = 1;
        }
        flush();
        QJsonObject host{{QStringLiteral("name"), h.name},
                         {QStringLiteral("cpu"), double(h.cpuMilli) / 1000.0},
                         {QStringLiteral("memoryGiB"), double(h.memoryMiB) / 1024.0}};
        if (!cards.isEmpty())
            host.insert(QStringLiteral("cards"), cards);
        hosts.append(host);
    }
    const QJsonObject root{{QStringLiteral("name"), appliance.name},
                           {QStringLiteral("hosts"), hosts}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

} // namespace Zhaoxi::Sched
