// SPDX-License-Identifier: GPL-3.0-or-later
// The NVML backend against the test double of the library (tests/device/fakenvml): enumerate,
// read, apply, failures half way, no permission, no driver, missing optional symbols.
#include "core/catalogue/catalogue.h"
#include "core/catalogue/layoutrules.h"
#include "core/device/nvmlbackend.h"
#include "core/device/nvmlplan.h"
#include "core/sched/repartitionplanner.h"

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

namespace {

// NVML_GPU_INSTANCE_PROFILE_* index of a catalogue profile, as the driver numbers them.
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

QJsonArray profilesOf(const CardModel &m)
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

} // namespace

template<typename E>
QString name(E e)
{
    return QString::fromLatin1(toString(e));
}
inline QString name(Zhaoxi::Domain::PartitionMode m)
{
    return Zhaoxi::Domain::toString(m);
}

class TestNvmlBackend : public QObject
{
    Q_OBJECT

private:
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
        const CardModel &m = model(modelName);
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

    void useFixture(const QJsonObject &root)
    {
        const QString path = m_dir.filePath(QStringLiteral("fixture%1.json").arg(m_fixtures++));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(root).toJson());
        f.close();
        qputenv("FAKENVML_FIXTURE", path.toLocal8Bit());
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

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(!m_cat.models().isEmpty());
        // Held for the whole run, so the double's state lives across backends and its control
        // functions are reachable.
        m_fake = dlopen(FAKENVML_PATH, RTLD_NOW | RTLD_LOCAL);
        QVERIFY2(m_fake, dlerror());
        m_control = reinterpret_cast<int (*)(const char *)>(dlsym(m_fake, "fakenvml_control"));
        m_log = reinterpret_cast<const char *(*)()>(dlsym(m_fake, "fakenvml_log"));
        m_migUuid = reinterpret_cast<const char *(*)(int, int)>(dlsym(m_fake, "fakenvml_mig_uuid"));
        QVERIFY(m_control && m_log && m_migUuid);
    }

    void noDriverFound()
    {
        NvmlOpenResult r;
        auto b = open(false, &r, "/nonexistent/libnvidia-ml.so.1");
        QVERIFY(!b);
        QCOMPARE(name(r.status), name(NvmlOpenStatus::NoDriver));
        QVERIFY2(r.message.startsWith(QLatin1String("no NVIDIA driver found")),
                 qPrintable(r.message));
    }

    void kernelDriverNotLoaded()
    {
        useFixture(QJsonObject{{"init", "driver-not-loaded"}});
        NvmlOpenResult r;
        QVERIFY(!open(false, &r));
        QCOMPARE(name(r.status), name(NvmlOpenStatus::NoDriver));
        QVERIFY2(r.message.contains(QLatin1String("no NVIDIA driver found")),
                 qPrintable(r.message));
    }

    void initWithoutPermissionIsAnInitFailure()
    {
        useFixture(QJsonObject{{"init", "no-permission"}});
        NvmlOpenResult r;
        QVERIFY(!open(false, &r));
        QCOMPARE(name(r.status), name(NvmlOpenStatus::InitFailed));
        QVERIFY2(r.message.contains(QLatin1String("no-permission")), qPrintable(r.message));
    }

    void libraryPathFromEnvironment()
    {
        useFixture(twoCards());
        qputenv("ZHAOXI_NVML_LIBRARY", FAKENVML_PATH);
        NvmlBackendOptions o;
        o.catalogue = m_cat;
        NvmlOpenResult r;
        auto b = NvmlBackend::open(o, &r);
        qunsetenv("ZHAOXI_NVML_LIBRARY");
        QVERIFY2(b, qPrintable(r.message));
        QCOMPARE(b->libraryPath(), QStringLiteral(FAKENVML_PATH));
        QCOMPARE(Nvml::Library::resolvePath({}), QStringLiteral("libnvidia-ml.so.1"));
    }

    void enumeratesCardsAndMigState()
    {
        useFixture(twoCards());
        NvmlOpenResult r;
        auto b = open(false, &r);
        QVERIFY2(b, qPrintable(r.message));
        QCOMPARE(name(r.status), name(NvmlOpenStatus::Ok));
        QCOMPARE(b->driverVersion(), QStringLiteral("550.54.15"));
        QVERIFY(b->missingOptionalSymbols().isEmpty());

        QCOMPARE(b->hosts().size(), 1);
        QCOMPARE(b->hosts().first().cardCount, 2);
        const QList<CardInfo> cards = b->cards();
        QCOMPARE(cards.size(), 2);
        QCOMPARE(cards[0].model, modelIndex("A100-SXM4-40GB"));
        QCOMPARE(cards[1].model, modelIndex("H200-NVL-141GB")); // by PCI id 0x233B

        const NvmlCardReport &a = b->cardReports()[0];
        QCOMPARE(a.name, QStringLiteral("NVIDIA A100-SXM4-40GB"));
        QCOMPARE(a.uuid, QStringLiteral("GPU-a100-07"));
        QCOMPARE(a.busId, QStringLiteral("00000000:07:00.0"));
        QCOMPARE(a.pciDeviceId, 0x20B010DEu);
        QCOMPARE(a.memoryTotalMiB, 40960);
        QCOMPARE(a.migCurrent, std::optional<bool>(true));
        QCOMPARE(a.migPending, std::optional<bool>(true));
        QCOMPARE(a.driverProfiles.size(), model("A100-SXM4-40GB").migProfiles.size());
        QVERIFY2(a.differences.isEmpty(), qPrintable(describe(a.differences.value(0))));
        QCOMPARE(name(a.layout.mode), name(PartitionMode::Mig));
        QCOMPARE(layoutOf(*b, 0), (QStringList{"3g.20gb@0", "1g.5gb@4"}));
        QVERIFY(a.layoutProblems.isEmpty());

        const NvmlCardReport &h = b->cardReports()[1];
        QCOMPARE(h.migCurrent, std::optional<bool>(false));
        QCOMPARE(name(h.layout.mode), name(PartitionMode::Whole));
        QVERIFY(h.driverProfiles.isEmpty());
        QCOMPARE(b->cardByUuid(QStringLiteral("GPU-H200-3B")), CardId(1));
        QVERIFY(!b->cardByUuid(QStringLiteral("GPU-none")).isValid());
    }

    void cardAndInstanceUuids()
    {
        useFixture(twoCards());
        auto b = open(true);
        QVERIFY(b);
        QCOMPARE(b->cards()[0].uuid, QStringLiteral("GPU-a100-07"));
        QCOMPARE(b->cards()[1].uuid, QStringLiteral("GPU-h200-3b"));
        QVERIFY2(b->cardReports()[0].instanceUuidNote.isEmpty(),
                 qPrintable(b->cardReports()[0].instanceUuidNote));
        // The instances there at start, matched through their GPU instance ids.
        for (int start : {0, 4}) {
            QVERIFY(!fakeUuidAt(0, start).isEmpty());
            QCOMPARE(uuidAt(*b, 0, start), fakeUuidAt(0, start));
        }
        QVERIFY(uuidAt(*b, 0, 0) != uuidAt(*b, 0, 4));

        // Created through the driver: its UUID is there right after the order.
        b->apply({step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6)}, 2000);
        b->advance(2000);
        QCOMPARE(name(b->takeStepReports().first().state), name(NvmlStepState::Done));
        const QString first = uuidAt(*b, 0, 6);
        QVERIFY2(first.startsWith(QLatin1String("MIG-")), qPrintable(first));
        QCOMPARE(first, fakeUuidAt(0, 6));

        // Destroyed and created again at the same placement: another instance, another UUID.
        b->apply({step(DeviceStep::Kind::DestroyInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6),
                  step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6)},
                 3000);
        b->advance(3000);
        for (const NvmlStepReport &r : b->takeStepReports())
            QCOMPARE(name(r.state), name(NvmlStepState::Done));
        const QString second = uuidAt(*b, 0, 6);
        QCOMPARE(second, fakeUuidAt(0, 6));
        QVERIFY(!second.isEmpty());
        QVERIFY(second != first);
        // A card without MIG has no instances, and its own UUID.
        QVERIFY(b->layout(CardId(1)).instances.isEmpty());
    }

    void processesAreReadAtEachPoll()
    {
        useFixture(twoCards());
        auto b = open(false);
        QVERIFY(b);
        QVERIFY(b->reading(CardId(1)).processesListed);
        QVERIFY(b->processes(1).isEmpty());
        m_control(R"({"processes": {"gpu": 1, "list": [
                        {"pid": 4242, "memoryMiB": 2048, "smUtil": 55},
                        {"pid": 4343, "smUtil": 0}]}})");
        m_control(R"({"processes": {"gpu": 0, "list": [
                        {"pid": 5000, "memoryMiB": 1000, "start": 4},
                        {"pid": 5001, "memoryMiB": 300, "start": 0}]}})");
        b->poll(1500); // not due yet: the readings are the last poll's
        QVERIFY(b->processes(1).isEmpty());
        b->poll(3000);

        const QList<ProcessUse> whole = b->processes(1);
        QCOMPARE(whole.size(), 2);
        const ProcessUse *busy = processOf(whole, 4242);
        QVERIFY(busy);
        QCOMPARE(busy->memoryMiB, 2048);
        QCOMPARE(busy->smUtilisation, 0.55);
        QVERIFY(busy->instanceUuid.isEmpty());
        const ProcessUse *idle = processOf(whole, 4343);
        QVERIFY(idle);
        QCOMPARE(idle->memoryMiB, -1);      // the driver did not say: not 0, not huge
        QCOMPARE(idle->smUtilisation, 0.0); // no sample: it did not use the SMs

        // With MIG on, read per MIG device, each process named by its instance's UUID.
        QVERIFY(b->reading(CardId(0)).processesListed);
        const QList<ProcessUse> mig = b->processes(0);
        QCOMPARE(mig.size(), 2);
        const ProcessUse *on4 = processOf(mig, 5000);
        const ProcessUse *on0 = processOf(mig, 5001);
        QVERIFY(on4 && on0);
        QCOMPARE(on4->instanceUuid, uuidAt(*b, 0, 4));
        QCOMPARE(on0->instanceUuid, uuidAt(*b, 0, 0));
        QCOMPARE(on0->memoryMiB, 300);
        QVERIFY(std::isnan(on4->smUtilisation)); // not offered for MIG instances

        QVERIFY(b->processes(2).isEmpty());
        QVERIFY(b->processes(-1).isEmpty());

        // Gone from the driver's list: gone at the next poll.
        m_control(R"({"processes": {"gpu": 1, "list": [{"pid": 4343, "memoryMiB": 10}]}})");
        b->poll(5000);
        QCOMPARE(b->processes(1).size(), 1);
        QCOMPARE(b->processes(1).first().pid, 4343u);
        QCOMPARE(b->processes(1).first().memoryMiB, 10);
    }

    void metricsWithMigAreNotAvailableNotZero()
    {
        useFixture(twoCards());
        auto b = open(false);
        QVERIFY(b);
        const NvmlReading mig = b->reading(CardId(0));
        QVERIFY(!mig.utilisation.has_value());
        QVERIFY(std::isnan(b->metrics(CardId(0)).utilisation));
        QCOMPARE(mig.memoryUsedMiB, std::optional<qint64>(1024));
        QCOMPARE(mig.powerW, std::optional<double>(63.5));
        QCOMPARE(mig.temperatureC, std::optional<double>(41));
        QCOMPARE(mig.eccUncorrected, std::optional<quint64>(0));
        QCOMPARE(mig.eccCorrected, std::optional<quint64>(2));

        const CardMetrics whole = b->metrics(CardId(1));
        QCOMPARE(whole.utilisation, 0.37);
        QCOMPARE(whole.powerW, 63.5);
        QCOMPARE(whole.memoryUsedMiB, 1024);
        QCOMPARE(whole.atMs, 1000);
        QVERIFY(!whole.lost);
    }

    void reportsProfileDifferencesFromTheCatalogue()
    {
        QJsonObject root = twoCards();
        QJsonArray gpus = root.value("gpus").toArray();
        QJsonObject a = gpus[0].toObject();
        QJsonArray profiles = a.value("profiles").toArray();
        for (int i = 0; i < profiles.size(); ++i) {
            QJsonObject p = profiles[i].toObject();
            if (p.value("id").toInt() == 9) { // 3g.20gb: other memory, one start only
                p.insert("memoryMB", 19968);
                p.insert("starts", QJsonArray{0});
            }
            if (p.value("id").toInt() == 20) { // 1g.5gb+me: not offered by this driver
                profiles.removeAt(i--);
                continue;
            }
            profiles[i] = p;
        }
        profiles.append(QJsonObject{{"index", 10},
                                    {"id", 21},
                                    {"name", "MIG 1g.5gb+gfx"},
                                    {"slices", 1},
                                    {"instances", 7},
                                    {"memoryMB", 4864},
                                    {"size", 1},
                                    {"starts", QJsonArray{0, 1, 2, 3, 4, 5, 6}}});
        a.insert("profiles", profiles);
        gpus[0] = a;
        root.insert("gpus", gpus);
        useFixture(root);
        auto b = open(false);
        QVERIFY(b);
        QStringList got;
        for (const ProfileDifference &d : b->cardReports()[0].differences)
            got << QStringLiteral("%1 %2").arg(d.profileId).arg(name(d.kind));
        QCOMPARE(got,
                 (QStringList{"9 memory",
                              "9 starts",
                              "20 missing-in-driver",
                              "21 missing-in-catalogue"}));
        QCOMPARE(describe(b->cardReports()[0].differences[0]),
                 QStringLiteral("3g.20gb (id 9): memory: catalogue 20096, driver 19968"));
    }

    void readOnlyByDefaultRefusesAndChangesNothing()
    {
        useFixture(twoCards());
        auto b = open(false);
        QVERIFY(b);
        QCOMPARE(name(b->access()), name(NvmlAccess::ReadOnlyBySetting));
        const QStringList before = logLines();
        b->apply({step(DeviceStep::Kind::DestroyInstance, 0, "A100-SXM4-40GB", "1g.5gb", 4)}, 2000);
        QCOMPARE(b->nextEventMs(), 2000);
        b->advance(2000);
        const QList<NvmlStepReport> reps = b->takeStepReports();
        QCOMPARE(reps.size(), 1);
        QCOMPARE(name(reps[0].state), name(NvmlStepState::Refused));
        QCOMPARE(name(reps[0].status), name(NvmlStatus::ReadOnly));
        QCOMPARE(name(b->takeResults().first().error), name(DeviceError::NotSupported));
        QCOMPARE(logLines(), before); // not a single changing call
        QCOMPARE(layoutOf(*b, 0), (QStringList{"3g.20gb@0", "1g.5gb@4"}));
    }

    void appliesThePlannersPlanInOrder()
    {
        useFixture(twoCards());
        auto b = open(true);
        QVERIFY(b);
        QCOMPARE(name(b->access()), name(NvmlAccess::Writable));
        const CardModel &m = model("A100-SXM4-40GB");
        // What the planner sees: the card as read. Wanted: a 4g.20gb and two 1g.5gb.
        QList<Sched::PlannerInstance> current;
        int uid = 0;
        for (const InstanceInfo &i : b->layout(CardId(0)).instances)
            current << Sched::PlannerInstance{uid++, i.profile, i.start, false};
        const Sched::RepartitionPlan plan = Sched::planRepartition(
                m,
                current,
                {m.profileIndex("4g.20gb"), m.profileIndex("1g.5gb"), m.profileIndex("2g.10gb")});
        QVERIFY(plan.changed);
        PlanFile file;
        file.cards << planCardFrom(
                modelIndex("A100-SXM4-40GB"), QStringLiteral("GPU-a100-07"), 0, current, plan);
        const ResolvedPlan resolved = resolvePlan(file, m_cat, b->cardReports());
        QVERIFY2(resolved.problems.isEmpty(), qPrintable(resolved.problems.join("; ")));

        const int logBefore = logLines().size();
        const quint64 order = b->apply(resolved.steps, 2000);
        b->advance(2000);
        const QList<NvmlStepReport> reps = b->takeStepReports();
        QCOMPARE(reps.size(), resolved.steps.size());
        for (const NvmlStepReport &r : reps) {
            QVERIFY2(r.state == NvmlStepState::Done, qPrintable(r.message));
            QCOMPARE(r.result.order, order);
        }
        // The card now holds exactly the planned target, read back from the driver.
        QStringList want;
        for (const MigPlacement &p : plan.target)
            want << Catalogue::formatPlacement(m, p);
        QCOMPARE(layoutOf(*b, 0), want);
        // Compute instances go before their GPU instance; creations follow the plan's order.
        const QStringList calls = logLines().mid(logBefore);
        QStringList kinds;
        for (const QString &c : calls)
            kinds << c.section(QLatin1Char(' '), 0, 0);
        int lastDestroy = -1;
        for (int i = 0; i < kinds.size(); ++i) {
            if (kinds[i] == QLatin1String("gi-destroy")) {
                QCOMPARE(kinds.value(i - 1), QStringLiteral("ci-destroy"));
                lastDestroy = i;
            }
        }
        QStringList creates;
        for (int i = 0; i < calls.size(); ++i) {
            if (kinds[i] == QLatin1String("gi-create")) {
                QVERIFY(i > lastDestroy);
                creates << calls[i].section(QLatin1Char(' '), 2);
            }
        }
        QStringList plannedCreates;
        for (const Sched::RepartitionStep &s : plan.steps) {
            if (s.kind == Sched::RepartitionStep::Kind::Create)
                plannedCreates << QStringLiteral("%1@%2")
                                          .arg(m.migProfiles[s.profile].profileId)
                                          .arg(s.start);
        }
        QCOMPARE(creates, plannedCreates);
    }

    void inUseStopsThePlanAndReportsTheRealLayout()
    {
        QJsonObject root = twoCards();
        useFixture(root);
        auto b = open(true);
        QVERIFY(b);
        m_control(R"({"busy": {"gpu": 0, "start": 0, "busy": true}})");
        const QList<DeviceStep> steps{
                step(DeviceStep::Kind::DestroyInstance, 0, "A100-SXM4-40GB", "1g.5gb", 4),
                step(DeviceStep::Kind::DestroyInstance, 0, "A100-SXM4-40GB", "3g.20gb", 0),
                step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "7g.40gb", 0),
        };
        b->apply(steps, 2000);
        b->advance(2000);
        const QList<NvmlStepReport> reps = b->takeStepReports();
        QCOMPARE(reps.size(), 3);
        QCOMPARE(name(reps[0].state), name(NvmlStepState::Done));
        QCOMPARE(name(reps[1].state), name(NvmlStepState::Failed));
        QCOMPARE(name(reps[1].status), name(NvmlStatus::InUse));
        QCOMPARE(name(reps[2].state), name(NvmlStepState::Skipped));
        const QList<StepResult> results = b->takeResults();
        QCOMPARE(results.size(), 3);
        QCOMPARE(name(results[0].error), name(DeviceError::None));
        QCOMPARE(name(results[1].error), name(DeviceError::InUse));
        QCOMPARE(name(results[2].error), name(DeviceError::InUse));
        QCOMPARE(results[2].index, 2);
        // The first destroy happened; the busy instance is still there; nothing was created.
        QCOMPARE(layoutOf(*b, 0), QStringList{"3g.20gb@0"});
    }

    void creationFailingHalfWayLeavesWhatIsThere()
    {
        QJsonObject root = twoCards();
        root.insert("failCreateAt", 1);
        useFixture(root);
        auto b = open(true);
        QVERIFY(b);
        const QList<DeviceStep> steps{
                step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 5),
                step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6),
                step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 3),
        };
        b->apply(steps, 2000);
        b->advance(2000);
        const QList<NvmlStepReport> reps = b->takeStepReports();
        QCOMPARE(name(reps[0].state), name(NvmlStepState::Done));
        QCOMPARE(name(reps[1].state), name(NvmlStepState::Failed));
        QCOMPARE(name(reps[1].status), name(NvmlStatus::InsufficientResources));
        QCOMPARE(name(reps[2].state), name(NvmlStepState::Skipped));
        QCOMPARE(layoutOf(*b, 0), (QStringList{"3g.20gb@0", "1g.5gb@4", "1g.5gb@5"}));
    }

    void driverRefusesAPlacementTheSlotsDoNotAllow()
    {
        useFixture(twoCards());
        auto b = open(true);
        QVERIFY(b);
        b->apply({step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "2g.10gb", 4)}, 2000);
        b->advance(2000);
        const NvmlStepReport r = b->takeStepReports().first();
        QCOMPARE(name(r.state), name(NvmlStepState::Failed));
        QCOMPARE(name(r.status), name(NvmlStatus::InsufficientResources)); // 1g.5gb@4 is there
        QCOMPARE(name(r.result.error), name(DeviceError::InsufficientResources));
    }

    void computeInstanceFailureUndoesTheGpuInstance()
    {
        QJsonObject root = twoCards();
        root.insert("failComputeCreate", true);
        useFixture(root);
        auto b = open(true);
        QVERIFY(b);
        b->apply({step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6)}, 2000);
        b->advance(2000);
        const NvmlStepReport r = b->takeStepReports().first();
        QCOMPARE(name(r.state), name(NvmlStepState::Failed));
        QVERIFY2(r.message.contains(QLatin1String("GPU instance removed again")),
                 qPrintable(r.message));
        QCOMPARE(layoutOf(*b, 0), (QStringList{"3g.20gb@0", "1g.5gb@4"}));
    }

    void noPermissionBecomesReadOnly()
    {
        QJsonObject root = twoCards();
        root.insert("permission", false);
        useFixture(root);
        auto b = open(true);
        QVERIFY(b);
        QCOMPARE(name(b->access()),
                 name(NvmlAccess::Writable)); // not known until the driver says so
        b->apply({step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6),
                  step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 5)},
                 2000);
        b->advance(2000);
        QList<NvmlStepReport> reps = b->takeStepReports();
        QCOMPARE(name(reps[0].state), name(NvmlStepState::Failed));
        QCOMPARE(name(reps[0].status), name(NvmlStatus::NoPermission));
        QCOMPARE(name(reps[1].state), name(NvmlStepState::Skipped));
        QCOMPARE(name(b->access()), name(NvmlAccess::NoPrivileges));
        QVERIFY(b->accessMessage().contains(QLatin1String("permission")));
        // From now on the backend refuses before calling the driver.
        const int calls = logLines().size();
        b->apply({step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6)}, 3000);
        b->advance(3000);
        reps = b->takeStepReports();
        QCOMPARE(name(reps[0].state), name(NvmlStepState::Refused));
        QCOMPARE(name(reps[0].status), name(NvmlStatus::NoPermission));
        QCOMPARE(logLines().size(), calls);
        QCOMPARE(layoutOf(*b, 0), (QStringList{"3g.20gb@0", "1g.5gb@4"}));
    }

    void privilegeCheckWithoutRoot()
    {
        if (::geteuid() == 0)
            QSKIP("running as root: the privilege check passes");
        useFixture(twoCards());
        NvmlBackendOptions o;
        o.libraryPath = QStringLiteral(FAKENVML_PATH);
        o.applyEnabled = true;
        o.catalogue = m_cat;
        auto b = NvmlBackend::open(o, nullptr);
        QVERIFY(b);
        // Unless this machine grants the MIG capability to everyone, the backend says so.
        if (b->access() == NvmlAccess::Writable)
            QSKIP("this machine grants the MIG config capability to this user");
        QCOMPARE(name(b->access()), name(NvmlAccess::NoPrivileges));
    }

    void modeChangesAreRefusedAndMigOffIsAState()
    {
        useFixture(twoCards());
        auto b = open(true);
        QVERIFY(b);
        DeviceStep toWhole;
        toWhole.kind = DeviceStep::Kind::SetMode;
        toWhole.card = CardId(0);
        toWhole.mode = PartitionMode::Whole;
        DeviceStep stayMig = toWhole;
        stayMig.mode = PartitionMode::Mig;
        b->apply({stayMig,
                  toWhole,
                  step(DeviceStep::Kind::CreateInstance, 1, "H200-NVL-141GB", "1g.18gb", 0)},
                 2000);
        b->advance(2000);
        const QList<NvmlStepReport> reps = b->takeStepReports();
        QCOMPARE(reps.size(), 3);
        QCOMPARE(name(reps[0].state), name(NvmlStepState::Done));
        QCOMPARE(name(reps[1].state), name(NvmlStepState::Refused));
        QCOMPARE(name(reps[1].status), name(NvmlStatus::NotSupported));
        QVERIFY(reps[1].message.contains(QLatin1String("reset")));
        QCOMPARE(name(reps[2].state), name(NvmlStepState::Refused));
        QCOMPARE(reps[2].message, QStringLiteral("MIG mode is off on this card"));
    }

    void faultsFromXidsEccAndLostCards()
    {
        useFixture(twoCards());
        auto b = open(false);
        QVERIFY(b);
        QVERIFY(b->takeFaults().isEmpty());
        m_control(R"({"xid": {"gpu": 1, "xid": 48}})");
        m_control(R"({"xid": {"gpu": 1, "xid": 13}})"); // recorded, not a fault
        m_control(R"({"eccUncorrected": {"gpu": 0, "count": 3}})");
        b->poll(1500); // too early: the poll interval has not passed
        QVERIFY(b->takeFaults().isEmpty());
        b->poll(3000);
        QList<DeviceFault> f = b->takeFaults();
        QCOMPARE(f.size(), 2);
        QCOMPARE(name(f[0].kind), name(FaultKind::MemoryError));
        QCOMPARE(f[0].card, CardId(1));
        QCOMPARE(name(f[1].kind), name(FaultKind::MemoryError));
        QCOMPARE(f[1].card, CardId(0));
        QCOMPARE(b->reading(CardId(1)).recentXids, (QList<quint64>{48, 13}));

        m_control(R"({"lost": {"gpu": 1, "lost": true}})");
        b->poll(5000);
        f = b->takeFaults();
        QCOMPARE(f.size(), 1);
        QCOMPARE(name(f[0].kind), name(FaultKind::CardLost));
        QVERIFY(b->metrics(CardId(1)).lost);
        QVERIFY(b->layout(CardId(1)).lost);
        m_control(R"({"lost": {"gpu": 1, "lost": false}})");
        b->poll(7000);
        f = b->takeFaults();
        QCOMPARE(f.size(), 1);
        QCOMPARE(name(f[0].kind), name(FaultKind::Recovered));
        QCOMPARE(b->nextEventMs(), 9000);
    }

    void pollReadsMetricsOnlyWhenDue()
    {
        useFixture(twoCards());
        auto b = open(false);
        QVERIFY(b);
        m_control(R"({"utilisation": {"gpu": 1, "value": 90}})");
        b->poll(1100);
        QCOMPARE(b->metrics(CardId(1)).utilisation, 0.37);
        b->advance(3000);
        QCOMPARE(b->metrics(CardId(1)).utilisation, 0.9);
    }

    void minimalLibraryWithoutOptionalSymbols()
    {
        QJsonObject root = twoCards();
        QJsonArray gpus = root.value("gpus").toArray();
        QJsonObject migGpu = gpus[0].toObject();
        migGpu.insert("processes",
                      QJsonArray{QJsonObject{{"pid", 77}, {"memoryMiB", 100}, {"start", 4}}});
        gpus[0] = migGpu;
        QJsonObject wholeGpu = gpus[1].toObject();
        wholeGpu.insert("processes", QJsonArray{QJsonObject{{"pid", 78}, {"smUtil", 40}}});
        gpus[1] = wholeGpu;
        root.insert("gpus", gpus);
        useFixture(root);
        NvmlOpenResult r;
        auto b = open(true, &r, FAKENVML_MINIMAL_PATH);
        QVERIFY2(b, qPrintable(r.message));
        const QStringList missing = b->missingOptionalSymbols();
        QVERIFY(missing.contains(QStringLiteral("nvmlEventSetWait_v2")));
        QVERIFY(missing.contains(QStringLiteral("nvmlDeviceGetPowerUsage")));
        QVERIFY(missing.contains(QStringLiteral("nvmlDeviceGetGpuInstanceProfileInfoV")));
        QVERIFY(missing.contains(QStringLiteral("nvmlDeviceCreateGpuInstanceWithPlacement")));
        // Reads what it can: MIG state and profiles through the old info call (no names).
        const NvmlCardReport &a = b->cardReports()[0];
        QCOMPARE(a.driverProfiles.size(), 7);
        QVERIFY(a.driverProfiles.first().name.isEmpty());
        QVERIFY(a.differences.isEmpty());
        QCOMPARE(layoutOf(*b, 0), (QStringList{"3g.20gb@0", "1g.5gb@4"}));
        const NvmlReading reading = b->reading(CardId(1));
        QVERIFY(!reading.powerW && !reading.temperatureC && !reading.utilisation);
        QCOMPARE(reading.memoryUsedMiB, std::optional<qint64>(1024));
        // No MIG device functions: the placements are known, their UUIDs are not, and it says so.
        QVERIFY(missing.contains(QStringLiteral("nvmlDeviceGetMigDeviceHandleByIndex")));
        QCOMPARE(b->cards()[0].uuid, QStringLiteral("GPU-a100-07"));
        for (const InstanceInfo &i : b->layout(CardId(0)).instances)
            QVERIFY(i.uuid.isEmpty());
        QVERIFY2(a.instanceUuidNote.contains(QLatin1String("nvmlDeviceGetMigDeviceHandleByIndex")),
                 qPrintable(a.instanceUuidNote));
        QVERIFY(a.layoutProblems.isEmpty()); // not a layout problem: plans still resolve
        QVERIFY(b->cardReports()[1].instanceUuidNote.isEmpty()); // MIG off: nothing to name
        // Processes through the card's handle: the MIG one without an instance UUID to name,
        // the whole card's without per-process utilisation.
        QVERIFY(b->reading(CardId(0)).processesListed);
        QCOMPARE(b->processes(0).size(), 1);
        QCOMPARE(b->processes(0).first().pid, 77u);
        QCOMPARE(b->processes(0).first().memoryMiB, 100);
        QVERIFY(b->processes(0).first().instanceUuid.isEmpty());
        QCOMPARE(b->processes(1).size(), 1);
        QVERIFY(std::isnan(b->processes(1).first().smUtilisation));
        // Cannot change MIG without the functions: read-only, and says why.
        QCOMPARE(name(b->access()), name(NvmlAccess::NotSupported));
        b->apply({step(DeviceStep::Kind::CreateInstance, 0, "A100-SXM4-40GB", "1g.5gb", 6)}, 2000);
        b->advance(2000);
        QCOMPARE(name(b->takeStepReports().first().status), name(NvmlStatus::NotSupported));
    }

    void planFileRoundTripAndResolution()
    {
        useFixture(twoCards());
        auto b = open(false);
        QVERIFY(b);
        const QByteArray json = R"({
            "zhaoxiPlan": 1,
            "note": "make room for a 4g",
            "cards": [{"uuid": "GPU-a100-07", "index": 0, "model": "A100-40GB",
                       "expect": ["1g.5gb@4", "3g.20gb@0"],
                       "steps": [{"op": "destroy", "instance": "3g.20gb@0"},
                                 {"op": "create", "instance": "4g.20gb@0"}]}]})";
        QString error;
        const auto plan = readPlanFile(json, m_cat, &error);
        QVERIFY2(plan, qPrintable(error));
        QCOMPARE(plan->cards.size(), 1);
        QCOMPARE(readPlanFile(writePlanFile(*plan, m_cat), m_cat, &error), plan);

        ResolvedPlan r = resolvePlan(*plan, m_cat, b->cardReports());
        QVERIFY2(r.problems.isEmpty(), qPrintable(r.problems.join("; ")));
        QCOMPARE(r.steps.size(), 2);
        QCOMPARE(name(r.steps[0].kind), name(DeviceStep::Kind::DestroyInstance));
        QCOMPARE(r.steps[1].profile, model("A100-SXM4-40GB").profileIndex("4g.20gb"));

        PlanFile stale = *plan;
        stale.cards[0].expect = QList<MigPlacement>{};
        r = resolvePlan(stale, m_cat, b->cardReports());
        QCOMPARE(r.problems.size(), 1);
        QVERIFY(r.steps.isEmpty());
        QVERIFY2(r.problems[0].contains(QLatin1String("the plan was made for []")),
                 qPrintable(r.problems[0]));

        PlanFile other = *plan;
        other.cards[0].uuid = QStringLiteral("GPU-elsewhere");
        QVERIFY(resolvePlan(other, m_cat, b->cardReports())
                        .problems[0]
                        .contains(QLatin1String("no such card")));
        PlanFile wrongModel = *plan;
        wrongModel.cards[0].uuid.clear();
        wrongModel.cards[0].index = 1;
        QVERIFY(resolvePlan(wrongModel, m_cat, b->cardReports())
                        .problems[0]
                        .contains(QLatin1String("H200-NVL")));
    }

    void planFileErrors_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("error");
        QTest::newRow("version") << QByteArray(R"({"zhaoxiPlan": 2, "cards": []})")
                                 << "zhaoxiPlan: must be 1";
        QTest::newRow("no card") << QByteArray(R"({"zhaoxiPlan": 1, "cards": []})")
                                 << "cards: at least one card is required";
        QTest::newRow("unknown key") << QByteArray(
                R"({"zhaoxiPlan": 1, "cards": [{"index": 0, "model": "A100-40GB", "step": []}]})")
                                     << "cards[0]: unknown key \"step\"";
        QTest::newRow("no card id") << QByteArray(
                R"({"zhaoxiPlan": 1, "cards": [{"model": "A100-40GB", "steps": []}]})")
                                    << "cards[0]: needs \"uuid\" or \"index\"";
        QTest::newRow("bad start")
                << QByteArray(R"({"zhaoxiPlan": 1, "cards": [{"index": 0, "model": "A100-40GB",
                   "steps": [{"op": "create", "instance": "3g.20gb@2"}]}]})")
                << "cards[0].steps[0].instance: 3g.20gb cannot start at \"2\"";
        QTest::newRow("bad op") << QByteArray(
                R"({"zhaoxiPlan": 1, "cards": [{"index": 0, "model": "A100-40GB",
                   "steps": [{"op": "reset", "instance": "3g.20gb@0"}]}]})")
                                << "cards[0].steps[0].op: must be \"destroy\" or \"create\"";
    }

    void planFileErrors()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, error);
        QString got;
        QVERIFY(!readPlanFile(json, m_cat, &got));
        QCOMPARE(got, error);
    }
};

QTEST_GUILESS_MAIN(TestNvmlBackend)
#include "tst_nvmlbackend.moc"
