// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl migparted import | export: NVIDIA mig-parted configuration files.
#include "commands.h"

#include "core/catalogue/catalogue.h"
#include "core/catalogue/layoutrules.h"
#include "core/catalogue/migparted.h"
#include "core/sched/appliancefile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace Zhaoxi::Cli {

namespace Cat = Zhaoxi::Catalogue;
using Domain::CardModel;
using Domain::MigPlacement;

namespace {

bool leftoversOk(const Args &args, Io &io)
{
    if (!args.missingValueFor().isEmpty()) {
        io.err << "zhaoxictl migparted: option " << args.missingValueFor() << " needs a value\n";
        return false;
    }
    const QStringList unknown = args.unknownOptions();
    if (!unknown.isEmpty()) {
        io.err << "zhaoxictl migparted: unknown option " << unknown.join(QStringLiteral(", "))
               << "\n";
        return false;
    }
    return true;
}

std::optional<QByteArray> readFile(const QString &path, Io &io)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        io.err << "zhaoxictl migparted: cannot read " << path << ": " << f.errorString() << "\n";
        return std::nullopt;
    }
    return f.readAll();
}

int runImport(Args &args, Io &io)
{
    const bool json = args.flag(QStringLiteral("json"));
    const std::optional<QString> modelName = args.value(QStringLiteral("model"));
    const std::optional<QString> config = args.value(QStringLiteral("config"));
    if (!leftoversOk(args, io))
        return 2;
    const QStringList pos = args.positional();
    if (pos.size() != 2) { // "import" FILE
        io.err << "zhaoxictl migparted import: exactly one FILE is required\n";
        return 2;
    }
    const Cat::Catalogue catalogue = Cat::Catalogue::builtIn();
    if (!modelName || modelName->isEmpty()) {
        io.err << "zhaoxictl migparted import: --model NAME is required; known models: "
               << catalogue.names().join(QStringLiteral(", ")) << "\n";
        return 2;
    }
    const CardModel *model = catalogue.find(*modelName);
    if (!model) {
        io.err << "zhaoxictl migparted import: unknown model '" << *modelName
               << "'; known models: " << catalogue.names().join(QStringLiteral(", ")) << "\n";
        return 2;
    }
    // The library reads the file itself so that its size limit applies before the text is read.
    Cat::YamlError error;
    const std::optional<Cat::MigPartedFile> file = Cat::readMigPartedFile(pos[1], &error);
    if (!file) {
        io.err << "zhaoxictl migparted import: " << error.toString() << "\n";
        return 2;
    }
    if (config && !file->config(*config)) {
        QStringList names;
        for (const Cat::MigPartedConfig &c : file->configs)
            names << c.name;
        io.err << "zhaoxictl migparted import: no config '" << *config << "' in " << pos[1]
               << "; it has: " << names.join(QStringLiteral(", ")) << "\n";
        return 2;
    }
    const QList<Cat::MigPartedPlacement> results
            = Cat::importMigParted(*file, *model, config.value_or(QString()));
    bool allOk = true;
    for (const Cat::MigPartedPlacement &r : results) {
        if (r.applies && !r.ok)
            allOk = false;
        if (config && !r.applies)
            allOk = false;
    }
    if (json) {
        QJsonArray configs;
        for (const Cat::MigPartedPlacement &r : results) {
            QJsonObject o;
            o.insert(QStringLiteral("name"), r.config);
            o.insert(QStringLiteral("applies"), r.applies);
            o.insert(QStringLiteral("ok"), r.applies && r.ok);
            if (r.applies) {
                o.insert(QStringLiteral("migEnabled"), r.migEnabled);
                if (!r.allDevices) {
                    QJsonArray d;
                    for (int i : r.devices)
                        d.append(i);
                    o.insert(QStringLiteral("devices"), d);
                }
            }
            QJsonArray layout;
            for (const MigPlacement &p : r.layout)
                layout.append(
                        QJsonObject{{QStringLiteral("profile"), model->migProfiles[p.profile].name},
                                    {QStringLiteral("start"), p.start}});
            o.insert(QStringLiteral("layout"), layout);
            o.insert(QStringLiteral("reason"), r.reason);
            configs.append(o);
        }
        const QJsonObject root{{QStringLiteral("model"), model->name},
                               {QStringLiteral("configs"), configs}};
        io.out << QJsonDocument(root).toJson(QJsonDocument::Indented);
        return allOk ? 0 : 1;
    }
    io.out << model->name << " (" << Cat::pciFilters(*model).join(QStringLiteral(", ")) << ")\n";
    for (const Cat::MigPartedPlacement &r : results) {
        QString who = r.config;
        if (!r.allDevices) {
            QStringList d;
            for (int i : r.devices)
                d << QString::number(i);
            who += QStringLiteral(" [devices %1]").arg(d.join(QLatin1Char(',')));
        }
        if (!r.applies) {
            io.out << "  " << who << ": does not apply: " << r.reason << "\n";
        } else if (!r.ok) {
            io.out << "  " << who << ": cannot be placed: " << r.reason << "\n";
        } else if (!r.migEnabled) {
            io.out << "  " << who << ": MIG disabled\n";
        } else {
            QStringList parts;
            for (const MigPlacement &p : r.layout)
                parts << Cat::formatPlacement(*model, p);
            io.out << "  " << who << ": "
                   << (parts.isEmpty() ? QStringLiteral("MIG enabled, no instances")
                                       : parts.join(QLatin1Char(' ')))
                   << "\n";
        }
    }
    return allOk ? 0 : 1;
}

// An appliance file, or a scenario that holds one under "appliance" (inline, or a path relative
// to the scenario).
std::optional<Sched::Appliance> loadScenarioAppliance(const QString &path,
                                                      const Cat::Catalogue &catalogue,
                                                      Io &io)
{
    const std::optional<QByteArray> text = readFile(path, io);
    if (!text)
        return std::nullopt;
    QByteArray applianceJson = *text;
    QString applianceName = path;
    const QJsonDocument doc = QJsonDocument::fromJson(*text);
    if (doc.isObject() && !doc.object().contains(QLatin1String("hosts"))
        && doc.object().contains(QLatin1String("appliance"))) {
        const QJsonValue a = doc.object().value(QLatin1String("appliance"));
        if (a.isObject()) {
            applianceJson = QJsonDocument(a.toObject()).toJson();
        } else if (a.isString()) {
            applianceName = QFileInfo(path).dir().filePath(a.toString());
            const std::optional<QByteArray> inner = readFile(applianceName, io);
            if (!inner)
                return std::nullopt;
            applianceJson = *inner;
        }
    }
    Sched::ApplianceError error;
    std::optional<Sched::Appliance> appliance
            = Sched::readAppliance(applianceJson, catalogue, applianceName, &error);
    if (!appliance)
        io.err << "zhaoxictl migparted export: " << error.toString() << "\n";
    return appliance;
}

int runExport(Args &args, Io &io)
{
    const std::optional<QString> scenario = args.value(QStringLiteral("scenario"));
    if (!leftoversOk(args, io))
        return 2;
    if (!scenario || args.positional().size() != 1) {
        io.err << "zhaoxictl migparted export: --scenario FILE is required\n";
        return 2;
    }
    const Cat::Catalogue catalogue = Cat::Catalogue::builtIn();
    const std::optional<Sched::Appliance> appliance
            = loadScenarioAppliance(*scenario, catalogue, io);
    if (!appliance)
        return 2;
    const Sched::ClusterState &state = appliance->state;
    Cat::MigPartedFile file;
    for (const Sched::HostState &h : state.hosts()) {
        QList<Cat::MigPartedCardLayout> cards;
        for (int i = h.firstCard; i < h.firstCard + h.cardCount; ++i) {
            const Sched::CardState &c = state.cards()[i];
            cards << Cat::MigPartedCardLayout{
                    c.model, c.mode == Domain::PartitionMode::Mig, c.migLayout()};
        }
        if (!cards.isEmpty())
            file.configs << Cat::exportHost(catalogue, h.name, cards);
    }
    io.out << QString::fromUtf8(Cat::writeMigParted(
            file,
            {QStringLiteral("Written by zhaoxictl migparted export from appliance \"%1\".")
                     .arg(appliance->name),
             QStringLiteral("One config per host; mig-parted keeps counts, the driver picks "
                            "placements.")}));
    return 0;
}

} // namespace

int runMigParted(const QStringList &arguments, Io &io)
{
    Args args(arguments);
    const QStringList pos = args.positional();
    const QString sub = pos.value(0);
    if (sub == QLatin1String("import"))
        return runImport(args, io);
    if (sub == QLatin1String("export"))
        return runExport(args, io);
    io.err << "zhaoxictl migparted: expected 'import FILE --model NAME [--config NAME] [--json]' "
              "or "
              "'export --scenario FILE'\n";
    return 2;
}

} // namespace Zhaoxi::Cli
