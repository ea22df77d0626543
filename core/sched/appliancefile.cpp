// SPDX-License-Identifier: GPL-3.0-or-later
#include "appliancefile.h"

#include "core/catalogue/layoutrules.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QJsonValue>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Sched {

using Domain::MigPlacement;

namespace {

constexpr int kMaxCardsPerHost = 64; // HostState::failedCards has one bit per card
constexpr double kMaxCpuCores = 1 << 20;
constexpr double kMaxMemoryGiB = 1 << 30;

QString item(const QString &path, qsizetype i)
{
    return path + QLatin1Char('[') + QString::number(i) + QLatin1Char(']');
}

QString join(const QString &path, const QString &key)
{
    return path.isEmpty() ? key : path + QLatin1Char('.') + key;
}

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

// Line and column (in characters, both 1-based) of a byte offset into UTF-8 text.
void lineAndColumn(const QByteArray &json, qsizetype offset, int *line, int *column)
{
    offset = std::clamp<qsizetype>(offset, 0, json.size());
    const QByteArray before = json.left(offset);
    const qsizetype lineStart = before.lastIndexOf('\n') + 1;
    *line = int(before.count('\n')) + 1;
    *column = int(QString::fromUtf8(before.mid(lineStart)).size()) + 1;
}

// QJsonDocument keeps one value of a key that appears twice and says nothing; in an appliance
// description that silently drops a host or a card. This scan runs on text the parser has
// accepted, so it only tracks strings, nesting, keys and commas. Keys compare as written.
std::optional<ApplianceError> findDuplicateKey(const QByteArray &json, const QString &fileName)
{
    struct Frame
    {
        bool object = false;
        QString path;
        QSet<QByteArray> keys;
        QByteArray lastKey;  // object: the key whose value comes next
        qsizetype index = 0; // array: the element that comes next
        bool expectKey = true;
    };
    QList<Frame> stack;
    const auto childPath = [&]() -> QString {
        if (stack.isEmpty())
            return QString();
        const Frame &f = stack.last();
        return f.object ? join(f.path, QString::fromUtf8(f.lastKey)) : item(f.path, f.index);
    };
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char ch = json[i];
        switch (ch) {
        case '"': {
            const qsizetype begin = i + 1;
            for (++i; i < json.size() && json[i] != '"'; ++i) {
                if (json[i] == '\\')
                    ++i;
            }
            if (!stack.isEmpty() && stack.last().object && stack.last().expectKey) {
                Frame &f = stack.last();
                const QByteArray key = json.mid(begin, i - begin);
                if (f.keys.contains(key)) {
                    ApplianceError e;
                    e.file = fileName;
                    lineAndColumn(json, begin - 1, &e.line, &e.column);
                    e.field = join(f.path, QString::fromUtf8(key));
                    e.message = QStringLiteral("duplicate key");
                    return e;
                }
                f.keys.insert(key);
                f.lastKey = key;
                f.expectKey = false;
            }
            break;
        }
        case '{':
        case '[': {
            Frame f;
            f.object = ch == '{';
            f.path = childPath();
            stack.append(f);
            break;
        }
        case '}':
        case ']':
            if (!stack.isEmpty())
                stack.removeLast();
            break;
        case ',':
            if (!stack.isEmpty()) {
                Frame &f = stack.last();
                if (f.object)
                    f.expectKey = true;
                else
                    ++f.index;
            }
            break;
        default:
            break;
        }
    }
    return std::nullopt;
}

// Reads the appliance object. Stops at the first problem: one honest error beats a cascade.
class ApplianceReader
{
public:
    ApplianceReader(const Catalogue::Catalogue &catalogue, const QString &fileName)
        : m_catalogue(catalogue)
        , m_fileName(fileName)
    {}

    std::optional<Appliance> read(const QJsonObject &root);
    ApplianceError error() const { return m_error; }

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

    bool fail(const QString &field, const QString &message)
    {
        m_error.file = m_fileName;
        m_error.field = field;
        m_error.message = message;
        return false;
    }

    bool checkKeys(const QJsonObject &obj, const QString &path, const QStringList &allowed);
    bool readString(const QJsonObject &obj,
                    const QString &path,
                    const QString &key,
                    bool required,
                    QString *out);
    bool readNumber(const QJsonObject &obj,
                    const QString &path,
                    const QString &key,
                    double max,
                    double *out);
    bool readInt(const QJsonObject &obj,
                 const QString &path,
                 const QString &key,
                 int min,
                 int max,
                 int *out);
    bool readArray(const QJsonObject &obj,
                   const QString &path,
                   const QString &key,
                   bool required,
                   QJsonArray *out);
    bool readHost(const QJsonValue &v, const QString &path, HostEntry *out);
    bool readCard(const QJsonValue &v, const QString &path, CardEntry *out);
    bool readLayout(const QJsonArray &array,
                    const QString &path,
                    const Domain::CardModel &model,
                    QList<MigPlacement> *out);

    const Catalogue::Catalogue &m_catalogue;
    QString m_fileName;
    ApplianceError m_error;
};

bool ApplianceReader::checkKeys(const QJsonObject &obj,
                                const QString &path,
                                const QStringList &allowed)
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

bool ApplianceReader::readString(const QJsonObject &obj,
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

bool ApplianceReader::readNumber(
        const QJsonObject &obj, const QString &path, const QString &key, double max, double *out)
{
    const QJsonValue v = obj.value(key);
    if (v.isUndefined())
        return fail(join(path, key), QStringLiteral("is required"));
    if (!v.isDouble())
        return fail(join(path, key), QStringLiteral("must be a number, not %1").arg(typeName(v)));
    const double d = v.toDouble();
    if (!std::isfinite(d) || d <= 0 || d > max) {
        return fail(
                join(path, key),
                QStringLiteral("must be greater than 0 and at most %1, not %2").arg(max).arg(d));
    }
    *out = d;
    return true;
}

bool ApplianceReader::readInt(
        const QJsonObject &obj, const QString &path, const QString &key, int min, int max, int *out)
{
    const QJsonValue v = obj.value(key);
    if (v.isUndefined())
        return true; // every int field is optional
    if (!v.isDouble())
        return fail(join(path, key), QStringLiteral("must be an integer, not %1").arg(typeName(v)));
    const double d = v.toDouble();
    if (!std::isfinite(d) || d != std::trunc(d))
        return fail(join(path, key), QStringLiteral("must be an integer, not %1").arg(d));
    if (d < min || d > max) {
        return fail(join(path, key),
                    QStringLiteral("must be in %1..%2, not %3").arg(min).arg(max).arg(d));
    }
    *out = int(d);
    return true;
}

bool ApplianceReader::readArray(const QJsonObject &obj,
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

std::optional<Appliance> ApplianceReader::read(const QJsonObject &root)
{
    if (!checkKeys(root, QString(), {QStringLiteral("name"), QStringLiteral("hosts")}))
        return std::nullopt;
    Appliance appliance;
    if (!readString(root, QString(), QStringLiteral("name"), true, &appliance.name))
        return std::nullopt;
    QJsonArray hosts;
    if (!readArray(root, QString(), QStringLiteral("hosts"), true, &hosts))
        return std::nullopt;
    if (hosts.isEmpty()) {
        fail(QStringLiteral("hosts"), QStringLiteral("must list at least one host"));
        return std::nullopt;
    }

    QList<HostEntry> entries;
    QHash<QString, qsizetype> hostByName;
    for (qsizetype i = 0; i < hosts.size(); ++i) {
        const QString path = item(QStringLiteral("hosts"), i);
        HostEntry h;
        if (!readHost(hosts[i], path, &h))
            return std::nullopt;
        const auto seen = hostByName.constFind(h.name);
        if (seen != hostByName.constEnd()) {
            fail(join(path, QStringLiteral("name")),
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
    if (!v.isObject())
        return fail(path, QStringLiteral("must be an object, not %1").arg(typeName(v)));
    const QJsonObject obj = v.toObject();
    if (!checkKeys(obj,
                   path,
                   {QStringLiteral("name"),
                    QStringLiteral("cpu"),
                    QStringLiteral("memoryGiB"),
                    QStringLiteral("cards")})) {
        return false;
    }
    double cpu = 0;
    double memoryGiB = 0;
    QJsonArray cards;
    if (!readString(obj, path, QStringLiteral("name"), true, &out->name)
        || !readNumber(obj, path, QStringLiteral("cpu"), kMaxCpuCores, &cpu)
        || !readNumber(obj, path, QStringLiteral("memoryGiB"), kMaxMemoryGiB, &memoryGiB)
        || !readArray(obj, path, QStringLiteral("cards"), false, &cards)) {
        return false;
    }
    out->cpuMilli = std::llround(cpu * 1000);
    out->memoryMiB = std::llround(memoryGiB * 1024);
    if (out->cpuMilli <= 0)
        return fail(join(path, QStringLiteral("cpu")), QStringLiteral("must be at least 0.001"));
    if (out->memoryMiB <= 0) {
        return fail(join(path, QStringLiteral("memoryGiB")),
                    QStringLiteral("must be at least 1 MiB (0.0009765625)"));
    }

    int total = 0;
    for (qsizetype i = 0; i < cards.size(); ++i) {
        const QString cardPath = item(join(path, QStringLiteral("cards")), i);
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
    if (!v.isObject())
        return fail(path, QStringLiteral("must be an object, not %1").arg(typeName(v)));
    const QJsonObject obj = v.toObject();
    if (!checkKeys(obj,
                   path,
                   {QStringLiteral("model"),
                    QStringLiteral("mode"),
                    QStringLiteral("linkDomain"),
                    QStringLiteral("count"),
                    QStringLiteral("layout")})) {
        return false;
    }
    QString modelName;
    if (!readString(obj, path, QStringLiteral("model"), true, &modelName))
        return false;
    out->model = m_catalogue.indexOf(modelName);
    if (out->model < 0) {
        return fail(join(path, QStringLiteral("model")),
                    QStringLiteral("unknown card model \"%1\" (known: %2)")
                            .arg(modelName, m_catalogue.names().join(QStringLiteral(", "))));
    }
    const Domain::CardModel &model = m_catalogue.models()[out->model];

    QString modeName = Domain::toString(PartitionMode::Whole);
    if (!readString(obj, path, QStringLiteral("mode"), false, &modeName))
        return false;
    if (!Domain::partitionModeFromString(modeName, &out->mode)) {
        return fail(join(path, QStringLiteral("mode")),
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
        return fail(join(path, QStringLiteral("mode")),
                    QStringLiteral("%1 does not support mode \"%2\" (it supports: %3)")
                            .arg(model.name, modeName, supported.join(QStringLiteral(", "))));
    }
    if (!readInt(obj, path, QStringLiteral("linkDomain"), 0, 1 << 20, &out->linkDomain)
        || !readInt(obj, path, QStringLiteral("count"), 1, kMaxCardsPerHost, &out->count)) {
        return false;
    }
    QJsonArray layout;
    if (!readArray(obj, path, QStringLiteral("layout"), false, &layout))
        return false;
    if (obj.contains(QStringLiteral("layout")) && out->mode != PartitionMode::Mig) {
        return fail(join(path, QStringLiteral("layout")),
                    QStringLiteral("is only allowed in mode \"mig\", not \"%1\"").arg(modeName));
    }
    return readLayout(layout, join(path, QStringLiteral("layout")), model, &out->layout);
}

bool ApplianceReader::readLayout(const QJsonArray &array,
                                 const QString &path,
                                 const Domain::CardModel &model,
                                 QList<MigPlacement> *out)
{
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString at = item(path, i);
        const QJsonValue v = array[i];
        if (!v.isString())
            return fail(at, QStringLiteral("must be a string, not %1").arg(typeName(v)));
        const QString text = v.toString();
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
        return fail(verdict.index >= 0 ? item(path, verdict.index) : path,
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
    const auto failWith = [&](ApplianceError e) -> std::optional<Appliance> {
        if (error)
            *error = std::move(e);
        return std::nullopt;
    };
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        ApplianceError e;
        e.file = fileName;
        lineAndColumn(json, parseError.offset, &e.line, &e.column);
        e.message = QStringLiteral("JSON syntax error: %1").arg(parseError.errorString());
        return failWith(e);
    }
    if (!doc.isObject()) {
        ApplianceError e;
        e.file = fileName;
        e.message = QStringLiteral("the file must hold one JSON object");
        return failWith(e);
    }
    if (std::optional<ApplianceError> duplicate = findDuplicateKey(json, fileName))
        return failWith(*duplicate);
    ApplianceReader reader(catalogue, fileName);
    std::optional<Appliance> appliance = reader.read(doc.object());
    if (!appliance)
        return failWith(reader.error());
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
