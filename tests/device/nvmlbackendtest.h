// SPDX-License-Identifier: GPL-3.0-or-later
// What the NVML backend's tests share (tst_nvmlbackend: open, read, faults; tst_nvmlbackend_apply:
// orders, access, plan files): the test double loaded for the whole run, its fixtures, a backend
// opened on it, and readers of what the backend reports.
#pragma once

#include "core/catalogue/catalogue.h"
#include "core/catalogue/layoutrules.h"
#include "core/device/nvmlbackend.h"
#include "core/device/nvmlplan.h"
#include "core/sched/repartitionplanner.h"
#include "tests/device/fakenvml/fixture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <dlfcn.h>
#include <unistd.h>

using namespace Zhaoxi;
using namespace Zhaoxi::Device;
using Domain::CardModel;
using Domain::MigPlacement;

template<typename E>
QString name(E e)
{
    return QString::fromLatin1(toString(e));
}
inline QString name(Zhaoxi::Domain::PartitionMode m)
{
    return Zhaoxi::Domain::toString(m);
}

class NvmlBackendTest
{
protected:
    Catalogue::Catalogue m_cat = Catalogue::Catalogue::builtIn();
    QTemporaryDir m_dir;
    void *m_fake = nullptr;
    int (*m_control)(const char *) = nullptr;
    const char *(*m_log)() = nullptr;
    const char *(*m_migUuid)(int, int) = nullptr;
    int m_fixtures = 0;

    const CardModel &model(const char *name) { return *m_cat.find(QLatin1String(name)); }
    int modelIndex(const char *name) { return m_cat.indexOf(QLatin1String(name)); }

    QJsonObject gpu(const char *modelName,
                    const QString &uuid,
                    bool mig,
                    const QStringList &instances = {})
    {
        return Device::FakeNvml::gpu(model(modelName), uuid, mig, instances);
    }

    void useFixture(const QJsonObject &root)
    {
        const QString path = m_dir.filePath(QStringLiteral("fixture%1.json").arg(m_fixtures++));
        QVERIFY2(Device::FakeNvml::useFixture(path, root), qPrintable(path));
    }

    // Two cards: an A100-40GB in MIG mode with 3g.20gb@0 and 1g.5gb@4, an H200 NVL with MIG off.
    QJsonObject twoCards()
    {
        return QJsonObject{
                {"driverVersion", "550.54.15"},
                {"gpus",
                 QJsonArray{gpu("A100-SXM4-40GB", "GPU-a100-07", true, {"3g.20gb@0", "1g.5gb@4"}),
                            gpu("H200-NVL-141GB", "GPU-h200-3b", false)}}};
    }

    std::unique_ptr<NvmlBackend> open(bool apply,
                                      NvmlOpenResult *result = nullptr,
                                      const char *lib = FAKENVML_PATH)
    {
        NvmlBackendOptions o;
        o.libraryPath = QString::fromLocal8Bit(lib);
        o.applyEnabled = apply;
        o.checkPrivileges = false;
        o.catalogue = m_cat;
        NvmlOpenResult r;
        auto b = NvmlBackend::open(o, &r, 1000);
        if (result)
            *result = r;
        return b;
    }

    QStringList layoutOf(const NvmlBackend &b, int card)
    {
        const CardModel &m = m_cat.models()[b.cards()[card].model];
        QStringList out;
        for (const InstanceInfo &i : b.layout(CardId(card)).instances)
            out << Catalogue::formatPlacement(m, MigPlacement{i.profile, i.start});
        return out;
    }

    // The UUID the backend reports for the instance at `start` on a card.
    QString uuidAt(const NvmlBackend &b, int card, int start)
    {
        for (const InstanceInfo &i : b.layout(CardId(card)).instances) {
            if (i.start == start)
                return i.uuid;
        }
        return QStringLiteral("(no instance at %1)").arg(start);
    }

    // The one the test double handed out for its MIG device there.
    QString fakeUuidAt(int gpu, int start) { return QString::fromLatin1(m_migUuid(gpu, start)); }

    const ProcessUse *processOf(const QList<ProcessUse> &list, quint32 pid)
    {
        for (const ProcessUse &p : list) {
            if (p.pid == pid)
                return &p;
        }
        return nullptr;
    }

    QStringList logLines()
    {
        return QString::fromUtf8(m_log()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

    DeviceStep step(
            DeviceStep::Kind kind, int card, const char *modelName, const char *profile, int start)
    {
        DeviceStep s;
        s.kind = kind;
        s.card = CardId(card);
        s.profile = model(modelName).profileIndex(QLatin1String(profile));
        s.start = start;
        return s;
    }

    // Held for the whole run, so the double's state lives across backends and its control
    // functions are reachable.
    void loadDouble()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(!m_cat.models().isEmpty());
        m_fake = dlopen(FAKENVML_PATH, RTLD_NOW | RTLD_LOCAL);
        QVERIFY2(m_fake, dlerror());
        m_control = reinterpret_cast<int (*)(const char *)>(dlsym(m_fake, "fakenvml_control"));
        m_log = reinterpret_cast<const char *(*)()>(dlsym(m_fake, "fakenvml_log"));
        m_migUuid = reinterpret_cast<const char *(*)(int, int)>(dlsym(m_fake, "fakenvml_mig_uuid"));
        QVERIFY(m_control && m_log && m_migUuid);
    }
};
