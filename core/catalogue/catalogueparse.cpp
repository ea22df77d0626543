// SPDX-License-Identifier: GPL-3.0-or-later
// Reading one card model file (Catalogue::parseModel): the format catalogue.h describes, on top of
// the shared JSON reader. Loading directories and looking models up is catalogue.cpp's.
#include "catalogue.h"

#include "core/domain/jsonreader.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>

#include <limits>

namespace Zhaoxi::Catalogue {

using Domain::IsolationLevel;
using Domain::jsonPath;
using Domain::JsonReader;
using Domain::JsonScope;
using Domain::MigProfile;
using Domain::PartitionMode;
using Domain::SoftSlicing;
using Presence = JsonReader::Presence;

namespace {

constexpr qint64 noLimit = JsonReader::noLimit;
constexpr int intNoLimit = std::numeric_limits<int>::max();
// No GPU's SM clock comes near 10 GHz; a larger number is a unit mistake (kHz, Hz).
constexpr int kMaxSmClockMHz = 10'000;

// Reads one model object. Stops at the first problem: later checks often depend on earlier
// fields (starts need the span, profiles need the slice counts), so one error is the honest answer.
class ModelReader : public JsonReader
{
public:
    std::optional<CardModel> read(const JsonScope &root);

private:
    bool hexId(const QJsonValue &v, const QString &field, quint16 *out);
    bool readAliases(const JsonScope &root, CardModel *m);
    bool readProfiles(const JsonScope &root, CardModel *m);
    bool readProfile(const JsonScope &in, const CardModel &model, MigProfile *out);
    bool readSoftModes(const JsonScope &root, CardModel *m);
    bool readSoftMode(const JsonScope &in, SoftSlicing *out);
};

bool ModelReader::hexId(const QJsonValue &v, const QString &field, quint16 *out)
{
    static const QRegularExpression re(QStringLiteral("^0x[0-9A-Fa-f]{1,4}$"));
    if (!v.isString() || !re.match(v.toString()).hasMatch()) {
        return fail(field,
                    QStringLiteral("must be a hex string of at most 4 digits like \"0x2330\", "
                                   "got %1")
                            .arg(v.isString() ? QLatin1Char('"') + v.toString() + QLatin1Char('"')
                                              : Domain::jsonTypeNameWithArticle(v)));
    }
    bool ok = false;
    *out = quint16(v.toString().mid(2).toUInt(&ok, 16));
    return ok;
}

bool ModelReader::readAliases(const JsonScope &root, CardModel *m)
{
    QJsonArray aliases;
    if (!readArray(root, "aliases", &aliases))
        return false;
    QSet<QString> seenNames{m->name.toCaseFolded()};
    for (qsizetype i = 0; i < aliases.size(); ++i) {
        const QString field = jsonPath(QStringLiteral("aliases"), i);
        QString alias;
        if (!trimmedNameValue(aliases[i], field, &alias))
            return false;
        if (seenNames.contains(alias.toCaseFolded())) {
            return fail(
                    field,
                    QStringLiteral("\"%1\" repeats the model's name or another alias").arg(alias));
        }
        seenNames.insert(alias.toCaseFolded());
        m->aliases << alias;
    }
    return true;
}

bool ModelReader::readProfile(const JsonScope &in, const CardModel &model, MigProfile *out)
{
    MigProfile p;
    if (!checkKeys(in,
                   {"name",
                    "profileId",
                    "computeSlices",
                    "memorySlices",
                    "memoryMiB",
                    "maxInstances",
                    "starts",
                    "span",
                    "mediaExtensions"})
        || !readTrimmedName(in, "name", &p.name, Presence::Required)
        || !readInt(in, "profileId", 0, intNoLimit, &p.profileId, Presence::Required)
        || !readInt(in,
                    "computeSlices",
                    1,
                    model.migComputeSlices,
                    &p.computeSlices,
                    Presence::Required)
        || !readInt(
                in, "memorySlices", 1, model.migMemorySlices, &p.memorySlices, Presence::Required)
        || !readInteger(in, "memoryMiB", 1, model.memoryMiB, &p.memoryMiB, Presence::Required)) {
        return false;
    }
    p.span = p.memorySlices;
    if (!readInt(in, "span", 1, model.migMemorySlices, &p.span))
        return false;
    if (p.span != p.memorySlices) {
        return fail(in.field("span"),
                    QStringLiteral("must equal memorySlices (%1), got %2")
                            .arg(p.memorySlices)
                            .arg(p.span));
    }
    QJsonArray starts;
    if (!readArray(in, "starts", &starts, Presence::Required))
        return false;
    const QString startsPath = in.field("starts");
    if (starts.isEmpty())
        return fail(startsPath, QStringLiteral("must list at least one start"));
    for (qsizetype i = 0; i < starts.size(); ++i) {
        const QString at = jsonPath(startsPath, i);
        qint64 s = 0;
        if (!integerValue(starts[i], at, 0, model.migMemorySlices - 1, &s))
            return false;
        if (s + p.span > model.migMemorySlices) {
            return fail(at,
                        QStringLiteral("start %1 + span %2 runs past the %3 memory slots")
                                .arg(s)
                                .arg(p.span)
                                .arg(model.migMemorySlices));
        }
        if (!p.starts.isEmpty() && s <= p.starts.last()) {
            return fail(at,
                        QStringLiteral("starts must be strictly ascending (%1 after %2)")
                                .arg(s)
                                .arg(p.starts.last()));
        }
        p.starts.append(int(s));
    }
    if (!readInt(in, "maxInstances", 1, int(p.starts.size()), &p.maxInstances, Presence::Required)
        || !readBool(in, "mediaExtensions", &p.mediaExtensions)) {
        return false;
    }
    *out = p;
    return true;
}

bool ModelReader::readProfiles(const JsonScope &root, CardModel *m)
{
    QJsonArray profiles;
    if (!readArray(root, "migProfiles", &profiles))
        return false;
    const Presence slices = profiles.isEmpty() ? Presence::Optional : Presence::Required;
    if (!readInt(root, "migComputeSlices", 1, 32, &m->migComputeSlices, slices)
        || !readInt(root, "migMemorySlices", 1, 32, &m->migMemorySlices, slices)) {
        return false;
    }
    QHash<QString, qsizetype> profileNames;
    QHash<int, qsizetype> profileIds;
    for (qsizetype i = 0; i < profiles.size(); ++i) {
        JsonScope in;
        MigProfile p;
        if (!objectValue(profiles[i], jsonPath(QStringLiteral("migProfiles"), i), &in)
            || !readProfile(in, *m, &p)) {
            return false;
        }
        if (profileNames.contains(p.name)) {
            return fail(in.field("name"),
                        QStringLiteral("\"%1\" is already the name of migProfiles[%2]")
                                .arg(p.name)
                                .arg(profileNames.value(p.name)));
        }
        if (profileIds.contains(p.profileId)) {
            return fail(in.field("profileId"),
                        QStringLiteral("%1 is already the id of migProfiles[%2]")
                                .arg(p.profileId)
                                .arg(profileIds.value(p.profileId)));
        }
        profileNames.insert(p.name, i);
        profileIds.insert(p.profileId, i);
        m->migProfiles << p;
    }
    return true;
}

bool ModelReader::readSoftMode(const JsonScope &in, SoftSlicing *out)
{
    SoftSlicing m;
    QString mode;
    QString isolation;
    if (!checkKeys(in, {"mode", "maxClients", "memoryIsolation", "isolation", "overheadFactor"})
        || !readTrimmedName(in, "mode", &mode, Presence::Required)) {
        return false;
    }
    if (!Domain::partitionModeFromString(mode, &m.mode)
        || (m.mode != PartitionMode::TimeSlicing && m.mode != PartitionMode::Mps)) {
        return fail(in.field("mode"),
                    QStringLiteral("must be \"time-slicing\" or \"mps\", got \"%1\"").arg(mode));
    }
    if (!readInt(in, "maxClients", 1, intNoLimit, &m.maxClients, Presence::Required)
        || !readBool(in, "memoryIsolation", &m.memoryIsolation, Presence::Required)
        || !readTrimmedName(in, "isolation", &isolation, Presence::Required)) {
        return false;
    }
    if (!Domain::isolationLevelFromString(isolation, &m.isolation)) {
        return fail(in.field("isolation"),
                    QStringLiteral("must be \"none\", \"weak\" or \"strong\", got \"%1\"")
                            .arg(isolation));
    }
    if (!readNumber(in, "overheadFactor", {0.0, 1.0, true}, &m.overheadFactor, Presence::Required))
        return false;
    *out = m;
    return true;
}

bool ModelReader::readSoftModes(const JsonScope &root, CardModel *m)
{
    QJsonArray softModes;
    if (!readArray(root, "softModes", &softModes))
        return false;
    for (qsizetype i = 0; i < softModes.size(); ++i) {
        JsonScope in;
        SoftSlicing s;
        if (!objectValue(softModes[i], jsonPath(QStringLiteral("softModes"), i), &in)
            || !readSoftMode(in, &s)) {
            return false;
        }
        if (m->softMode(s.mode)) {
            return fail(in.field("mode"),
                        QStringLiteral("\"%1\" is listed twice").arg(Domain::toString(s.mode)));
        }
        m->softModes << s;
    }
    return true;
}

std::optional<CardModel> ModelReader::read(const JsonScope &root)
{
    CardModel m;
    int version = 0;
    QString source;
    if (!checkKeys(root,
                   {"schemaVersion",
                    "name",
                    "aliases",
                    "source",
                    "vendor",
                    "pciVendorId",
                    "pciDeviceIds",
                    "memoryMiB",
                    "fp16Tflops",
                    "idlePowerW",
                    "maxPowerW",
                    "maxSmClockMHz",
                    "slowdownTempC",
                    "shutdownTempC",
                    "migComputeSlices",
                    "migMemorySlices",
                    "migProfiles",
                    "softModes"})
        || !readInt(root, "schemaVersion", 1, intNoLimit, &version, Presence::Required)) {
        return std::nullopt;
    }
    if (version != Catalogue::kSchemaVersion) {
        fail(QStringLiteral("schemaVersion"),
             QStringLiteral("version %1 is not supported (this program reads version %2)")
                     .arg(version)
                     .arg(Catalogue::kSchemaVersion));
        return std::nullopt;
    }
    if (!readTrimmedName(root, "name", &m.name, Presence::Required)
        || !readTrimmedName(root, "source", &source) || !readTrimmedName(root, "vendor", &m.vendor)
        || !readAliases(root, &m)) {
        return std::nullopt;
    }

    if (root.has("pciVendorId")
        && !hexId(root.at("pciVendorId"), QStringLiteral("pciVendorId"), &m.pciVendorId)) {
        return std::nullopt;
    }
    QJsonArray deviceIds;
    if (!readArray(root, "pciDeviceIds", &deviceIds, Presence::Required))
        return std::nullopt;
    for (qsizetype i = 0; i < deviceIds.size(); ++i) {
        const QString field = jsonPath(QStringLiteral("pciDeviceIds"), i);
        quint16 id = 0;
        if (!hexId(deviceIds[i], field, &id))
            return std::nullopt;
        if (m.pciDeviceIds.contains(id)) {
            fail(field, QStringLiteral("repeats an earlier id"));
            return std::nullopt;
        }
        m.pciDeviceIds << id;
    }

    JsonReader::NumberRange positive;
    positive.min = 0;
    positive.minExclusive = true;
    if (!readInteger(root, "memoryMiB", 1, noLimit, &m.memoryMiB, Presence::Required)
        || !readNumber(root, "fp16Tflops", positive, &m.fp16Tflops, Presence::Required)
        || !readInt(root, "idlePowerW", 0, intNoLimit, &m.idlePowerW, Presence::Required)
        || !readInt(root,
                    "maxPowerW",
                    std::max(1, m.idlePowerW),
                    intNoLimit,
                    &m.maxPowerW,
                    Presence::Required)
        // Optional so that a model file written before the field still loads (the exporter
        // leaves the SM clock out for it); a value is a plausible clock, not a typo in kHz.
        || !readInt(root, "maxSmClockMHz", 1, kMaxSmClockMHz, &m.maxSmClockMHz)
        // Optional too; degrees Celsius, the shutdown above the slowdown.
        || !readInt(root, "slowdownTempC", 40, 130, &m.slowdownTempC)
        || !readInt(root, "shutdownTempC", std::max(41, m.slowdownTempC + 1), 140, &m.shutdownTempC)
        || !readProfiles(root, &m) || !readSoftModes(root, &m)) {
        return std::nullopt;
    }
    return m;
}

} // namespace

std::optional<CardModel> Catalogue::parseModel(const QByteArray &json,
                                               const QString &fileName,
                                               LoadError *error)
{
    Domain::JsonError jsonError;
    const std::optional<QJsonObject> root = Domain::parseJsonObject(json, &jsonError);
    if (!root) {
        if (error)
            *error = LoadError{fileName, jsonError.path, jsonError.line, jsonError.message};
        return std::nullopt;
    }
    ModelReader reader;
    std::optional<CardModel> model = reader.read(JsonScope{*root, QString()});
    if (!model && error)
        *error = LoadError{fileName, reader.error().path, 0, reader.error().message};
    return model;
}

} // namespace Zhaoxi::Catalogue
