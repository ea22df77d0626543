// SPDX-License-Identifier: GPL-3.0-or-later
#include "catalogue.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QJsonValue>
#include <QRegularExpression>
#include <QSet>
#include <QtDebug>

#include <cmath>
#include <limits>

// Q_INIT_RESOURCE must be used from the global namespace.
static void initCatalogueResources()
{
    Q_INIT_RESOURCE(zhaoxi_catalogue_files);
}

namespace Zhaoxi::Catalogue {

using Domain::IsolationLevel;
using Domain::MigProfile;
using Domain::PartitionMode;
using Domain::SoftSlicing;

namespace {

const QString kBuiltInDir = QStringLiteral(":/catalogue");

// Reads one model object. Stops at the first problem: later checks often depend on earlier
// fields (starts need the span, profiles need the slice counts), so one error is the honest answer.
class ModelReader
{
public:
    explicit ModelReader(const QString &fileName)
        : m_fileName(fileName)
    {}

    std::optional<CardModel> read(const QJsonObject &root);
    LoadError error() const { return m_error; }

private:
    bool fail(const QString &field, const QString &message)
    {
        if (!m_failed) {
            m_failed = true;
            m_error = LoadError{m_fileName, field, 0, message};
        }
        return false;
    }

    static QString join(const QString &path, const QString &key)
    {
        return path.isEmpty() ? key : path + QLatin1Char('.') + key;
    }
    static QString item(const QString &path, qsizetype i)
    {
        return path + QLatin1Char('[') + QString::number(i) + QLatin1Char(']');
    }

    bool checkKeys(const QJsonObject &obj, const QString &path, const QStringList &allowed);
    bool requireObject(const QJsonValue &v, const QString &path, QJsonObject *out);
    bool readString(const QJsonObject &obj,
                    const QString &path,
                    const QString &key,
                    bool required,
                    QString *out);
    bool readInt(const QJsonObject &obj,
                 const QString &path,
                 const QString &key,
                 bool required,
                 qint64 min,
                 qint64 max,
                 qint64 *out);
    bool readInt(const QJsonObject &obj,
                 const QString &path,
                 const QString &key,
                 bool required,
                 int min,
                 int max,
                 int *out);
    bool readNumber(const QJsonObject &obj,
                    const QString &path,
                    const QString &key,
                    double min,
                    bool minExclusive,
                    double max,
                    double *out);
    bool readBool(const QJsonObject &obj,
                  const QString &path,
                  const QString &key,
                  bool required,
                  bool *out);
    bool readArray(const QJsonObject &obj,
                   const QString &path,
                   const QString &key,
                   bool required,
                   QJsonArray *out);
    bool intValue(const QJsonValue &v, const QString &field, qint64 min, qint64 max, qint64 *out);
    bool hexId(const QJsonValue &v, const QString &field, quint16 *out);

    bool readProfile(const QJsonObject &obj,
                     const QString &path,
                     const CardModel &model,
                     MigProfile *out);
    bool readSoftMode(const QJsonObject &obj, const QString &path, SoftSlicing *out);

    QString m_fileName;
    LoadError m_error;
    bool m_failed = false;
};

QString typeName(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return QStringLiteral("a boolean");
    case QJsonValue::Double:
        return QStringLiteral("a number");
    case QJsonValue::String:
        return QStringLiteral("a string");
    case QJsonValue::Array:
        return QStringLiteral("an array");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    case QJsonValue::Undefined:
        return QStringLiteral("missing");
    }
    return QStringLiteral("unknown");
}

bool ModelReader::checkKeys(const QJsonObject &obj, const QString &path, const QStringList &allowed)
{
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        if (!allowed.contains(it.key())) {
            return fail(join(path, it.key()),
                        QStringLiteral("unknown key (allowed: %1)")
                                .arg(allowed.join(QStringLiteral(", "))));
        }
    }
    return true;
}

bool ModelReader::requireObject(const QJsonValue &v, const QString &path, QJsonObject *out)
{
    if (!v.isObject())
        return fail(path, QStringLiteral("must be an object, not %1").arg(typeName(v)));
    *out = v.toObject();
    return true;
}

bool ModelReader::readString(const QJsonObject &obj,
                             const QString &path,
                             const QString &key,
                             bool required,
                             QString *out)
{
    const QJsonValue v = obj.value(key);
    if (v.isUndefined())
        return required ? fail(join(path, key), QStringLiteral("is required")) : true;
    if (!v.isString())
        return fail(join(path, key), QStringLiteral("must be a string, not %1").arg(typeName(v)));
    const QString s = v.toString();
    if (s.trimmed().isEmpty())
        return fail(join(path, key), QStringLiteral("must not be empty"));
    if (s != s.trimmed())
        return fail(join(path, key), QStringLiteral("must not start or end with white space"));
    *out = s;
    return true;
}

bool ModelReader::intValue(
        const QJsonValue &v, const QString &field, qint64 min, qint64 max, qint64 *out)
{
    if (!v.isDouble())
        return fail(field, QStringLiteral("must be an integer, not %1").arg(typeName(v)));
    const double d = v.toDouble();
    // 2^53: beyond it a JSON number no longer names one integer.
    if (!std::isfinite(d) || d != std::trunc(d) || std::fabs(d) > 9007199254740992.0)
        return fail(field, QStringLiteral("must be an integer, not %1").arg(d));
    const qint64 i = qint64(d);
    if (i < min || i > max) {
        // int-sized fields use INT_MAX as "no upper bound" too.
        if (max == std::numeric_limits<qint64>::max() || max == std::numeric_limits<int>::max())
            return fail(field, QStringLiteral("must be at least %1, not %2").arg(min).arg(i));
        return fail(field, QStringLiteral("must be in %1..%2, not %3").arg(min).arg(max).arg(i));
    }
    *out = i;
    return true;
}

bool ModelReader::readInt(const QJsonObject &obj,
                          const QString &path,
                          const QString &key,
                          bool required,
                          qint64 min,
                          qint64 max,
                          qint64 *out)
{
    const QJsonValue v = obj.value(key);
    if (v.isUndefined())
        return required ? fail(join(path, key), QStringLiteral("is required")) : true;
    return intValue(v, join(path, key), min, max, out);
}

bool ModelReader::readInt(const QJsonObject &obj,
                          const QString &path,
                          const QString &key,
                          bool required,
                          int min,
                          int max,
                          int *out)
{
    qint64 wide = *out;
    if (!readInt(obj, path, key, required, qint64(min), qint64(max), &wide))
        return false;
    *out = int(wide);
    return true;
}

bool ModelReader::readNumber(const QJsonObject &obj,
                             const QString &path,
                             const QString &key,
                             double min,
                             bool minExclusive,
                             double max,
                             double *out)
{
    const QJsonValue v = obj.value(key);
    const QString field = join(path, key);
    if (v.isUndefined())
        return fail(field, QStringLiteral("is required"));
    if (!v.isDouble())
        return fail(field, QStringLiteral("must be a number, not %1").arg(typeName(v)));
    const double d = v.toDouble();
    const bool belowMin = minExclusive ? !(d > min) : !(d >= min);
    if (!std::isfinite(d) || belowMin || d > max) {
        const QString range
                = max == std::numeric_limits<double>::max()
                          ? QStringLiteral("%1 %2")
                                    .arg(minExclusive ? QStringLiteral("greater than")
                                                      : QStringLiteral("at least"))
                                    .arg(min)
                          : QStringLiteral("in %1%2, %3]")
                                    .arg(minExclusive ? QStringLiteral("(") : QStringLiteral("["))
                                    .arg(min)
                                    .arg(max);
        return fail(field, QStringLiteral("must be %1, not %2").arg(range).arg(d));
    }
    *out = d;
    return true;
}

bool ModelReader::readBool(
        const QJsonObject &obj, const QString &path, const QString &key, bool required, bool *out)
{
    const QJsonValue v = obj.value(key);
    if (v.isUndefined())
        return required ? fail(join(path, key), QStringLiteral("is required")) : true;
    if (!v.isBool())
        return fail(join(path, key),
                    QStringLiteral("must be true or false, not %1").arg(typeName(v)));
    *out = v.toBool();
    return true;
}

bool ModelReader::readArray(const QJsonObject &obj,
                            const QString &path,
                            const QString &key,
                            bool required,
                            QJsonArray *out)
{
    const QJsonValue v = obj.value(key);
    if (v.isUndefined())
        return required ? fail(join(path, key), QStringLiteral("is required")) : true;
    if (!v.isArray())
        return fail(join(path, key), QStringLiteral("must be an array, not %1").arg(typeName(v)));
    *out = v.toArray();
    return true;
}

bool ModelReader::hexId(const QJsonValue &v, const QString &field, quint16 *out)
{
    static const QRegularExpression re(QStringLiteral("^0x[0-9A-Fa-f]{1,4}$"));
    if (!v.isString() || !re.match(v.toString()).hasMatch()) {
        return fail(field,
                    QStringLiteral("must be a hex string of at most 4 digits like \"0x2330\", "
                                   "not %1")
                            .arg(v.isString() ? QLatin1Char('"') + v.toString() + QLatin1Char('"')
                                              : typeName(v)));
    }
    bool ok = false;
    *out = quint16(v.toString().mid(2).toUInt(&ok, 16));
    return ok;
}

bool ModelReader::readProfile(const QJsonObject &obj,
                              const QString &path,
                              const CardModel &model,
                              MigProfile *out)
{
    static const QStringList keys = {
            QStringLiteral("name"),
            QStringLiteral("profileId"),
            QStringLiteral("computeSlices"),
            QStringLiteral("memorySlices"),
            QStringLiteral("memoryMiB"),
            QStringLiteral("maxInstances"),
            QStringLiteral("starts"),
            QStringLiteral("span"),
            QStringLiteral("mediaExtensions"),
    };
    MigProfile p;
    if (!checkKeys(obj, path, keys) || !readString(obj, path, QStringLiteral("name"), true, &p.name)
        || !readInt(obj,
                    path,
                    QStringLiteral("profileId"),
                    true,
                    0,
                    std::numeric_limits<int>::max(),
                    &p.profileId)
        || !readInt(obj,
                    path,
                    QStringLiteral("computeSlices"),
                    true,
                    1,
                    model.migComputeSlices,
                    &p.computeSlices)
        || !readInt(obj,
                    path,
                    QStringLiteral("memorySlices"),
                    true,
                    1,
                    model.migMemorySlices,
                    &p.memorySlices)
        || !readInt(obj,
                    path,
                    QStringLiteral("memoryMiB"),
                    true,
                    qint64(1),
                    model.memoryMiB,
                    &p.memoryMiB)) {
        return false;
    }
    p.span = p.memorySlices;
    if (!readInt(obj, path, QStringLiteral("span"), false, 1, model.migMemorySlices, &p.span))
        return false;
    if (p.span != p.memorySlices) {
        return fail(join(path, QStringLiteral("span")),
                    QStringLiteral("must equal memorySlices (%1), not %2")
                            .arg(p.memorySlices)
                            .arg(p.span));
    }
    QJsonArray starts;
    if (!readArray(obj, path, QStringLiteral("starts"), true, &starts))
        return false;
    const QString startsPath = join(path, QStringLiteral("starts"));
    if (starts.isEmpty())
        return fail(startsPath, QStringLiteral("must list at least one start"));
    for (qsizetype i = 0; i < starts.size(); ++i) {
        qint64 s = 0;
        if (!intValue(starts[i], item(startsPath, i), 0, model.migMemorySlices - 1, &s))
            return false;
        if (s + p.span > model.migMemorySlices) {
            return fail(item(startsPath, i),
                        QStringLiteral("start %1 + span %2 runs past the %3 memory slots")
                                .arg(s)
                                .arg(p.span)
                                .arg(model.migMemorySlices));
        }
        if (!p.starts.isEmpty() && s <= p.starts.last()) {
            return fail(item(startsPath, i),
                        QStringLiteral("starts must be strictly ascending (%1 after %2)")
                                .arg(s)
                                .arg(p.starts.last()));
        }
        p.starts.append(int(s));
    }
    if (!readInt(obj,
                 path,
                 QStringLiteral("maxInstances"),
                 true,
                 1,
                 int(p.starts.size()),
                 &p.maxInstances)
        || !readBool(obj, path, QStringLiteral("mediaExtensions"), false, &p.mediaExtensions)) {
        return false;
    }
    *out = p;
    return true;
}

bool ModelReader::readSoftMode(const QJsonObject &obj, const QString &path, SoftSlicing *out)
{
    static const QStringList keys = {
            QStringLiteral("mode"),
            QStringLiteral("maxClients"),
            QStringLiteral("memoryIsolation"),
            QStringLiteral("isolation"),
            QStringLiteral("overheadFactor"),
    };
    SoftSlicing m;
    QString mode;
    QString isolation;
    if (!checkKeys(obj, path, keys) || !readString(obj, path, QStringLiteral("mode"), true, &mode))
        return false;
    if (!Domain::partitionModeFromString(mode, &m.mode)
        || (m.mode != PartitionMode::TimeSlicing && m.mode != PartitionMode::Mps)) {
        return fail(join(path, QStringLiteral("mode")),
                    QStringLiteral("must be \"time-slicing\" or \"mps\", not \"%1\"").arg(mode));
    }
    if (!readInt(obj,
                 path,
                 QStringLiteral("maxClients"),
                 true,
                 1,
                 std::numeric_limits<int>::max(),
                 &m.maxClients)
        || !readBool(obj, path, QStringLiteral("memoryIsolation"), true, &m.memoryIsolation)
        || !readString(obj, path, QStringLiteral("isolation"), true, &isolation)) {
        return false;
    }
    if (!Domain::isolationLevelFromString(isolation, &m.isolation)) {
        return fail(join(path, QStringLiteral("isolation")),
                    QStringLiteral("must be \"none\", \"weak\" or \"strong\", not \"%1\"")
                            .arg(isolation));
    }
    if (!readNumber(obj, path, QStringLiteral("overheadFactor"), 0.0, true, 1.0, &m.overheadFactor))
        return false;
    *out = m;
    return true;
}

std::optional<CardModel> ModelReader::read(const QJsonObject &root)
{
    static const QStringList keys = {
            QStringLiteral("schemaVersion"),
            QStringLiteral("name"),
            QStringLiteral("aliases"),
            QStringLiteral("source"),
            QStringLiteral("vendor"),
            QStringLiteral("pciVendorId"),
            QStringLiteral("pciDeviceIds"),
            QStringLiteral("memoryMiB"),
            QStringLiteral("fp16Tflops"),
            QStringLiteral("idlePowerW"),
            QStringLiteral("maxPowerW"),
            QStringLiteral("migComputeSlices"),
            QStringLiteral("migMemorySlices"),
            QStringLiteral("migProfiles"),
            QStringLiteral("softModes"),
    };
    const QString top;
    CardModel m;
    int version = 0;
    QString source;
    if (!checkKeys(root, top, keys)
        || !readInt(root,
                    top,
                    QStringLiteral("schemaVersion"),
                    true,
                    1,
                    std::numeric_limits<int>::max(),
                    &version)) {
        return std::nullopt;
    }
    if (version != Catalogue::kSchemaVersion) {
        fail(QStringLiteral("schemaVersion"),
             QStringLiteral("version %1 is not supported (this program reads version %2)")
                     .arg(version)
                     .arg(Catalogue::kSchemaVersion));
        return std::nullopt;
    }
    if (!readString(root, top, QStringLiteral("name"), true, &m.name)
        || !readString(root, top, QStringLiteral("source"), false, &source)
        || !readString(root, top, QStringLiteral("vendor"), false, &m.vendor)) {
        return std::nullopt;
    }

    QJsonArray aliases;
    if (!readArray(root, top, QStringLiteral("aliases"), false, &aliases))
        return std::nullopt;
    QSet<QString> seenNames{m.name.toCaseFolded()};
    for (qsizetype i = 0; i < aliases.size(); ++i) {
        const QString field = item(QStringLiteral("aliases"), i);
        const QJsonValue v = aliases[i];
        if (!v.isString() || v.toString().trimmed().isEmpty()
            || v.toString() != v.toString().trimmed()) {
            fail(field,
                 QStringLiteral("must be a non-empty string without surrounding white space"));
            return std::nullopt;
        }
        if (seenNames.contains(v.toString().toCaseFolded())) {
            fail(field,
                 QStringLiteral("\"%1\" repeats the model's name or another alias")
                         .arg(v.toString()));
            return std::nullopt;
        }
        seenNames.insert(v.toString().toCaseFolded());
        m.aliases << v.toString();
    }

    if (root.contains(QStringLiteral("pciVendorId"))
        && !hexId(root.value(QStringLiteral("pciVendorId")),
                  QStringLiteral("pciVendorId"),
                  &m.pciVendorId)) {
        return std::nullopt;
    }
    QJsonArray deviceIds;
    if (!readArray(root, top, QStringLiteral("pciDeviceIds"), true, &deviceIds))
        return std::nullopt;
    for (qsizetype i = 0; i < deviceIds.size(); ++i) {
        quint16 id = 0;
        if (!hexId(deviceIds[i], item(QStringLiteral("pciDeviceIds"), i), &id))
            return std::nullopt;
        if (m.pciDeviceIds.contains(id)) {
            fail(item(QStringLiteral("pciDeviceIds"), i), QStringLiteral("repeats an earlier id"));
            return std::nullopt;
        }
        m.pciDeviceIds << id;
    }

    if (!readInt(root,
                 top,
                 QStringLiteral("memoryMiB"),
                 true,
                 qint64(1),
                 std::numeric_limits<qint64>::max(),
                 &m.memoryMiB)
        || !readNumber(root,
                       top,
                       QStringLiteral("fp16Tflops"),
                       0.0,
                       true,
                       std::numeric_limits<double>::max(),
                       &m.fp16Tflops)
        || !readInt(root,
                    top,
                    QStringLiteral("idlePowerW"),
                    true,
                    0,
                    std::numeric_limits<int>::max(),
                    &m.idlePowerW)
        || !readInt(root,
                    top,
                    QStringLiteral("maxPowerW"),
                    true,
                    std::max(1, m.idlePowerW),
                    std::numeric_limits<int>::max(),
                    &m.maxPowerW)) {
        return std::nullopt;
    }

    QJsonArray profiles;
    if (!readArray(root, top, QStringLiteral("migProfiles"), false, &profiles))
        return std::nullopt;
    const bool mig = !profiles.isEmpty();
    if (!readInt(root, top, QStringLiteral("migComputeSlices"), mig, 1, 32, &m.migComputeSlices)
        || !readInt(root, top, QStringLiteral("migMemorySlices"), mig, 1, 32, &m.migMemorySlices)) {
        return std::nullopt;
    }
    QHash<QString, qsizetype> profileNames;
    QHash<int, qsizetype> profileIds;
    for (qsizetype i = 0; i < profiles.size(); ++i) {
        const QString path = item(QStringLiteral("migProfiles"), i);
        QJsonObject obj;
        MigProfile p;
        if (!requireObject(profiles[i], path, &obj) || !readProfile(obj, path, m, &p))
            return std::nullopt;
        if (profileNames.contains(p.name)) {
            fail(join(path, QStringLiteral("name")),
                 QStringLiteral("\"%1\" is already the name of migProfiles[%2]")
                         .arg(p.name)
                         .arg(profileNames.value(p.name)));
            return std::nullopt;
        }
        if (profileIds.contains(p.profileId)) {
            fail(join(path, QStringLiteral("profileId")),
                 QStringLiteral("%1 is already the id of migProfiles[%2]")
                         .arg(p.profileId)
                         .arg(profileIds.value(p.profileId)));
            return std::nullopt;
        }
        profileNames.insert(p.name, i);
        profileIds.insert(p.profileId, i);
        m.migProfiles << p;
    }

    QJsonArray softModes;
    if (!readArray(root, top, QStringLiteral("softModes"), false, &softModes))
        return std::nullopt;
    for (qsizetype i = 0; i < softModes.size(); ++i) {
        const QString path = item(QStringLiteral("softModes"), i);
        QJsonObject obj;
        SoftSlicing s;
        if (!requireObject(softModes[i], path, &obj) || !readSoftMode(obj, path, &s))
            return std::nullopt;
        if (m.softMode(s.mode)) {
            fail(join(path, QStringLiteral("mode")),
                 QStringLiteral("\"%1\" is listed twice").arg(Domain::toString(s.mode)));
            return std::nullopt;
        }
        m.softModes << s;
    }
    return m;
}

int lineOfOffset(const QByteArray &json, int offset)
{
    return int(json.left(offset).count('\n')) + 1;
}

// QJsonDocument keeps one value of a key that appears twice and says nothing; in a hardware
// table that is a silent edit. This scan runs on text the parser has accepted, so it only needs
// to track strings, nesting and commas. Keys are compared as written (escapes not decoded).
std::optional<LoadError> findDuplicateKey(const QByteArray &json, const QString &fileName)
{
    struct Frame
    {
        bool object = false;
        QString path;
        QSet<QByteArray> keys;
        QByteArray lastKey;
        int index = 0;
        bool expectKey = true;
    };
    QList<Frame> stack;
    int line = 1;
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (c == '\n') {
            ++line;
        } else if (c == '"') {
            const qsizetype begin = i + 1;
            for (++i; i < json.size() && json[i] != '"'; ++i) {
                if (json[i] == '\\')
                    ++i;
            }
            if (stack.isEmpty() || !stack.last().object || !stack.last().expectKey)
                continue;
            Frame &top = stack.last();
            const QByteArray key = json.mid(begin, i - begin);
            const QString keyText = QString::fromUtf8(key);
            if (top.keys.contains(key)) {
                return LoadError{fileName,
                                 top.path.isEmpty() ? keyText
                                                    : top.path + QLatin1Char('.') + keyText,
                                 line,
                                 QStringLiteral("the key appears twice in one object")};
            }
            top.keys.insert(key);
            top.lastKey = key;
            top.expectKey = false;
        } else if (c == '{' || c == '[') {
            QString path;
            if (!stack.isEmpty()) {
                const Frame &top = stack.last();
                if (top.object) {
                    const QString key = QString::fromUtf8(top.lastKey);
                    path = top.path.isEmpty() ? key : top.path + QLatin1Char('.') + key;
                } else {
                    path = top.path + QLatin1Char('[') + QString::number(top.index)
                           + QLatin1Char(']');
                }
            }
            stack.append(Frame{c == '{', path, {}, {}, 0, true});
        } else if (c == '}' || c == ']') {
            if (!stack.isEmpty())
                stack.removeLast();
        } else if (c == ',' && !stack.isEmpty()) {
            if (stack.last().object)
                stack.last().expectKey = true;
            else
                ++stack.last().index;
        }
    }
    return std::nullopt;
}

} // namespace

QString LoadError::toString() const
{
    QString s = file;
    if (line > 0)
        s += QLatin1Char(':') + QString::number(line);
    if (!field.isEmpty())
        s += (s.isEmpty() ? QString() : QStringLiteral(": ")) + field;
    if (!message.isEmpty())
        s += (s.isEmpty() ? QString() : QStringLiteral(": ")) + message;
    return s;
}

std::optional<CardModel> Catalogue::parseModel(const QByteArray &json,
                                               const QString &fileName,
                                               LoadError *error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        if (error) {
            *error = LoadError{
                    fileName,
                    QString(),
                    lineOfOffset(json, parseError.offset),
                    QStringLiteral("JSON syntax error: %1").arg(parseError.errorString())};
        }
        return std::nullopt;
    }
    if (!doc.isObject()) {
        if (error) {
            *error = LoadError{
                    fileName, QString(), 0, QStringLiteral("the file must hold one JSON object")};
        }
        return std::nullopt;
    }
    if (const std::optional<LoadError> duplicate = findDuplicateKey(json, fileName)) {
        if (error)
            *error = *duplicate;
        return std::nullopt;
    }
    ModelReader reader(fileName);
    std::optional<CardModel> model = reader.read(doc.object());
    if (!model && error)
        *error = reader.error();
    return model;
}

std::optional<Catalogue> Catalogue::loadDirectory(const QString &dir, QList<LoadError> *errors)
{
    QList<LoadError> found;
    const QDir d(dir);
    if (!d.exists()) {
        found << LoadError{dir, QString(), 0, QStringLiteral("no such directory")};
    } else {
        const QStringList files = d.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        if (files.isEmpty())
            found << LoadError{dir, QString(), 0, QStringLiteral("no *.json catalogue files")};

        struct Loaded
        {
            QString file;
            CardModel model;
        };
        QList<Loaded> loaded;
        for (const QString &name : files) {
            const QString path = d.filePath(name);
            QFile f(path);
            if (!f.open(QIODevice::ReadOnly)) {
                found << LoadError{path,
                                   QString(),
                                   0,
                                   QStringLiteral("cannot read the file: %1").arg(f.errorString())};
                continue;
            }
            LoadError e;
            std::optional<CardModel> m = parseModel(f.readAll(), path, &e);
            if (!m) {
                found << e;
                continue;
            }
            loaded.append(Loaded{path, *m});
        }

        // A name or alias that two models answer to would make find() ambiguous.
        QHash<QString, qsizetype> owner; // case-folded name -> index into loaded
        for (qsizetype i = 0; i < loaded.size(); ++i) {
            const CardModel &m = loaded[i].model;
            const QStringList names = QStringList{m.name} + m.aliases;
            for (qsizetype k = 0; k < names.size(); ++k) {
                const QString key = names[k].toCaseFolded();
                const auto it = owner.constFind(key);
                if (it != owner.constEnd()) {
                    const Loaded &first = loaded[*it];
                    found << LoadError{loaded[i].file,
                                       k == 0 ? QStringLiteral("name")
                                              : QStringLiteral("aliases[%1]").arg(k - 1),
                                       0,
                                       QStringLiteral("duplicate model name \"%1\": model %2 in %3 "
                                                      "already answers to it")
                                               .arg(names[k], first.model.name, first.file)};
                    continue;
                }
                owner.insert(key, i);
            }
        }

        if (found.isEmpty()) {
            Catalogue c;
            for (const Loaded &l : loaded)
                c.m_models << l.model;
            if (errors)
                errors->clear();
            return c;
        }
    }
    if (errors)
        *errors = found;
    return std::nullopt;
}

Catalogue Catalogue::builtIn()
{
    initCatalogueResources();
    QList<LoadError> errors;
    std::optional<Catalogue> c = loadDirectory(kBuiltInDir, &errors);
    if (!c) {
        for (const LoadError &e : errors)
            qWarning().noquote() << "built-in catalogue:" << e.toString();
        return Catalogue();
    }
    return *c;
}

const CardModel *Catalogue::find(const QString &nameOrAlias) const
{
    const int i = indexOf(nameOrAlias);
    return i < 0 ? nullptr : &m_models[i];
}

int Catalogue::indexOf(const QString &nameOrAlias) const
{
    for (qsizetype i = 0; i < m_models.size(); ++i) {
        if (m_models[i].matchesName(nameOrAlias))
            return int(i);
    }
    return -1;
}

QStringList Catalogue::names() const
{
    QStringList r;
    r.reserve(m_models.size());
    for (const CardModel &m : m_models)
        r << m.name;
    return r;
}

void Catalogue::add(const CardModel &model)
{
    for (CardModel &m : m_models) {
        if (m.name.compare(model.name, Qt::CaseInsensitive) == 0) {
            m = model;
            return;
        }
    }
    m_models << model;
}

} // namespace Zhaoxi::Catalogue
