// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/catalogue/layoutrules.h"
#include "core/sched/repartitionplanner.h"

#include <QRandomGenerator>
#include <QSet>
#include <QTest>

#include <algorithm>
#include <climits>
#include <optional>

using namespace Zhaoxi;
using namespace Zhaoxi::Sched;
using Domain::MigProfile;

namespace {

MigProfile profile(const char *name,
                   int id,
                   int compute,
                   int memory,
                   int max,
                   QList<int> starts,
                   int span,
                   bool me = false)
{
    MigProfile p;
    p.name = QString::fromLatin1(name);
    p.profileId = id;
    p.computeSlices = compute;
    p.memorySlices = memory;
    p.memoryMiB = qint64(memory) * 10 * 1024;
    p.maxInstances = max;
    p.starts = std::move(starts);
    p.span = span;
    p.mediaExtensions = me;
    return p;
}

// Built by hand so that these tests do not depend on the catalogue files; the facts are those of
// the NVIDIA MIG user guide for the H100 SXM5 80GB.
CardModel h100()
{
    CardModel m;
    m.name = QStringLiteral("H100-SXM5-80GB");
    m.memoryMiB = 81559;
    m.migComputeSlices = 7;
    m.migMemorySlices = 8;
    m.migProfiles = {
            profile("1g.10gb", 19, 1, 1, 7, {0, 1, 2, 3, 4, 5, 6}, 1),
            profile("1g.10gb+me", 20, 1, 1, 1, {0, 1, 2, 3, 4, 5, 6}, 1, true),
            profile("1g.20gb", 15, 1, 2, 4, {0, 2, 4, 6}, 2),
            profile("2g.20gb", 14, 2, 2, 3, {0, 2, 4}, 2),
            profile("3g.40gb", 9, 3, 4, 2, {0, 4}, 4),
            profile("4g.40gb", 5, 4, 4, 1, {0}, 4),
            profile("7g.80gb", 0, 7, 8, 1, {0}, 8),
    };
    return m;
}

// A synthetic 4-slot card whose rules real cards do not exercise: overlapping allowed starts,
// a "+me" profile with a span of 3, and fewer compute slices than memory slots, with a profile
// that needs more compute than memory, so that compute rather than room decides what must go.
CardModel toy()
{
    CardModel m;
    m.name = QStringLiteral("Toy-4");
    m.migComputeSlices = 3;
    m.migMemorySlices = 4;
    m.migProfiles = {
            profile("a", 1, 1, 1, 4, {0, 1, 2, 3}, 1),
            profile("b", 2, 1, 2, 2, {0, 1, 2}, 2),
            profile("c", 3, 3, 4, 1, {0}, 4),
            profile("d", 4, 2, 3, 1, {1}, 3, true),
            profile("e", 5, 1, 1, 1, {0, 1, 2, 3}, 1, true),
            profile("f", 6, 2, 1, 2, {0, 2}, 1),
    };
    return m;
}

int profileOf(const CardModel &model, const QString &name)
{
    if (name.startsWith(QLatin1Char('#')))
        return name.mid(1).toInt();
    const int p = model.profileIndex(name);
    if (p < 0)
        qFatal("unknown profile in a test row: %s", qPrintable(name));
    return p;
}

QStringList tokens(const QString &text)
{
    return text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

// "3g.40gb@0* 1g.10gb@4": instances, uids 101, 102, ...; a trailing '*' marks a busy one.
QList<PlannerInstance> instances(const CardModel &model, const QString &text)
{
    QList<PlannerInstance> out;
    for (QString t : tokens(text)) {
        PlannerInstance i;
        i.uid = 101 + int(out.size());
        i.busy = t.endsWith(QLatin1Char('*'));
        if (i.busy)
            t.chop(1);
        const qsizetype at = t.indexOf(QLatin1Char('@'));
        i.profile = profileOf(model, t.left(at));
        i.start = t.mid(at + 1).toInt();
        out.append(i);
    }
    return out;
}

QList<int> profiles(const CardModel &model, const QString &text)
{
    QList<int> out;
    for (const QString &t : tokens(text))
        out.append(profileOf(model, t));
    return out;
}

QString times(int n, const QString &name)
{
    QStringList parts;
    for (int i = 0; i < n; ++i)
        parts << name;
    return parts.join(QLatin1Char(' '));
}

QString text(const CardModel &model, const QList<MigPlacement> &layout)
{
    QStringList parts;
    for (const MigPlacement &p : layout)
        parts << Catalogue::formatPlacement(model, p);
    return parts.join(QLatin1Char(' '));
}

// "-1g.10gb@4 +3g.40gb@4"
QString text(const CardModel &model, const QList<RepartitionStep> &steps)
{
    QStringList parts;
    for (const RepartitionStep &s : steps) {
        const QChar sign
                = s.kind == RepartitionStep::Kind::Destroy ? QLatin1Char('-') : QLatin1Char('+');
        parts << sign + Catalogue::formatPlacement(model, MigPlacement{s.profile, s.start});
    }
    return parts.join(QLatin1Char(' '));
}

PlannerOptions parseOptions(const QString &text)
{
    PlannerOptions o;
    o.mayDestroyBusy = text.contains(QLatin1String("mayDestroyBusy"));
    o.keepIdle = text.contains(QLatin1String("keepIdle"));
    return o;
}

// The wanted entries a set of free instances satisfies, each taking its own instance of exactly
// its profile, earlier entries first.
QList<bool> satisfaction(const CardModel &model, const QList<int> &wanted, QList<MigPlacement> free)
{
    QList<bool> out;
    for (int p : wanted) {
        const auto it = std::find_if(
                free.begin(), free.end(), [&](MigPlacement f) { return f.profile == p; });
        const bool ok = p >= 0 && p < model.migProfiles.size() && it != free.end();
        if (ok)
            free.erase(it);
        out.append(ok);
    }
    return out;
}

// The free instances of a plan's target: everything but the busy instances it keeps.
QList<MigPlacement> freeInTarget(const QList<PlannerInstance> &current, const RepartitionPlan &plan)
{
    QList<MigPlacement> free = plan.target;
    for (const PlannerInstance &i : current) {
        const bool destroyed
                = std::any_of(plan.steps.cbegin(), plan.steps.cend(), [&](const auto &s) {
                      return s.kind == RepartitionStep::Kind::Destroy && s.uid == i.uid;
                  });
        if (i.busy && !destroyed)
            free.removeOne(MigPlacement{i.profile, i.start});
    }
    return free;
}

// Invariants every plan keeps, whatever the scenario.
void checkInvariants(const CardModel &model,
                     const QList<PlannerInstance> &current,
                     const RepartitionPlan &plan,
                     const PlannerOptions &o)
{
    const Catalogue::LayoutVerdict v = Catalogue::validateLayout(model, plan.target);
    QVERIFY2(v.isValid(), qPrintable(v.describe(model, plan.target)));
    QVERIFY(std::is_sorted(plan.target.cbegin(), plan.target.cend(), [](auto a, auto b) {
        return a.start < b.start;
    }));
    QCOMPARE(applySteps(current, plan.steps), plan.target);
    QCOMPARE(plan.changed, !plan.steps.isEmpty());
    QVERIFY(!plan.note.isEmpty());

    // The hardware accepts the steps one by one: destroys of existing instances first, then
    // creates (larger first), each valid on the layout so far.
    QList<PlannerInstance> live = current;
    bool creating = false;
    int lastMemory = INT_MAX, lastCompute = INT_MAX, lastStart = -1;
    int busyDestroyed = 0, idleDestroyed = 0;
    for (const RepartitionStep &s : plan.steps) {
        if (s.kind == RepartitionStep::Kind::Destroy) {
            QVERIFY2(!creating, "a destroy after a create");
            const auto it = std::find_if(
                    live.begin(), live.end(), [&](const auto &i) { return i.uid == s.uid; });
            QVERIFY2(it != live.end(), "a destroy of an unknown instance");
            QCOMPARE(s.profile, it->profile);
            QCOMPARE(s.start, it->start);
            if (it->busy) {
                QVERIFY2(o.mayDestroyBusy, "a busy instance destroyed without leave");
                QVERIFY(plan.destroyedBusy.contains(s.uid));
                ++busyDestroyed;
            } else {
                QVERIFY2(!o.keepIdle, "an idle instance destroyed under keepIdle");
                ++idleDestroyed;
            }
            live.erase(it);
            continue;
        }
        creating = true;
        QCOMPARE(s.uid, -1);
        const MigProfile &p = model.migProfiles[s.profile];
        const bool ordered = p.memorySlices < lastMemory
                             || (p.memorySlices == lastMemory
                                 && (p.computeSlices < lastCompute
                                     || (p.computeSlices == lastCompute && s.start > lastStart)));
        QVERIFY2(ordered, qPrintable(text(model, plan.steps)));
        lastMemory = p.memorySlices;
        lastCompute = p.computeSlices;
        lastStart = s.start;
        QList<MigPlacement> layout;
        for (const PlannerInstance &i : live)
            layout.append(MigPlacement{i.profile, i.start});
        QVERIFY2(Catalogue::canAdd(model, layout, MigPlacement{s.profile, s.start}).isValid(),
                 qPrintable(text(model, plan.steps)));
        live.append(PlannerInstance{-1, s.profile, s.start, false});
    }
    QCOMPARE(int(plan.destroyedBusy.size()), busyDestroyed);
    QCOMPARE(plan.destroyedIdle, idleDestroyed);
}

// Every valid layout of a model: the subsets of its maximal layouts, each sorted by start.
QList<QList<MigPlacement>> allValidLayouts(const CardModel &model)
{
    QList<QList<MigPlacement>> out{{}};
    QSet<QString> seen{QString()};
    for (const QList<MigPlacement> &maximal : Catalogue::enumerateMaximalLayouts(model)) {
        for (quint32 subset = 1; subset < (1u << maximal.size()); ++subset) {
            QList<MigPlacement> layout;
            for (int i = 0; i < maximal.size(); ++i) {
                if (subset & (1u << i))
                    layout.append(maximal[i]);
            }
            const QString key = text(model, layout);
            if (!seen.contains(key)) {
                seen.insert(key);
                out.append(layout);
            }
        }
    }
    return out;
}

bool placementLess(MigPlacement a, MigPlacement b)
{
    return std::tie(a.start, a.profile) < std::tie(b.start, b.profile);
}

// Whether satisfaction `a` beats `b`: the first wanted entry where they differ decides.
bool servesBetter(const QList<bool> &a, const QList<bool> &b)
{
    for (int i = 0; i < a.size(); ++i) {
        if (a[i] != b[i])
            return a[i];
    }
    return false;
}

// What the header promises, weighed in its order: satisfaction (lexicographic), then fewest busy
// destroyed, fewest idle destroyed, fewest creations; ties go to creations, then destroys, at
// the lowest starts. Smaller is better.
struct Cost
{
    QList<bool> satisfied;
    int busyDestroyed = 0;
    int idleDestroyed = 0;
    QList<MigPlacement> created; // sorted by start
    QList<int> destroyedStarts;  // ascending

    bool operator<(const Cost &o) const
    {
        if (satisfied != o.satisfied)
            return servesBetter(satisfied, o.satisfied);
        if (std::tie(busyDestroyed, idleDestroyed) != std::tie(o.busyDestroyed, o.idleDestroyed))
            return std::tie(busyDestroyed, idleDestroyed)
                   < std::tie(o.busyDestroyed, o.idleDestroyed);
        if (created.size() != o.created.size())
            return created.size() < o.created.size();
        if (created != o.created) {
            return std::lexicographical_compare(created.cbegin(),
                                                created.cend(),
                                                o.created.cbegin(),
                                                o.created.cend(),
                                                placementLess);
        }
        return destroyedStarts < o.destroyedStarts;
    }
    bool operator==(const Cost &) const = default;

    void sort()
    {
        std::sort(created.begin(), created.end(), placementLess);
        std::sort(destroyedStarts.begin(), destroyedStarts.end());
    }
};

QByteArray describe(const CardModel &model, const Cost &c)
{
    QByteArray s;
    for (bool b : c.satisfied)
        s += b ? '1' : '0';
    QStringList destroyed;
    for (int st : c.destroyedStarts)
        destroyed << QString::number(st);
    return s + " busy-" + QByteArray::number(c.busyDestroyed) + " idle-"
           + QByteArray::number(c.idleDestroyed) + " create [" + text(model, c.created).toUtf8()
           + "] destroy at [" + destroyed.join(QLatin1Char(' ')).toUtf8() + "]";
}

// The best cost over every valid target, found without the planner: a current instance whose
// placement the target holds is kept, or (when it may go) destroyed and created afresh, which
// frees a busy one.
Cost bruteForceBest(const CardModel &model,
                    const QList<QList<MigPlacement>> &layouts,
                    const QList<PlannerInstance> &current,
                    const QList<int> &wanted,
                    const PlannerOptions &o)
{
    const auto mayGo
            = [&](const PlannerInstance &i) { return i.busy ? o.mayDestroyBusy : !o.keepIdle; };
    std::optional<Cost> best;
    for (const QList<MigPlacement> &target : layouts) {
        Cost base;
        QList<int> busyHeld; // current busy instances the target holds, which may go
        bool allowed = true;
        for (int i = 0; i < current.size(); ++i) {
            const PlannerInstance &c = current[i];
            if (target.contains(MigPlacement{c.profile, c.start})) {
                if (c.busy && mayGo(c))
                    busyHeld.append(i);
                continue;
            }
            if (!mayGo(c)) {
                allowed = false;
                break;
            }
            ++(c.busy ? base.busyDestroyed : base.idleDestroyed);
            base.destroyedStarts.append(c.start);
        }
        if (!allowed)
            continue;
        for (const MigPlacement &t : target) {
            const bool existing = std::any_of(current.cbegin(), current.cend(), [&](const auto &c) {
                return c.profile == t.profile && c.start == t.start;
            });
            if (!existing)
                base.created.append(t);
        }
        for (quint32 renew = 0; renew < (1u << busyHeld.size()); ++renew) {
            Cost cost = base;
            QList<MigPlacement> free = target;
            for (int i = 0; i < current.size(); ++i) {
                const PlannerInstance &c = current[i];
                if (!c.busy || !target.contains(MigPlacement{c.profile, c.start}))
                    continue;
                const qsizetype k = busyHeld.indexOf(i);
                if (k >= 0 && (renew & (1u << k))) {
                    ++cost.busyDestroyed;
                    cost.created.append(MigPlacement{c.profile, c.start});
                    cost.destroyedStarts.append(c.start);
                } else {
                    free.removeOne(MigPlacement{c.profile, c.start});
                }
            }
            cost.satisfied = satisfaction(model, wanted, free);
            cost.sort();
            if (!best || cost < *best)
                best = cost;
        }
    }
    return *best;
}

QList<PlannerInstance> randomLayout(const CardModel &model, QRandomGenerator &rng)
{
    QList<PlannerInstance> out;
    QList<MigPlacement> layout;
    const int attempts = rng.bounded(0, 14);
    for (int a = 0; a < attempts; ++a) {
        const int p = rng.bounded(int(model.migProfiles.size()));
        const QList<int> &starts = model.migProfiles[p].starts;
        const MigPlacement c{p, starts[rng.bounded(int(starts.size()))]};
        if (!Catalogue::canAdd(model, layout, c).isValid())
            continue;
        layout.append(c);
        out.append(PlannerInstance{int(500 + rng.bounded(1000)) * 8 + int(out.size()),
                                   p,
                                   c.start,
                                   rng.bounded(2) == 1});
    }
    return out;
}

void addScenarioColumns()
{
    QTest::addColumn<QString>("current"); // "3g.40gb@0* 1g.10gb@4": '*' = busy
    QTest::addColumn<QString>("wanted");
    QTest::addColumn<QString>("options");
    QTest::addColumn<int>("satisfied");
    QTest::addColumn<QString>("steps"); // "-destroyed +created", in the plan's order
    QTest::addColumn<QString>("target");
    QTest::addColumn<int>("busyDestroyed");
}

void runScenario(const CardModel &model)
{
    QFETCH(QString, current);
    QFETCH(QString, wanted);
    QFETCH(QString, options);
    QFETCH(int, satisfied);
    QFETCH(QString, steps);
    QFETCH(QString, target);
    QFETCH(int, busyDestroyed);

    const QList<PlannerInstance> instancesNow = instances(model, current);
    const PlannerOptions o = parseOptions(options);
    const RepartitionPlan plan = planRepartition(model, instancesNow, profiles(model, wanted), o);

    QCOMPARE(text(model, plan.steps), steps);
    QCOMPARE(text(model, plan.target), target);
    QCOMPARE(plan.satisfied, satisfied);
    QCOMPARE(int(plan.destroyedBusy.size()), busyDestroyed);
    QCOMPARE(plan.changed, !steps.isEmpty());
    checkInvariants(model, instancesNow, plan, o);
}

} // namespace

class TestRepartitionPlanner : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void scenarios_data();
    void scenarios() { runScenario(h100()); }
    void toyScenarios_data();
    void toyScenarios() { runScenario(toy()); }
    void invalidCurrentLayoutPlansNothing();
    void modelWithoutMigSatisfiesNothing();
    void unknownWantedProfilesAreNeverSatisfied();
    void applyStepsReplaysAPlan();
    void randomLayoutsMatchBruteForce_data();
    void randomLayoutsMatchBruteForce();
};

void TestRepartitionPlanner::scenarios_data()
{
    addScenarioColumns();

    // One scenario per row reads better than one value per line.
    // clang-format off
    QTest::newRow("empty card, want 3g: create it at the lowest start")
            << "" << "3g.40gb" << "" << 1 << "+3g.40gb@0" << "3g.40gb@0" << 0;
    QTest::newRow("busy 3g on the left, idle 1g on the right: make room on the right")
            << "3g.40gb@0* 1g.10gb@4 1g.10gb@5 1g.10gb@6" << "3g.40gb" << "" << 1
            << "-1g.10gb@4 -1g.10gb@5 -1g.10gb@6 +3g.40gb@4" << "3g.40gb@0 3g.40gb@4" << 0;
    QTest::newRow("a busy 1g blocks 7g in drain mode")
            << "1g.10gb@0*" << "7g.80gb" << "" << 0 << "" << "1g.10gb@0" << 0;
    QTest::newRow("a busy 1g gives way to 7g when busy instances may go")
            << "1g.10gb@0*" << "7g.80gb" << "mayDestroyBusy" << 1 << "-1g.10gb@0 +7g.80gb@0"
            << "7g.80gb@0" << 1;
    QTest::newRow("4g and 3g fill an empty card, larger first")
            << "" << "4g.40gb 3g.40gb" << "" << 2 << "+4g.40gb@0 +3g.40gb@4"
            << "4g.40gb@0 3g.40gb@4" << 0;
    QTest::newRow("eight 1g wanted, seven fit")
            << "" << times(8, QStringLiteral("1g.10gb")) << "" << 7
            << "+1g.10gb@0 +1g.10gb@1 +1g.10gb@2 +1g.10gb@3 +1g.10gb@4 +1g.10gb@5 +1g.10gb@6"
            << "1g.10gb@0 1g.10gb@1 1g.10gb@2 1g.10gb@3 1g.10gb@4 1g.10gb@5 1g.10gb@6" << 0;
    QTest::newRow("keepIdle: the idle 1g stay, so 3g cannot fit")
            << "3g.40gb@0* 1g.10gb@4 1g.10gb@5 1g.10gb@6" << "3g.40gb" << "keepIdle" << 0 << ""
            << "3g.40gb@0 1g.10gb@4 1g.10gb@5 1g.10gb@6" << 0;
    QTest::newRow("keepIdle still adds beside the idle ones")
            << "1g.10gb@0" << "3g.40gb" << "keepIdle" << 1 << "+3g.40gb@4"
            << "1g.10gb@0 3g.40gb@4" << 0;
    QTest::newRow("an idle 3g already serves: no change")
            << "3g.40gb@4" << "3g.40gb" << "" << 1 << "" << "3g.40gb@4" << 0;
    QTest::newRow("idle 1g count towards the wanted ones; only the missing one is created")
            << "1g.10gb@0 1g.10gb@1" << times(3, QStringLiteral("1g.10gb")) << "" << 3
            << "+1g.10gb@2" << "1g.10gb@0 1g.10gb@1 1g.10gb@2" << 0;
    QTest::newRow("a busy instance is not free, even of the wanted profile")
            << "1g.10gb@0*" << "1g.10gb" << "" << 1 << "+1g.10gb@1" << "1g.10gb@0 1g.10gb@1" << 0;
    QTest::newRow("fewest idle destroyed: 3g on the right needs three 1g gone, not four")
            << "1g.10gb@0 1g.10gb@1 1g.10gb@2 1g.10gb@3 1g.10gb@4 1g.10gb@5 1g.10gb@6" << "3g.40gb"
            << "" << 1 << "-1g.10gb@4 -1g.10gb@5 -1g.10gb@6 +3g.40gb@4"
            << "1g.10gb@0 1g.10gb@1 1g.10gb@2 1g.10gb@3 3g.40gb@4" << 0;
    QTest::newRow("destroys first, then creates larger first, ties at the lowest start")
            << "1g.10gb@0 1g.10gb@1 1g.10gb@2 1g.10gb@3 1g.10gb@4 1g.10gb@5 1g.10gb@6"
            << "2g.20gb 3g.40gb" << "" << 2
            << "-1g.10gb@0 -1g.10gb@1 -1g.10gb@4 -1g.10gb@5 -1g.10gb@6 +3g.40gb@4 +2g.20gb@0"
            << "2g.20gb@0 1g.10gb@2 1g.10gb@3 3g.40gb@4" << 0;
    QTest::newRow("an earlier wanted profile outweighs any number of later ones")
            << "" << "7g.80gb 1g.10gb 1g.10gb" << "" << 1 << "+7g.80gb@0" << "7g.80gb@0" << 0;
    QTest::newRow("one +me instance per card")
            << "" << "1g.10gb+me 1g.10gb+me" << "" << 1 << "+1g.10gb+me@0" << "1g.10gb+me@0" << 0;
    QTest::newRow("an idle instance gives way before a busy one")
            << "1g.10gb@0* 1g.10gb@1 1g.10gb@2 1g.10gb@3 1g.10gb@4 1g.10gb@5 1g.10gb@6"
            << "1g.10gb+me" << "mayDestroyBusy" << 1 << "-1g.10gb@1 +1g.10gb+me@1"
            << "1g.10gb@0 1g.10gb+me@1 1g.10gb@2 1g.10gb@3 1g.10gb@4 1g.10gb@5 1g.10gb@6" << 0;
    QTest::newRow("a busy instance goes when only that serves an earlier want")
            << "3g.40gb@0* 3g.40gb@4" << "4g.40gb" << "mayDestroyBusy" << 1
            << "-3g.40gb@0 +4g.40gb@0" << "4g.40gb@0 3g.40gb@4" << 1;
    QTest::newRow("two ways at one destroy each: the lower start wins")
            << "1g.10gb@1 2g.20gb@4" << "3g.40gb" << "" << 1 << "-1g.10gb@1 +3g.40gb@0"
            << "3g.40gb@0 2g.20gb@4" << 0;
    QTest::newRow("every idle instance in the way goes")
            << "2g.20gb@0 1g.10gb@6" << "3g.40gb 3g.40gb" << "" << 2
            << "-2g.20gb@0 -1g.10gb@6 +3g.40gb@0 +3g.40gb@4" << "3g.40gb@0 3g.40gb@4" << 0;
    QTest::newRow("nothing wanted: no change, even with idle instances around")
            << "1g.10gb@0 2g.20gb@2" << "" << "" << 0 << "" << "1g.10gb@0 2g.20gb@2" << 0;
    // clang-format on
}

void TestRepartitionPlanner::toyScenarios_data()
{
    addScenarioColumns();

    // clang-format off
    QTest::newRow("a later instance goes when that frees a lower start")
            << "f@0 a@1" << "b" << "" << 1 << "-a@1 +b@1" << "f@0 b@1" << 0;
    QTest::newRow("compute, not room, decides what else goes")
            << "a@0 a@1 a@2" << "f" << "" << 1 << "-a@0 -a@1 +f@0" << "f@0 a@2" << 0;
    QTest::newRow("equal disruption: the destroy at the lower start")
            << "f@2* a@3*" << "a" << "mayDestroyBusy" << 1 << "-f@2 +a@0" << "a@0 a@3" << 1;
    // clang-format on
}

void TestRepartitionPlanner::invalidCurrentLayoutPlansNothing()
{
    const CardModel model = h100();
    const QList<PlannerInstance> current = instances(model, QStringLiteral("3g.40gb@0 2g.20gb@2"));
    const RepartitionPlan plan = planRepartition(
            model, current, {profileOf(model, "7g.80gb")}, PlannerOptions{true, false});
    QVERIFY(!plan.changed);
    QVERIFY(plan.steps.isEmpty());
    QCOMPARE(text(model, plan.target), QStringLiteral("3g.40gb@0 2g.20gb@2"));
    QCOMPARE(plan.satisfied, 0);
    QVERIFY2(plan.note.contains(QLatin1String("not valid")), qPrintable(plan.note));
}

void TestRepartitionPlanner::modelWithoutMigSatisfiesNothing()
{
    CardModel model;
    model.name = QStringLiteral("RTX-4090");
    const RepartitionPlan plan = planRepartition(model, {}, {0, 1});
    QVERIFY(!plan.changed);
    QCOMPARE(plan.satisfied, 0);
    QVERIFY(plan.target.isEmpty());
    QVERIFY(plan.steps.isEmpty());
}

void TestRepartitionPlanner::unknownWantedProfilesAreNeverSatisfied()
{
    const CardModel model = h100();
    const RepartitionPlan plan = planRepartition(model, {}, profiles(model, "#-1 #99 3g.40gb"));
    QCOMPARE(plan.satisfied, 1);
    QCOMPARE(text(model, plan.steps), QStringLiteral("+3g.40gb@0"));
}

void TestRepartitionPlanner::applyStepsReplaysAPlan()
{
    const CardModel model = h100();
    const QList<PlannerInstance> current = instances(model, QStringLiteral("1g.10gb@6* 2g.20gb@0"));
    const QList<RepartitionStep> steps{
            {RepartitionStep::Kind::Destroy, 102, profileOf(model, "2g.20gb"), 0},
            {RepartitionStep::Kind::Destroy, 999, profileOf(model, "1g.10gb"), 3}, // unknown: no-op
            {RepartitionStep::Kind::Create, -1, profileOf(model, "3g.40gb"), 0},
            {RepartitionStep::Kind::Create, -1, profileOf(model, "1g.20gb"), 4},
    };
    QCOMPARE(text(model, applySteps(current, steps)),
             QStringLiteral("3g.40gb@0 1g.20gb@4 1g.10gb@6"));
    QCOMPARE(text(model, applySteps(current, {})), QStringLiteral("2g.20gb@0 1g.10gb@6"));
}

void TestRepartitionPlanner::randomLayoutsMatchBruteForce_data()
{
    QTest::addColumn<int>("model"); // 0: H100, 1: the toy card
    QTest::addColumn<quint32>("seed");
    QTest::addColumn<int>("cases");
    QTest::newRow("H100") << 0 << 20240611u << 1000;
    QTest::newRow("toy card") << 1 << 7u << 2000;
}

// Random valid starting layouts with random busy flags and random options against a search
// over every valid layout: the plan is as good as the best there is, in the header's order of
// what matters, and keeps every invariant.
void TestRepartitionPlanner::randomLayoutsMatchBruteForce()
{
    QFETCH(int, model);
    QFETCH(quint32, seed);
    QFETCH(int, cases);

    const CardModel m = model == 0 ? h100() : toy();
    const QList<QList<MigPlacement>> maximal = Catalogue::enumerateMaximalLayouts(m);
    const QList<QList<MigPlacement>> layouts = allValidLayouts(m);
    QVERIFY(!maximal.isEmpty());
    QRandomGenerator rng(seed);

    for (int n = 0; n < cases; ++n) {
        const QList<PlannerInstance> current = randomLayout(m, rng);
        QList<int> wanted;
        for (int k = rng.bounded(0, 5); k > 0; --k)
            wanted.append(rng.bounded(20) == 0 ? 99 : rng.bounded(int(m.migProfiles.size())));
        const PlannerOptions o{rng.bounded(2) == 1, rng.bounded(3) == 0};

        QList<MigPlacement> currentLayout;
        for (const PlannerInstance &i : current)
            currentLayout.append(MigPlacement{i.profile, i.start});
        const QByteArray context
                = "case " + QByteArray::number(n) + ": current [" + text(m, currentLayout).toUtf8()
                  + "] wanted " + QByteArray::number(wanted.size())
                  + (o.mayDestroyBusy ? " mayDestroyBusy" : "") + (o.keepIdle ? " keepIdle" : "");

        const RepartitionPlan plan = planRepartition(m, current, wanted, o);
        checkInvariants(m, current, plan, o);
        if (QTest::currentTestFailed())
            QFAIL(context.constData());

        const QList<bool> got = satisfaction(m, wanted, freeInTarget(current, plan));
        QCOMPARE(plan.satisfied, int(got.count(true)));

        // No maximal layout holding the instances that must stay serves the wanted list better.
        for (const QList<MigPlacement> &layout : maximal) {
            QList<MigPlacement> free = layout;
            bool holdsFixed = true;
            for (const PlannerInstance &i : current) {
                const bool fixed = i.busy ? !o.mayDestroyBusy : o.keepIdle;
                if (!fixed)
                    continue;
                holdsFixed = holdsFixed && layout.contains(MigPlacement{i.profile, i.start});
                if (i.busy)
                    free.removeOne(MigPlacement{i.profile, i.start});
            }
            if (!holdsFixed)
                continue;
            const QList<bool> there = satisfaction(m, wanted, free);
            QVERIFY2(!servesBetter(there, got),
                     QByteArray(context + " beaten by [" + text(m, layout).toUtf8() + "]")
                             .constData());
        }

        // And nothing valid serves it as well with less disruption, or alike at lower starts.
        const Cost best = bruteForceBest(m, layouts, current, wanted, o);
        Cost mine{got, int(plan.destroyedBusy.size()), plan.destroyedIdle, {}, {}};
        for (const RepartitionStep &s : plan.steps) {
            if (s.kind == RepartitionStep::Kind::Create)
                mine.created.append(MigPlacement{s.profile, s.start});
            else
                mine.destroyedStarts.append(s.start);
        }
        mine.sort();
        QVERIFY2(mine == best,
                 QByteArray(context + " got " + describe(m, mine) + ", best " + describe(m, best))
                         .constData());

        // The input order of the current instances does not matter.
        QList<PlannerInstance> shuffled = current;
        std::shuffle(shuffled.begin(), shuffled.end(), rng);
        const RepartitionPlan again = planRepartition(m, shuffled, wanted, o);
        QCOMPARE(again.steps, plan.steps);
        QCOMPARE(again.target, plan.target);
        QCOMPARE(again.note, plan.note);
    }
}

QTEST_GUILESS_MAIN(TestRepartitionPlanner)
#include "tst_repartitionplanner.moc"
