// SPDX-License-Identifier: GPL-3.0-or-later
// The pure mapping functions of the NVML backend, against values NVML reports.
#include "core/catalogue/catalogue.h"
#include "core/device/nvmlparse.h"

#include <QTest>

using namespace Zhaoxi;
using namespace Zhaoxi::Device;

template<typename E>
QString name(E e)
{
    return QString::fromLatin1(toString(e));
}
inline QString name(Zhaoxi::Domain::PartitionMode m)
{
    return Zhaoxi::Domain::toString(m);
}

class TestNvmlParse : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void returnCodes_data()
    {
        QTest::addColumn<int>("code");
        QTest::addColumn<NvmlStatus>("status");
        QTest::addColumn<DeviceError>("error");
        QTest::newRow("success") << 0 << NvmlStatus::Ok << DeviceError::None;
        QTest::newRow("not supported")
                << 3 << NvmlStatus::NotSupported << DeviceError::NotSupported;
        QTest::newRow("no permission")
                << 4 << NvmlStatus::NoPermission << DeviceError::NotSupported;
        QTest::newRow("not found") << 6 << NvmlStatus::NotFound << DeviceError::NotFound;
        QTest::newRow("driver not loaded")
                << 9 << NvmlStatus::DriverNotLoaded << DeviceError::NotSupported;
        QTest::newRow("gpu lost") << 15 << NvmlStatus::GpuLost << DeviceError::GpuLost;
        QTest::newRow("in use") << 19 << NvmlStatus::InUse << DeviceError::InUse;
        QTest::newRow("insufficient resources")
                << 23 << NvmlStatus::InsufficientResources << DeviceError::InsufficientResources;
        QTest::newRow("invalid argument")
                << 2 << NvmlStatus::InvalidArgument << DeviceError::InvalidPlacement;
        QTest::newRow("unknown") << 999 << NvmlStatus::Other << DeviceError::NotSupported;
    }
    void returnCodes()
    {
        QFETCH(int, code);
        QFETCH(NvmlStatus, status);
        QFETCH(DeviceError, error);
        QCOMPARE(name(classifyReturn(code)), name(status));
        QCOMPARE(name(toDeviceError(status)), name(error));
    }

    void pciIdsAndStrings()
    {
        QCOMPARE(splitPciDeviceId(0x233510DEu), (PciId{0x2335, 0x10DE}));
        QCOMPARE(formatPciDeviceId(0x233B10DEu), QStringLiteral("0x233B10DE"));
        const char buf[4] = {'a', 'b', 'c', 'd'}; // no NUL: stops at the buffer's end
        QCOMPARE(fromCString(buf, 4), QStringLiteral("abcd"));
        QCOMPARE(fromCString("GPU-1\0junk", 10), QStringLiteral("GPU-1"));
        QCOMPARE(normalizeProfileName(QStringLiteral("MIG 1g.10gb")), QStringLiteral("1g.10gb"));
        QCOMPARE(normalizeProfileName(QStringLiteral("3g.71gb ")), QStringLiteral("3g.71gb"));
    }

    void modelsByPciIdThenName_data()
    {
        QTest::addColumn<quint32>("pci");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("model");
        QTest::newRow("A100-40GB") << 0x20B010DEu << "NVIDIA A100-SXM4-40GB"
                                   << "A100-SXM4-40GB";
        QTest::newRow("A100-80GB") << 0x20B210DEu << ""
                                   << "A100-SXM4-80GB";
        QTest::newRow("H100") << 0x233010DEu << ""
                              << "H100-SXM5-80GB";
        QTest::newRow("H200") << 0x233510DEu << ""
                              << "H200-141GB";
        QTest::newRow("H200 NVL") << 0x233B10DEu << "NVIDIA H200 NVL"
                                  << "H200-NVL-141GB";
        QTest::newRow("by name") << 0u << "NVIDIA H200 NVL"
                                 << "H200-NVL-141GB";
        QTest::newRow("other vendor") << 0x233B1002u << ""
                                      << "";
        QTest::newRow("unknown") << 0x1234ABCDu << "NVIDIA Mystery"
                                 << "";
    }
    void modelsByPciIdThenName()
    {
        QFETCH(quint32, pci);
        QFETCH(QString, name);
        QFETCH(QString, model);
        const Catalogue::Catalogue cat = Catalogue::Catalogue::builtIn();
        const int i = matchModel(cat, pci, name);
        QCOMPARE(i < 0 ? QString() : cat.models()[i].name, model);
    }

    void instancesBecomePlacements()
    {
        const Catalogue::Catalogue cat = Catalogue::Catalogue::builtIn();
        const Domain::CardModel &m = *cat.find(QStringLiteral("H200-141GB"));
        QStringList problems;
        const QList<InstanceInfo> l
                = mapInstances(m, {{2, 19, 6, 1}, {1, 9, 0, 4}, {3, 77, 4, 1}}, &problems);
        QCOMPARE(l.size(), 2);
        QCOMPARE(l[0].profile, m.profileIndex(QStringLiteral("3g.71gb")));
        QCOMPARE(l[0].start, 0);
        QCOMPARE(l[1].profile, m.profileIndex(QStringLiteral("1g.18gb")));
        QCOMPARE(problems.size(), 1);
        QVERIFY(problems[0].contains(QLatin1String("profile id 77")));
    }

    void unitsAndAvailability()
    {
        QCOMPARE(milliwattsToWatts(63500), 63.5);
        QCOMPARE(bytesToMiB(40ull << 30), 40960);
        QVERIFY(!utilisationFrom(NvmlStatus::NotSupported, 0).has_value());
        QCOMPARE(utilisationFrom(NvmlStatus::Ok, 37), std::optional<double>(0.37));
        QCOMPARE(computeInstanceProfileIndex(3), 2);
        QCOMPARE(computeInstanceProfileIndex(7), 4);
        QCOMPARE(computeInstanceProfileIndex(5), -1);
        QCOMPARE(name(faultForXid(79).value()), name(FaultKind::CardLost));
        QCOMPARE(name(faultForXid(48).value()), name(FaultKind::MemoryError));
        QVERIFY(!faultForXid(13));
        QCOMPARE(parseCapabilityMinor("DeviceFileMinor: 1\nDeviceFileMode: 256\n"), 1);
        QCOMPARE(parseCapabilityMinor("nothing"), -1);
    }
};

QTEST_GUILESS_MAIN(TestNvmlParse)
#include "tst_nvmlparse.moc"
