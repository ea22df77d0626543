// SPDX-License-Identifier: GPL-3.0-or-later
// What the hardware session's tests share: the fake NVML library held open, its fixtures, a
// session on it, and the cleanup that stops every process a test started.
#pragma once

#include "core/catalogue/catalogue.h"
#include "core/catalogue/layoutrules.h"
#include "core/models/sessionclient.h"
#include "core/runtime/liverun.h"
#include "core/session/hardwaresession.h"
#include "core/storage/exporter.h"
#include "tests/device/fakenvml/fixture.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <cmath>
#include <csignal>
#include <dlfcn.h>

using namespace Zhaoxi;
using Domain::CardModel;
using Domain::MigPlacement;
using Session::HardwareOptions;
using Session::HardwareSession;

inline QList<QByteArray> codesOf(const QList<Storage::Event> &events)
{
    QList<QByteArray> out;
    for (const Storage::Event &e : events)
        out << e.code;
    return out;
}

inline QString param(const Storage::Event &e, const char *key)
{
    return Storage::jsonParam(e.params, QLatin1String(key));
}

class HardwareSessionTest
{
protected:
protected:
    Catalogue::Catalogue m_cat = Catalogue::Catalogue::builtIn();
    QTemporaryDir m_dir;
    void *m_fake = nullptr;
    int (*m_control)(const char *) = nullptr;
    const char *(*m_log)() = nullptr;
    int m_fixtures = 0;
    qint64 m_clock = 1'767'600'000'000; // a manual wall clock, UTC epoch ms
    QList<qint64> m_spawned;            // real processes a test started (killed in cleanup)

    const CardModel &model(const char *name) { return *m_cat.find(QLatin1String(name)); }

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

    // An A100-40GB in MIG mode with 3g.20gb@0 and 1g.5gb@4, a card the catalogue does not know
    // (left out of the state), and an H200 NVL with MIG off.
    QJsonObject threeCards()
    {
        QJsonObject unknown{{"name", "NVIDIA GeForce GT 710"},
                            {"uuid", "GPU-gt710-5e"},
                            {"busId", "00000000:5E:00.0"},
                            {"pciDeviceId", "0x128B10DE"},
                            {"memoryTotalMiB", 2048},
                            {"memoryUsedMiB", 0},
                            {"utilisation", 0},
                            {"temperature", 30},
                            {"powerMw", 10000},
                            {"instances", QJsonArray{}}};
        return QJsonObject{
                {"driverVersion", "550.54.15"},
                {"gpus",
                 QJsonArray{gpu("A100-SXM4-40GB", "GPU-a100-07", true, {"3g.20gb@0", "1g.5gb@4"}),
                            unknown,
                            gpu("H200-NVL-141GB", "GPU-h200-3b", false)}}};
    }

    Device::NvmlBackendOptions backendOptions(const char *lib = FAKENVML_PATH)
    {
        Device::NvmlBackendOptions o;
        o.libraryPath = QString::fromLocal8Bit(lib);
        o.checkPrivileges = false; // the double answers NO_PERMISSION itself
        o.catalogue = m_cat;
        return o;
    }

    std::unique_ptr<HardwareSession> open(bool allowChanges, int pollMs = 2000)
    {
        HardwareOptions h;
        h.allowChanges = allowChanges;
        h.pollIntervalMs = pollMs;
        h.storePath = m_dir.filePath(QStringLiteral("events%1.sqlite").arg(m_fixtures));
        h.clock = [this] { return m_clock; };
        QString why;
        auto s = HardwareSession::open(backendOptions(), h, &why);
        if (!s)
            qWarning("open: %s", qPrintable(why));
        return s;
    }

    QStringList layoutOf(const Session::Snapshot &s, int card)
    {
        const Sched::CardState &c = s.state.card(Domain::CardId(card));
        QStringList out;
        for (const MigPlacement &p : c.migLayout())
            out << Catalogue::formatPlacement(s.state.model(c), p);
        return out;
    }

    // What the double really holds on a GPU, read back through a fresh look at the driver.
    QStringList fakeLayout(const HardwareSession &s, int nvmlIndex)
    {
        const Device::NvmlCardReport &rep = s.backend().cardReports()[nvmlIndex];
        QStringList out;
        for (const Device::InstanceInfo &i : rep.layout.instances)
            out << Catalogue::formatPlacement(m_cat.models()[rep.model],
                                              MigPlacement{i.profile, i.start});
        return out;
    }

    QList<MigPlacement> placements(const char *modelName, const QStringList &layout)
    {
        const CardModel &m = model(modelName);
        QList<MigPlacement> out;
        for (const QString &i : layout) {
            const int at = i.indexOf(QLatin1Char('@'));
            out << MigPlacement{m.profileIndex(i.left(at)), i.mid(at + 1).toInt()};
        }
        return out;
    }

    Session::CommandResult apply(HardwareSession &s, int card, const QList<MigPlacement> &target)
    {
        QSignalSpy done(&s, &HardwareSession::commandFinished);
        s.applyLayout(7, card, target, Session::ApplyMode::Immediate, 0);
        if (done.size() != 1)
            return {};
        return done.first().first().value<Session::CommandResult>();
    }

    int logSize() { return int(QString::fromUtf8(m_log()).count(QLatin1Char('\n'))); }

    // A session that runs real work: the real wall clock, its jobs under m_dir/work.
    std::unique_ptr<HardwareSession> openForWork(bool allowChanges,
                                                 const QString &store,
                                                 int metricPeriodMs = 60'000)
    {
        HardwareOptions h;
        h.allowChanges = allowChanges;
        h.metricPeriodMs = metricPeriodMs;
        h.pollIntervalMs = 250;
        h.storePath = store;
        h.dataDir = m_dir.filePath(QStringLiteral("work"));
        h.shimPath = QStringLiteral(SHIM_PATH);
        QString why;
        auto s = HardwareSession::open(backendOptions(), h, &why);
        if (!s)
            qWarning("open: %s", qPrintable(why));
        return s;
    }

    static QJsonObject trainSpec(const QString &name, const QJsonObject &compute, int stepMs = 20)
    {
        return QJsonObject{
                {"name", name},
                {"kind", "training"},
                {"demand", QJsonObject{{"compute", compute}, {"cards", 1}, {"memoryGiB", 4}}},
                {"preemption", "checkpoint"},
                {"checkpointInterval", "1m"},
                {"run",
                 QJsonObject{{"command",
                              QJsonArray{QStringLiteral(DEMO_TRAIN_PATH),
                                         "--steps",
                                         "1000000",
                                         "--step-ms",
                                         QString::number(stepMs),
                                         "--checkpoint-every",
                                         "25"}},
                             {"stopGrace", "5s"}}}};
    }

    static Session::CommandResult lastResult(const QSignalSpy &spy)
    {
        return spy.isEmpty() ? Session::CommandResult{}
                             : spy.last().first().value<Session::CommandResult>();
    }

    static QString logOf(HardwareSession &s, Domain::JobId job)
    {
        QSignalSpy logs(&s, &HardwareSession::jobLogReady);
        s.requestJobLog(99, job.value(), 64 * 1024);
        return logs.isEmpty() ? QString() : logs.first().first().value<Session::JobLog>().text;
    }

    static int countCode(const QList<Storage::Event> &events, const char *code, int job = -1)
    {
        int n = 0;
        for (const Storage::Event &e : events)
            n += e.code == code && (job < 0 || e.job == job);
        return n;
    }

    void stopEverythingStarted()
    {
        // A test that failed half way leaves nothing running: each job is its process group.
        for (const qint64 pid : std::as_const(m_spawned)) {
            if (pid > 0) {
                ::kill(-pid_t(pid), SIGKILL);
                ::kill(pid_t(pid), SIGKILL);
            }
        }
        m_spawned.clear();
        // ... also those it had no time to note: every shim under this test's directory and
        // its job.
        QList<pid_t> shims;
        for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
            bool isPid = false;
            const pid_t pid = pid_t(entry.toInt(&isPid));
            QFile cmd(QStringLiteral("/proc/%1/cmdline").arg(entry));
            if (isPid && cmd.open(QIODevice::ReadOnly)
                && cmd.readAll().contains(m_dir.path().toLocal8Bit()))
                shims << pid;
        }
        for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
            QFile stat(QStringLiteral("/proc/%1/stat").arg(entry));
            if (!stat.open(QIODevice::ReadOnly))
                continue;
            const QByteArray st = stat.readAll();
            const QList<QByteArray> f = st.mid(st.lastIndexOf(')') + 2).split(' ');
            if (f.size() > 1 && shims.contains(pid_t(f[1].toInt()))) {
                ::kill(-pid_t(entry.toInt()), SIGKILL);
                ::kill(pid_t(entry.toInt()), SIGKILL);
            }
        }
        for (const pid_t pid : std::as_const(shims))
            ::kill(pid, SIGKILL);
    }

    void openTheFake()
    {
        QVERIFY(m_dir.isValid());
        // Held for the whole run, so the double's state lives across sessions and its control
        // functions are reachable.
        m_fake = dlopen(FAKENVML_PATH, RTLD_NOW | RTLD_LOCAL);
        QVERIFY2(m_fake, dlerror());
        m_control = reinterpret_cast<int (*)(const char *)>(dlsym(m_fake, "fakenvml_control"));
        m_log = reinterpret_cast<const char *(*)()>(dlsym(m_fake, "fakenvml_log"));
        QVERIFY(m_control && m_log);
    }
};
