// SPDX-License-Identifier: GPL-3.0-or-later
// The mig-parted file: read from the YAML tree (with every shape error on its line), read from a
// file under its size limit, written back; PCI filters and profile names. The YAML reader is in
// migpartedyaml.cpp; import and export in migpartedimport.cpp.
#include "migparted.h"

#include "migparted_p.h"

#include <QFile>
#include <QSet>

#include <algorithm>

namespace Zhaoxi::Catalogue {

using Detail::excerpt;
using Detail::hexFilter;
using Domain::CardModel;

// ============================================================================ mig-parted

const MigPartedConfig *MigPartedFile::config(const QString &name) const
{
    for (const MigPartedConfig &c : configs) {
        if (c.name == name)
            return &c;
    }
    return nullptr;
}

namespace {

bool scalarBool(const YamlNode &n, bool *value)
{
    if (!n.isScalar() || n.quoted)
        return false;
    const QString s = n.scalar.toLower();
    if (s == QLatin1String("true")) {
        *value = true;
        return true;
    }
    if (s == QLatin1String("false")) {
        *value = false;
        return true;
    }
    return false;
}

bool scalarInt(const YamlNode &n, int *value)
{
    if (!n.isScalar() || n.quoted)
        return false;
    bool ok = false;
    const int v = n.scalar.toInt(&ok);
    if (ok)
        *value = v;
    return ok;
}

QString sizeMessage(const QString &what, qint64 size)
{
    return QStringLiteral("%1 is %2 bytes; a mig-parted file may be at most %3 bytes (%4 MiB)")
            .arg(what)
            .arg(size)
            .arg(kMaxMigPartedFileSize)
            .arg(kMaxMigPartedFileSize / (1024 * 1024));
}

bool parseFilter(const QString &s, quint32 *value)
{
    QString t = s.trimmed();
    if (!t.startsWith(QLatin1String("0x"), Qt::CaseInsensitive) || t.size() != 10)
        return false;
    bool ok = false;
    *value = t.mid(2).toUInt(&ok, 16);
    return ok;
}

} // namespace

std::optional<MigPartedFile> readMigParted(const QByteArray &yaml, YamlError *error)
{
    YamlError dummy;
    YamlError &err = error ? *error : dummy;
    if (yaml.size() > kMaxMigPartedFileSize) {
        err = YamlError{};
        err.message = sizeMessage(QStringLiteral("the text"), yaml.size());
        return std::nullopt;
    }
    const std::optional<YamlNode> doc = parseYaml(yaml, &err);
    if (!doc)
        return std::nullopt;
    auto bad = [&](int line, const QString &message) {
        err = YamlError{};
        err.line = line;
        err.message = message;
        return std::nullopt;
    };
    if (!doc->isMapping())
        return bad(doc->line,
                   QStringLiteral(
                           "a mig-parted file is a mapping with \"version\" and \"mig-configs\""));
    MigPartedFile file;
    for (const auto &[key, value] : doc->entries) {
        if (key != QLatin1String("version") && key != QLatin1String("mig-configs"))
            return bad(value.line, QStringLiteral("unknown key \"%1\"").arg(key));
    }
    const YamlNode *version = doc->value(QStringLiteral("version"));
    if (!version)
        return bad(doc->line, QStringLiteral("\"version\" is missing"));
    if (!version->isScalar() || version->scalar != QLatin1String("v1"))
        return bad(version->line, QStringLiteral("version: only \"v1\" is supported"));
    const YamlNode *configs = doc->value(QStringLiteral("mig-configs"));
    if (!configs)
        return bad(doc->line, QStringLiteral("\"mig-configs\" is missing"));
    if (!configs->isMapping())
        return bad(configs->line,
                   QStringLiteral("mig-configs: must map config names to lists of entries"));
    for (const auto &[name, list] : configs->entries) {
        MigPartedConfig config;
        config.name = name;
        config.line = list.line;
        if (!list.isSequence() || list.items.isEmpty())
            return bad(list.line, QStringLiteral("%1: must be a list of entries").arg(name));
        for (const YamlNode &e : list.items) {
            if (!e.isMapping())
                return bad(e.line,
                           QStringLiteral("%1: each entry is a mapping (devices, mig-enabled, ...)")
                                   .arg(name));
            MigPartedEntry entry;
            entry.line = e.line;
            for (const auto &[k, v] : e.entries) {
                static const QStringList known = {QStringLiteral("devices"),
                                                  QStringLiteral("device-filter"),
                                                  QStringLiteral("mig-enabled"),
                                                  QStringLiteral("mig-devices")};
                if (!known.contains(k))
                    return bad(v.line, QStringLiteral("%1: unknown key \"%2\"").arg(name, k));
            }
            const YamlNode *devices = e.value(QStringLiteral("devices"));
            if (!devices)
                return bad(e.line, QStringLiteral("%1: \"devices\" is missing").arg(name));
            if (devices->isScalar() && devices->scalar == QLatin1String("all")) {
                entry.allDevices = true;
            } else if (devices->isSequence()) {
                entry.allDevices = false;
                QSet<int> seen; // QList::contains() per index would make a long list quadratic
                for (const YamlNode &d : devices->items) {
                    int index = -1;
                    if (!scalarInt(d, &index) || index < 0)
                        return bad(d.line,
                                   QStringLiteral("%1: devices: each device is an index >= 0")
                                           .arg(name));
                    if (seen.contains(index))
                        return bad(d.line,
                                   QStringLiteral("%1: devices: %2 is listed twice")
                                           .arg(name)
                                           .arg(index));
                    seen.insert(index);
                    entry.devices << index;
                }
                if (entry.devices.isEmpty())
                    return bad(devices->line,
                               QStringLiteral("%1: devices: the list is empty").arg(name));
            } else {
                return bad(devices->line,
                           QStringLiteral("%1: devices: \"all\" or a list of indexes").arg(name));
            }
            if (const YamlNode *f = e.value(QStringLiteral("device-filter"))) {
                QList<YamlNode> values;
                if (f->isScalar())
                    values << *f;
                else if (f->isSequence())
                    values = f->items;
                else
                    return bad(
                            f->line,
                            QStringLiteral("%1: device-filter: one id or a list of ids").arg(name));
                for (const YamlNode &v : values) {
                    quint32 id = 0;
                    if (!v.isScalar() || !parseFilter(v.scalar, &id))
                        return bad(v.line,
                                   QStringLiteral("%1: device-filter: \"%2\" is not a PCI id like "
                                                  "\"0x233510DE\"")
                                           .arg(name, excerpt(v.scalar)));
                    entry.deviceFilter << id;
                }
            }
            const YamlNode *enabled = e.value(QStringLiteral("mig-enabled"));
            if (!enabled)
                return bad(e.line, QStringLiteral("%1: \"mig-enabled\" is missing").arg(name));
            if (!scalarBool(*enabled, &entry.migEnabled))
                return bad(enabled->line,
                           QStringLiteral("%1: mig-enabled: true or false").arg(name));
            if (const YamlNode *md = e.value(QStringLiteral("mig-devices"))) {
                if (!md->isMapping() && !md->isNull())
                    return bad(md->line,
                               QStringLiteral("%1: mig-devices: a mapping of profile to count")
                                       .arg(name));
                for (const auto &[profile, count] : md->entries) {
                    int n = -1;
                    if (!scalarInt(count, &n) || n < 0)
                        return bad(count.line,
                                   QStringLiteral("%1: mig-devices: count of \"%2\" must be an "
                                                  "integer >= 0")
                                           .arg(name, profile));
                    entry.migDevices << qMakePair(profile, n);
                }
                if (!entry.migEnabled && !entry.migDevices.isEmpty())
                    return bad(md->line,
                               QStringLiteral("%1: mig-devices given with mig-enabled: false")
                                       .arg(name));
            }
            config.entries << entry;
        }
        file.configs << config;
    }
    return file;
}

std::optional<MigPartedFile> readMigPartedFile(const QString &path, YamlError *error)
{
    YamlError dummy;
    YamlError &err = error ? *error : dummy;
    auto bad = [&](const QString &message) {
        err = YamlError{};
        err.file = path;
        err.message = message;
        return std::nullopt;
    };
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return bad(QStringLiteral("cannot read the file: %1").arg(f.errorString()));
    // Before reading: a huge file would otherwise be in memory (twice, decoded) to be refused.
    if (!f.isSequential() && f.size() > kMaxMigPartedFileSize)
        return bad(sizeMessage(QStringLiteral("the file"), f.size()));
    // Read in pieces up to the limit: a pipe has no size, and a file may grow while read.
    QByteArray text;
    if (!f.isSequential())
        text.reserve(f.size());
    char chunk[64 * 1024];
    while (true) {
        const qint64 n = f.read(chunk, sizeof chunk);
        if (n < 0)
            return bad(QStringLiteral("cannot read the file: %1").arg(f.errorString()));
        if (n == 0)
            break;
        if (text.size() + n > kMaxMigPartedFileSize)
            return bad(QStringLiteral("the file is more than %1 bytes; a mig-parted file may be "
                                      "at most %1 bytes (%2 MiB)")
                               .arg(kMaxMigPartedFileSize)
                               .arg(kMaxMigPartedFileSize / (1024 * 1024)));
        text.append(chunk, n);
    }
    std::optional<MigPartedFile> file = readMigParted(text, &err);
    if (!file)
        err.file = path;
    return file;
}

namespace {

QString quoteIfNeeded(const QString &s)
{
    static const QString plainSafe
            = QStringLiteral("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.");
    const bool plain
            = !s.isEmpty()
              && std::all_of(s.cbegin(), s.cend(), [](QChar c) { return plainSafe.contains(c); })
              && s != QLatin1String("true") && s != QLatin1String("false")
              && s != QLatin1String("null") && !s.front().isDigit()
              && !s.startsWith(QLatin1Char('-'));
    if (plain)
        return s;
    QString q = s;
    q.replace(QLatin1Char('\\'), QLatin1String("\\\\"))
            .replace(QLatin1Char('"'), QLatin1String("\\\""));
    return QLatin1Char('"') + q + QLatin1Char('"');
}
} // namespace

QString Detail::hexFilter(quint32 id)
{
    return QStringLiteral("0x")
           + QString::number(id, 16).toUpper().rightJustified(8, QLatin1Char('0'));
}

QByteArray writeMigParted(const MigPartedFile &file, const QStringList &header)
{
    QString out;
    for (const QString &h : header)
        out += QStringLiteral("# ") + h + QLatin1Char('\n');
    out += QStringLiteral("version: ") + file.version + QLatin1Char('\n');
    out += QStringLiteral("mig-configs:\n");
    for (const MigPartedConfig &c : file.configs) {
        out += QStringLiteral("  ") + quoteIfNeeded(c.name) + QStringLiteral(":\n");
        for (const MigPartedEntry &e : c.entries) {
            QString first = QStringLiteral("    - ");
            auto line = [&](const QString &text) {
                out += first + text + QLatin1Char('\n');
                first = QStringLiteral("      ");
            };
            if (!e.deviceFilter.isEmpty()) {
                if (e.deviceFilter.size() == 1) {
                    line(QStringLiteral("device-filter: \"%1\"")
                                 .arg(hexFilter(e.deviceFilter.first())));
                } else {
                    QStringList ids;
                    for (quint32 id : e.deviceFilter)
                        ids << QLatin1Char('"') + hexFilter(id) + QLatin1Char('"');
                    line(QStringLiteral("device-filter: [%1]").arg(ids.join(QStringLiteral(", "))));
                }
            }
            if (e.allDevices) {
                line(QStringLiteral("devices: all"));
            } else {
                QStringList ids;
                for (int d : e.devices)
                    ids << QString::number(d);
                line(QStringLiteral("devices: [%1]").arg(ids.join(QStringLiteral(", "))));
            }
            line(QStringLiteral("mig-enabled: %1")
                         .arg(e.migEnabled ? QStringLiteral("true") : QStringLiteral("false")));
            if (e.migEnabled) {
                if (e.migDevices.isEmpty()) {
                    line(QStringLiteral("mig-devices: {}"));
                } else {
                    line(QStringLiteral("mig-devices:"));
                    for (const auto &[profile, count] : e.migDevices)
                        out += QStringLiteral("        \"%1\": %2\n").arg(profile).arg(count);
                }
            }
        }
    }
    return out.toUtf8();
}

QStringList pciFilters(const CardModel &model)
{
    QStringList out;
    for (quint16 d : model.pciDeviceIds)
        out << hexFilter((quint32(d) << 16) | model.pciVendorId);
    return out;
}

bool filterMatches(const QList<quint32> &filter, const CardModel &model)
{
    if (filter.isEmpty())
        return true;
    for (quint32 f : filter) {
        const quint16 device = quint16(f >> 16);
        const quint16 vendor = quint16(f & 0xFFFFu);
        if (vendor == model.pciVendorId && model.pciDeviceIds.contains(device))
            return true;
    }
    return false;
}

int profileIndexFor(const CardModel &model, const QString &name)
{
    int i = model.profileIndex(name);
    if (i < 0 && name.endsWith(QLatin1String(".me")))
        i = model.profileIndex(name.left(name.size() - 3) + QLatin1String("+me"));
    return i;
}
} // namespace Zhaoxi::Catalogue
