// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl catalogue | layouts | check-layout: the card catalogue and its MIG layout rules.
#include "commands.h"

#include "core/catalogue/catalogue.h"
#include "core/catalogue/layoutrules.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <optional>

namespace Zhaoxi::Cli {

namespace Cat = Zhaoxi::Catalogue;
using Domain::CardModel;
using Domain::MigPlacement;
using Domain::MigProfile;
using Domain::PartitionMode;
using Domain::SoftSlicing;

namespace {

QString hex16(quint16 v)
{
    return QStringLiteral("0x")
           + QString::number(v, 16).toUpper().rightJustified(4, QLatin1Char('0'));
}

QStringList modesOf(const CardModel &m)
{
    QStringList r;
    for (PartitionMode mode : {PartitionMode::Whole,
                               PartitionMode::Mig,
                               PartitionMode::TimeSlicing,
                               PartitionMode::Mps}) {
        if (m.supports(mode))
            r << Domain::toString(mode);
    }
    return r;
}

QString joinInts(const QList<int> &values, const QString &sep)
{
    QStringList parts;
    for (int v : values)
        parts << QString::number(v);
    return parts.join(sep);
}

QString formatLayout(const CardModel &model, const QList<MigPlacement> &layout)
{
    QStringList parts;
    for (const MigPlacement &p : layout)
        parts << Cat::formatPlacement(model, p);
    return parts.join(QLatin1Char(' '));
}

// Common option handling: reports leftovers and options given without a value. Returns false
// (and has written the message) when the command must exit with 2.
bool checkLeftovers(const char *command, const Args &args, bool allowPositional, Io &io)
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
    if (!allowPositional && !args.positional().isEmpty()) {
        io.err << "zhaoxictl " << command << ": unexpected argument"
               << (args.positional().size() == 1 ? " " : "s ")
               << args.positional().join(QStringLiteral(", ")) << "\n";
        return false;
    }
    return true;
}

bool loadCatalogue(const char *command, Cat::Catalogue *out, Io &io)
{
    *out = Cat::Catalogue::builtIn();
    if (out->models().isEmpty()) {
        io.err << "zhaoxictl " << command << ": the built-in card catalogue could not be loaded\n";
        return false;
    }
    return true;
}

// The model named by --model, or nullptr after writing why (exit 2).
const CardModel *requireMigModel(const char *command,
                                 const Cat::Catalogue &catalogue,
                                 const std::optional<QString> &name,
                                 Io &io)
{
    if (!name || name->isEmpty()) {
        io.err << "zhaoxictl " << command << ": --model NAME is required; known models: "
               << catalogue.names().join(QStringLiteral(", ")) << "\n";
        return nullptr;
    }
    const CardModel *model = catalogue.find(*name);
    if (!model) {
        io.err << "zhaoxictl " << command << ": unknown model '" << *name
               << "'; known models: " << catalogue.names().join(QStringLiteral(", ")) << "\n";
        return nullptr;
    }
    if (!model->supportsMig()) {
        QStringList migModels;
        for (const CardModel &m : catalogue.models()) {
            if (m.supportsMig())
                migModels << m.name;
        }
        io.err << "zhaoxictl " << command << ": " << model->name
               << " has no MIG profiles; MIG-capable models: "
               << migModels.join(QStringLiteral(", ")) << "\n";
        return nullptr;
    }
    return model;
}

QStringList profileNames(const CardModel &model)
{
    QStringList r;
    for (const MigProfile &p : model.migProfiles)
        r << p.name;
    return r;
}

// Exact name first, then case-insensitive ("3G.40GB" is no different to a user).
int findProfile(const CardModel &model, const QString &name)
{
    const int exact = model.profileIndex(name);
    if (exact >= 0)
        return exact;
    for (int i = 0; i < model.migProfiles.size(); ++i) {
        if (model.migProfiles[i].name.compare(name, Qt::CaseInsensitive) == 0)
            return i;
    }
    return -1;
}

void unknownProfile(const char *command, const CardModel &model, const QString &name, Io &io)
{
    io.err << "zhaoxictl " << command << ": unknown profile '" << name << "' for " << model.name
           << "; known profiles: " << profileNames(model).join(QStringLiteral(", ")) << "\n";
}

QJsonObject profileJson(const MigProfile &p)
{
    QJsonArray starts;
    for (int s : p.starts)
        starts.append(s);
    return QJsonObject{
            {QStringLiteral("name"), p.name},
            {QStringLiteral("profileId"), p.profileId},
            {QStringLiteral("computeSlices"), p.computeSlices},
            {QStringLiteral("memorySlices"), p.memorySlices},
            {QStringLiteral("memoryMiB"), p.memoryMiB},
            {QStringLiteral("maxInstances"), p.maxInstances},
            {QStringLiteral("starts"), starts},
            {QStringLiteral("span"), p.span},
            {QStringLiteral("mediaExtensions"), p.mediaExtensions},
    };
}

QJsonObject softModeJson(const SoftSlicing &s)
{
    return QJsonObject{
            {QStringLiteral("mode"), Domain::toString(s.mode)},
            {QStringLiteral("maxClients"), s.maxClients},
            {QStringLiteral("memoryIsolation"), s.memoryIsolation},
            {QStringLiteral("isolation"), Domain::toString(s.isolation)},
            {QStringLiteral("overheadFactor"), s.overheadFactor},
    };
}

QJsonObject modelJson(const CardModel &m)
{
    QJsonArray pciIds;
    for (quint16 id : m.pciDeviceIds)
        pciIds.append(hex16(id));
    QJsonArray profiles;
    for (const MigProfile &p : m.migProfiles)
        profiles.append(profileJson(p));
    QJsonArray soft;
    for (const SoftSlicing &s : m.softModes)
        soft.append(softModeJson(s));
    QJsonObject o{
            {QStringLiteral("name"), m.name},
            {QStringLiteral("aliases"), QJsonArray::fromStringList(m.aliases)},
            {QStringLiteral("vendor"), m.vendor},
            {QStringLiteral("pciVendorId"), hex16(m.pciVendorId)},
            {QStringLiteral("pciDeviceIds"), pciIds},
            {QStringLiteral("memoryMiB"), m.memoryMiB},
            {QStringLiteral("fp16Tflops"), m.fp16Tflops},
            {QStringLiteral("idlePowerW"), m.idlePowerW},
            {QStringLiteral("maxPowerW"), m.maxPowerW},
            {QStringLiteral("maxSmClockMHz"), m.maxSmClockMHz},
            {QStringLiteral("modes"), QJsonArray::fromStringList(modesOf(m))},
            {QStringLiteral("migProfiles"), profiles},
            {QStringLiteral("softModes"), soft},
    };
    if (m.supportsMig()) {
        o.insert(QStringLiteral("migComputeSlices"), m.migComputeSlices);
        o.insert(QStringLiteral("migMemorySlices"), m.migMemorySlices);
    }
    return o;
}

// Left-aligned columns, two spaces apart.
void printTable(QTextStream &out, const QString &indent, const QList<QStringList> &rows)
{
    QList<qsizetype> widths;
    for (const QStringList &row : rows) {
        for (qsizetype c = 0; c < row.size(); ++c) {
            if (widths.size() <= c)
                widths.append(0);
            widths[c] = std::max(widths[c], row[c].size());
        }
    }
    for (const QStringList &row : rows) {
        QString line = indent;
        for (qsizetype c = 0; c < row.size(); ++c) {
            line += c + 1 < row.size() ? row[c].leftJustified(widths[c] + 2) : row[c];
        }
        out << line << "\n";
    }
}

void printModel(QTextStream &out, const CardModel &m)
{
    QStringList pci;
    for (quint16 id : m.pciDeviceIds)
        pci << hex16(id);
    out << m.name << "  " << m.memoryMiB << " MiB, " << m.fp16Tflops << " FP16 TFLOPS, "
        << m.idlePowerW << "-" << m.maxPowerW << " W, PCI " << hex16(m.pciVendorId) << ":"
        << (pci.isEmpty() ? QStringLiteral("-") : pci.join(QLatin1Char(','))) << "\n";
    if (!m.aliases.isEmpty())
        out << "  aliases: " << m.aliases.join(QStringLiteral(", ")) << "\n";
    out << "  modes: " << modesOf(m).join(QStringLiteral(", ")) << "\n";
    if (m.supportsMig()) {
        out << "  MIG profiles (" << m.migComputeSlices << " compute slices, " << m.migMemorySlices
            << " memory slots):\n";
        QList<QStringList> rows{{QStringLiteral("PROFILE"),
                                 QStringLiteral("ID"),
                                 QStringLiteral("COMPUTE"),
                                 QStringLiteral("MEMORY"),
                                 QStringLiteral("MiB"),
                                 QStringLiteral("MAX"),
                                 QStringLiteral("STARTS")}};
        for (const MigProfile &p : m.migProfiles) {
            rows.append({p.name,
                         QString::number(p.profileId),
                         QString::number(p.computeSlices),
                         QString::number(p.memorySlices),
                         QString::number(p.memoryMiB),
                         QString::number(p.maxInstances),
                         joinInts(p.starts, QStringLiteral(","))});
        }
        printTable(out, QStringLiteral("    "), rows);
    }
    if (!m.softModes.isEmpty()) {
        out << "  soft modes:\n";
        QList<QStringList> rows{{QStringLiteral("MODE"),
                                 QStringLiteral("CLIENTS"),
                                 QStringLiteral("MEMORY ISOLATION"),
                                 QStringLiteral("ISOLATION"),
                                 QStringLiteral("OVERHEAD")}};
        for (const SoftSlicing &s : m.softModes) {
            rows.append({Domain::toString(s.mode),
                         QString::number(s.maxClients),
                         s.memoryIsolation ? QStringLiteral("yes") : QStringLiteral("no"),
                         Domain::toString(s.isolation),
                         QString::number(s.overheadFactor, 'f', 2)});
        }
        printTable(out, QStringLiteral("    "), rows);
    }
}

} // namespace

int runCatalogue(const QStringList &argv, Io &io)
{
    Args args(argv);
    const bool json = args.flag(QStringLiteral("json"));
    if (!checkLeftovers("catalogue", args, false, io))
        return 2;
    Cat::Catalogue catalogue;
    if (!loadCatalogue("catalogue", &catalogue, io))
        return 2;

    if (json) {
        QJsonArray models;
        for (const CardModel &m : catalogue.models())
            models.append(modelJson(m));
        io.out << QJsonDocument(QJsonObject{{QStringLiteral("models"), models}})
                          .toJson(QJsonDocument::Indented);
        return 0;
    }
    bool first = true;
    for (const CardModel &m : catalogue.models()) {
        if (!first)
            io.out << "\n";
        first = false;
        printModel(io.out, m);
    }
    return 0;
}

int runLayouts(const QStringList &argv, Io &io)
{
    Args args(argv);
    const std::optional<QString> modelName = args.value(QStringLiteral("model"));
    const std::optional<QString> profilesArg = args.value(QStringLiteral("profiles"));
    const bool json = args.flag(QStringLiteral("json"));
    if (!checkLeftovers("layouts", args, false, io))
        return 2;
    Cat::Catalogue catalogue;
    if (!loadCatalogue("layouts", &catalogue, io))
        return 2;
    const CardModel *model = requireMigModel("layouts", catalogue, modelName, io);
    if (!model)
        return 2;

    QList<int> allowed;
    if (profilesArg) {
        const QStringList names = profilesArg->split(QLatin1Char(','));
        for (const QString &raw : names) {
            const QString name = raw.trimmed();
            if (name.isEmpty()) {
                io.err << "zhaoxictl layouts: --profiles has an empty entry in '" << *profilesArg
                       << "'; known profiles: " << profileNames(*model).join(QStringLiteral(", "))
                       << "\n";
                return 2;
            }
            const int index = findProfile(*model, name);
            if (index < 0) {
                unknownProfile("layouts", *model, name, io);
                return 2;
            }
            if (!allowed.contains(index))
                allowed << index;
        }
    }

    const QList<QList<MigPlacement>> layouts = Cat::enumerateMaximalLayouts(*model, allowed);
    if (json) {
        QJsonArray list;
        for (const QList<MigPlacement> &layout : layouts) {
            QJsonArray placements;
            for (const MigPlacement &p : layout) {
                placements.append(QJsonObject{
                        {QStringLiteral("profile"), model->migProfiles[p.profile].name},
                        {QStringLiteral("start"), p.start},
                });
            }
            list.append(placements);
        }
        const QJsonObject root{
                {QStringLiteral("model"), model->name},
                {QStringLiteral("count"), int(layouts.size())},
                {QStringLiteral("layouts"), list},
        };
        io.out << QJsonDocument(root).toJson(QJsonDocument::Indented);
        return 0;
    }
    for (const QList<MigPlacement> &layout : layouts)
        io.out << formatLayout(*model, layout) << "\n";
    io.out << layouts.size() << (layouts.size() == 1 ? " maximal layout" : " maximal layouts")
           << " on " << model->name << "\n";
    return 0;
}

int runCheckLayout(const QStringList &argv, Io &io)
{
    Args args(argv);
    const std::optional<QString> modelName = args.value(QStringLiteral("model"));
    if (!checkLeftovers("check-layout", args, true, io))
        return 2;
    const QStringList placements = args.positional();
    Cat::Catalogue catalogue;
    if (!loadCatalogue("check-layout", &catalogue, io))
        return 2;
    const CardModel *model = requireMigModel("check-layout", catalogue, modelName, io);
    if (!model)
        return 2;
    if (placements.isEmpty()) {
        io.err << "zhaoxictl check-layout: give at least one placement as PROFILE@START, e.g. "
               << Cat::formatPlacement(*model,
                                       MigPlacement{0, model->migProfiles[0].starts.first()})
               << "\n";
        return 2;
    }

    QList<MigPlacement> layout;
    for (const QString &arg : placements) {
        QString why;
        const std::optional<MigPlacement> p = Cat::parsePlacement(*model, arg, &why);
        if (!p) {
            io.err << "zhaoxictl check-layout: " << why << "\n";
            return 2;
        }
        layout.append(*p);
    }

    const Cat::LayoutVerdict verdict = Cat::validateLayout(*model, layout);
    if (verdict.isValid()) {
        io.out << "valid\n";
        return 0;
    }
    io.out << verdict.describe(*model, layout) << "\n";
    return 1;
}

} // namespace Zhaoxi::Cli
