// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl nvml-check: what the NVML backend reads on this machine, read-only. Lists the cards,
// MIG mode, the driver's GPU-instance profiles and placements compared with the catalogue, the
// instances and the metrics. Opens the backend with applying disabled: it changes nothing (no
// MIG mode change, no partition change, no reset).
#include "commands.h"

#include "core/catalogue/catalogue.h"
#include "core/catalogue/layoutrules.h"
#include "core/device/nvmlapply.h"
#include "core/device/nvmlbackend.h"

namespace Zhaoxi::Cli {

namespace Cat = Zhaoxi::Catalogue;
using namespace Zhaoxi::Device;

namespace {

QString ints(const QList<int> &v)
{
    QStringList p;
    for (int x : v)
        p << QString::number(x);
    return p.join(QLatin1Char(','));
}

template<typename T>
QString opt(const std::optional<T> &v, const QString &unit)
{
    return v ? QString::number(*v) + unit : QStringLiteral("not available");
}

} // namespace

int runNvmlCheck(const QStringList &arguments, Io &io)
{
    Args args(arguments);
    const std::optional<QString> library = args.value(QStringLiteral("library"));
    if (!args.missingValueFor().isEmpty() || !args.unknownOptions().isEmpty()
        || !args.positional().isEmpty()) {
        io.err << "zhaoxictl nvml-check: usage: nvml-check [--library PATH]\n";
        return 2;
    }
    const Cat::Catalogue catalogue = Cat::Catalogue::builtIn();
    NvmlBackendOptions options;
    options.applyEnabled = false; // read-only, always
    options.catalogue = catalogue;
    options.libraryPath = library.value_or(QString());
    NvmlOpenResult opened;
    std::unique_ptr<NvmlBackend> b = NvmlBackend::open(options, &opened);
    if (!b) {
        io.err << "zhaoxictl nvml-check: " << opened.message << "\n";
        return 2;
    }
    io.out << "library: " << b->libraryPath() << "\n";
    io.out << "driver: "
           << (b->driverVersion().isEmpty() ? QStringLiteral("unknown") : b->driverVersion())
           << "\n";
    if (!b->missingOptionalSymbols().isEmpty())
        io.out << "optional functions missing: "
               << b->missingOptionalSymbols().join(QStringLiteral(", ")) << "\n";
    io.out << "access: " << toString(b->access()) << " (" << b->accessMessage() << ")\n";
    io.out << "cards: " << b->cardReports().size() << "\n";
    int differences = 0;
    for (const NvmlCardReport &c : b->cardReports()) {
        const Domain::CardModel *model = c.model >= 0 ? &catalogue.models()[c.model] : nullptr;
        io.out << "\ncard " << c.index << ": " << c.name << "\n";
        io.out << "  uuid: " << c.uuid << "\n  pci: " << c.busId << " "
               << formatPciDeviceId(c.pciDeviceId) << "\n  memory: " << c.memoryTotalMiB
               << " MiB\n";
        io.out << "  catalogue model: "
               << (model ? model->name : QStringLiteral("(none: not partitioned by Zhaoxi)"))
               << "\n";
        io.out << "  MIG: "
               << (c.migCurrent ? (*c.migCurrent ? QStringLiteral("enabled")
                                                 : QStringLiteral("disabled"))
                                : QStringLiteral("not supported"));
        if (c.migPending && c.migCurrent && *c.migPending != *c.migCurrent)
            io.out << " (pending: " << (*c.migPending ? "enabled" : "disabled")
                   << " after a GPU reset)";
        io.out << "\n";
        if (c.readStatus != NvmlStatus::Ok)
            io.out << "  read status: " << toString(c.readStatus) << "\n";
        if (!c.driverProfiles.isEmpty()) {
            io.out << "  driver profiles (id name compute-slices instances memory-MiB "
                      "placements):\n";
            for (const DriverProfile &p : c.driverProfiles)
                io.out << "    " << p.profileId << " "
                       << (p.name.isEmpty() ? QStringLiteral("?") : p.name) << " "
                       << p.computeSlices << " " << p.maxInstances << " " << p.memoryMiB << " {"
                       << ints(p.starts) << "}:" << p.span << "\n";
            if (model) {
                if (c.differences.isEmpty())
                    io.out << "  catalogue comparison: the driver's profiles match " << model->name
                           << "\n";
                for (const ProfileDifference &d : c.differences)
                    io.out << "  catalogue difference: " << describe(d) << "\n";
                differences += c.differences.size();
            }
        } else if (c.migCurrent && !*c.migCurrent) {
            io.out << "  driver profiles: listed only with MIG enabled; nothing to compare\n";
        }
        if (!c.driverInstances.isEmpty()) {
            io.out << "  GPU instances (id profile-id start:size):\n";
            for (const DriverInstance &i : c.driverInstances)
                io.out << "    " << i.id << " " << i.profileId << " " << i.start << ":" << i.size
                       << "\n";
        }
        if (model && c.layout.mode == PartitionMode::Mig)
            io.out << "  layout: " << formatLayout(catalogue, c.model, c.layout.instances) << "\n";
        for (const QString &p : c.layoutProblems)
            io.out << "  layout problem: " << p << "\n";
        const NvmlReading r = b->reading(c.id);
        io.out << "  utilisation: "
               << (r.utilisation ? QStringLiteral("%1 %").arg(*r.utilisation * 100, 0, 'f', 0)
                                 : QStringLiteral("not available"))
               << "\n  memory used: " << opt(r.memoryUsedMiB, QStringLiteral(" MiB"))
               << "\n  temperature: " << opt(r.temperatureC, QStringLiteral(" C"))
               << "\n  power: " << opt(r.powerW, QStringLiteral(" W"))
               << "\n  ECC (volatile): uncorrected " << opt(r.eccUncorrected, QString())
               << ", corrected " << opt(r.eccCorrected, QString()) << "\n";
        if (r.lost)
            io.out << "  health: the card does not answer (GPU lost)\n";
    }
    io.out << "\nread-only check: nothing was changed. catalogue differences: " << differences
           << "\n";
    return 0;
}

} // namespace Zhaoxi::Cli
