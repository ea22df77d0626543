// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/device/fakenvml/fixture.h"

#include <QFile>
#include <QJsonDocument>

namespace Zhaoxi::Device::FakeNvml {

int driverIndex(const Domain::MigProfile &p)
{
    if (p.computeSlices == 1)
        return p.mediaExtensions ? 7 : (p.memorySlices == 2 ? 9 : 0);
    switch (p.computeSlices) {
    case 2:
        return 1;
    case 3:
        return 2;
    case 4:
        return 3;
    case 7:
        return 4;
    default:
        return 16;
    }
}

QJsonArray profilesOf(const Domain::CardModel &m)
{
    QJsonArray a;
    for (const Domain::MigProfile &p : m.migProfiles) {
        QJsonArray starts;
        for (int s : p.starts)
            starts.append(s);
        a.append(QJsonObject{{"index", driverIndex(p)},
                             {"id", p.profileId},
                             {"name", QString(QStringLiteral("MIG ") + p.name)},
                             {"slices", p.computeSlices},
                             {"instances", p.maxInstances},
                             {"memoryMB", p.memoryMiB},
                             {"size", p.span},
                             {"starts", starts}});
    }
    return a;
}

QJsonObject gpu(const Domain::CardModel &m,
                const QString &uuid,
                bool mig,
                const QStringList &instances)
{
    QJsonObject g{{"name", QString(QStringLiteral("NVIDIA ") + m.name)},
                  {"uuid", uuid},
                  {"busId", QStringLiteral("00000000:%1:00.0").arg(uuid.right(2))},
                  {"pciDeviceId",
                   QStringLiteral("0x%1%2")
                           .arg(m.pciDeviceIds.first(), 4, 16, QLatin1Char('0'))
                           .arg(m.pciVendorId, 4, 16, QLatin1Char('0'))
                           .toUpper()
                           .replace(QLatin1String("0X"), QLatin1String("0x"))},
                  {"memoryTotalMiB", m.memoryMiB},
                  {"memoryUsedMiB", 1024},
                  {"utilisation", 37},
                  {"temperature", 41},
                  {"powerMw", 63500},
                  {"smClockMHz", 1410},
                  {"maxSmClockMHz", 1980},
                  {"eccUncorrected", 0},
                  {"eccCorrected", 2}};
    if (m.supportsMig()) {
        g.insert("mig", QJsonObject{{"current", mig}, {"pending", mig}});
        g.insert("profiles", profilesOf(m));
    }
    QJsonArray inst;
    for (const QString &i : instances) {
        const int at = i.indexOf(QLatin1Char('@'));
        const int p = m.profileIndex(i.left(at));
        inst.append(QJsonObject{{"profileId", m.migProfiles[p].profileId},
                                {"start", i.mid(at + 1).toInt()},
                                {"busy", false}});
    }
    g.insert("instances", inst);
    return g;
}

bool useFixture(const QString &path, const QJsonObject &root)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return false;
    f.write(QJsonDocument(root).toJson());
    f.close();
    qputenv("FAKENVML_FIXTURE", path.toLocal8Bit());
    return true;
}

} // namespace Zhaoxi::Device::FakeNvml
