// SPDX-License-Identifier: GPL-3.0-or-later
#include "fleetrepartition.h"

#include "core/catalogue/layoutrules.h"

#include <algorithm>

namespace Zhaoxi::Fleet {

namespace {

int profileNamed(const Domain::CardModel &m, const QString &name)
{
    for (int i = 0; i < m.migProfiles.size(); ++i) {
        if (m.migProfiles[i].name.compare(name, Qt::CaseInsensitive) == 0)
            return i;
    }
    return -1;
}

void byStart(QList<Domain::MigPlacement> *card)
{
    std::stable_sort(card->begin(), card->end(), [](const auto &a, const auto &b) {
        return a.start < b.start;
    });
}

// Slurm's Reason is one line; keep it readable in sinfo.
QString reasonText(QString text)
{
    text.replace(QLatin1Char('\n'), QLatin1Char(' '));
    text.replace(QLatin1Char('"'), QLatin1Char('\''));
    return text.size() > 240 ? text.left(237) + QStringLiteral("...") : text;
}

QString placementsText(const Domain::CardModel &m, const QList<Domain::MigPlacement> &layout)
{
    if (layout.isEmpty())
        return QStringLiteral("nothing");
    QStringList s;
    for (const Domain::MigPlacement &p : layout)
        s << Catalogue::formatPlacement(m, p);
    return s.join(QLatin1Char(','));
}

QString commandLine(const QString &program, const QStringList &args)
{
    return (QStringList{program} + args).join(QLatin1Char(' '));
}

} // namespace

std::optional<NodeLayout> parseNodeLayout(const QString &text,
                                          const Catalogue::Catalogue &catalogue,
                                          int model,
                                          int cardCount,
                                          QString *error)
{
    if (model < 0 || model >= catalogue.models().size()) {
        *error = QStringLiteral("unknown card model");
        return std::nullopt;
    }
    const Domain::CardModel &m = catalogue.models()[model];
    if (!m.supportsMig()) {
        *error = QStringLiteral("%1 has no MIG profiles").arg(m.name);
        return std::nullopt;
    }
    NodeLayout out;
    out.model = model;
    out.cards.resize(cardCount);
    QList<bool> named(cardCount, false);
    const QStringList cards = text.split(QLatin1Char(';'), Qt::SkipEmptyParts);
    if (cards.isEmpty()) {
        *error = QStringLiteral("empty layout: expected CARD:PROFILE@START,... per card, e.g. "
                                "0:3g.71gb@0,3g.71gb@4;1:7x1g.18gb");
        return std::nullopt;
    }
    for (const QString &cardText : cards) {
        const qsizetype colon = cardText.indexOf(QLatin1Char(':'));
        bool ok = false;
        const int card = colon > 0 ? cardText.left(colon).trimmed().toInt(&ok) : -1;
        if (!ok) {
            *error = QStringLiteral("'%1': expected CARD:PROFILE@START,... (e.g. "
                                    "0:3g.71gb@0,3g.71gb@4)")
                             .arg(cardText.trimmed());
            return std::nullopt;
        }
        if (card < 0 || card >= cardCount) {
            *error = QStringLiteral("card %1: the node has cards 0..%2")
                             .arg(card)
                             .arg(cardCount - 1);
            return std::nullopt;
        }
        if (named[card]) {
            *error = QStringLiteral("card %1 is named twice").arg(card);
            return std::nullopt;
        }
        named[card] = true;
        QList<Domain::MigPlacement> &layout = out.cards[card];
        const QStringList items
                = cardText.mid(colon + 1).split(QLatin1Char(','), Qt::SkipEmptyParts);
        int instance = 0;
        for (const QString &raw : items) {
            QString item = raw.trimmed();
            int repeat = 1;
            const qsizetype x = item.indexOf(QLatin1Char('x'));
            if (x > 0) {
                bool n = false;
                const int r = item.left(x).toInt(&n);
                if (n) {
                    if (r < 1 || r > 64) {
                        *error = QStringLiteral(
                                         "card %1, instance %2 (%3): the count must be 1..64")
                                         .arg(card)
                                         .arg(instance)
                                         .arg(item);
                        return std::nullopt;
                    }
                    repeat = r;
                    item = item.mid(x + 1);
                }
            }
            const bool hasStart = item.contains(QLatin1Char('@'));
            if (hasStart && repeat != 1) {
                *error = QStringLiteral("card %1, instance %2 (%3): NxPROFILE takes no start "
                                        "(the instances go to the lowest free starts)")
                                 .arg(card)
                                 .arg(instance)
                                 .arg(raw.trimmed());
                return std::nullopt;
            }
            for (int k = 0; k < repeat; ++k, ++instance) {
                Domain::MigPlacement p;
                if (hasStart) {
                    QString why;
                    const std::optional<Domain::MigPlacement> parsed
                            = Catalogue::parsePlacement(m, item, &why);
                    if (!parsed) {
                        *error = QStringLiteral("card %1, instance %2: %3")
                                         .arg(card)
                                         .arg(instance)
                                         .arg(why);
                        return std::nullopt;
                    }
                    p = *parsed;
                } else {
                    p.profile = profileNamed(m, item);
                    if (p.profile < 0) {
                        QStringList names;
                        for (const auto &mp : m.migProfiles)
                            names << mp.name;
                        *error = QStringLiteral("card %1, instance %2: unknown profile '%3' for "
                                                "%4; known profiles: %5")
                                         .arg(card)
                                         .arg(instance)
                                         .arg(item, m.name, names.join(QStringLiteral(", ")));
                        return std::nullopt;
                    }
                    p.start = Catalogue::firstFreeStart(m, layout, p.profile);
                    if (p.start < 0) {
                        *error = QStringLiteral("card %1, instance %2 (%3): no free start is left "
                                                "for it on %4 (%5 so far)")
                                         .arg(card)
                                         .arg(instance)
                                         .arg(m.migProfiles[p.profile].name, m.name)
                                         .arg(placementsText(m, layout));
                        return std::nullopt;
                    }
                }
                layout.append(p);
                const Catalogue::LayoutVerdict v = Catalogue::validateLayout(m, layout);
                if (!v.isValid()) {
                    *error = QStringLiteral("card %1, instance %2 (%3): %4")
                                     .arg(card)
                                     .arg(v.index)
                                     .arg(Catalogue::formatPlacement(m, layout[v.index]),
                                          v.describe(m, layout));
                    return std::nullopt;
                }
            }
        }
        if (layout.isEmpty()) {
            *error = QStringLiteral("card %1: no instance (a MIG card without instances has no "
                                    "device for Slurm to count)")
                             .arg(card);
            return std::nullopt;
        }
        byStart(&layout);
    }
    for (int c = 0; c < cardCount; ++c) {
        if (!named[c]) {
            *error = QStringLiteral("card %1 is not named: give every card of the node (0..%2)")
                             .arg(c)
                             .arg(cardCount - 1);
            return std::nullopt;
        }
    }
    return out;
}

QString formatNodeLayout(const Catalogue::Catalogue &catalogue, const NodeLayout &layout)
{
    const Domain::CardModel &m = catalogue.models()[layout.model];
    QStringList cards;
    for (int c = 0; c < layout.cards.size(); ++c) {
        QStringList items;
        for (const Domain::MigPlacement &p : layout.cards[c])
            items << Catalogue::formatPlacement(m, p);
        cards << QStringLiteral("%1:%2").arg(c).arg(items.join(QLatin1Char(',')));
    }
    return cards.join(QLatin1Char(';'));
}

QList<Gres> gresForLayout(const Catalogue::Catalogue &catalogue, const NodeLayout &layout)
{
    const Domain::CardModel &m = catalogue.models()[layout.model];
    QList<Gres> out;
    for (const QList<Domain::MigPlacement> &card : layout.cards) {
        for (const Domain::MigPlacement &p : card) {
            const QString type = m.migProfiles[p.profile].name;
            if (!out.isEmpty() && out.last().type == type) {
                ++out.last().count;
            } else {
                Gres g;
                g.name = QStringLiteral("gpu");
                g.type = type;
                g.count = 1;
                out.append(g);
            }
        }
    }
    return out;
}

QString gresText(const QList<Gres> &gres)
{
    QStringList parts;
    for (const Gres &g : gres)
        parts << g.toString();
    return parts.join(QLatin1Char(','));
}

QString normalizedGres(const QString &gres)
{
    QString error;
    const std::optional<QList<Gres>> parsed = parseGresList(gres, &error);
    if (!parsed)
        return gres.trimmed();
    QStringList parts;
    for (const Gres &g : *parsed)
        parts << g.toString();
    std::sort(parts.begin(), parts.end());
    return parts.join(QLatin1Char(','));
}

std::optional<RepartitionTarget> repartitionTarget(const FleetState &fleet,
                                                   const Catalogue::Catalogue &catalogue,
                                                   const QString &node,
                                                   QString *error)
{
    Q_UNUSED(catalogue);
    for (int i = 0; i < fleet.snapshot.nodes.size() && i < fleet.nodes.size(); ++i) {
        const FleetNode &n = fleet.snapshot.nodes[i];
        if (n.name != node)
            continue;
        const NodeMap &map = fleet.nodes[i];
        if (!map.problem.isEmpty()) {
            *error = QStringLiteral("node %1: Zhaoxi cannot map its cards (%2)")
                             .arg(node, map.problem);
            return std::nullopt;
        }
        if (map.cards.isEmpty()) {
            *error = QStringLiteral("node %1 has no cards").arg(node);
            return std::nullopt;
        }
        RepartitionTarget t;
        t.node = node;
        t.cards = int(map.cards.size());
        t.slurmNode = n;
        t.gres = gresText(n.gres);
        for (const FleetCard &c : map.cards) {
            const int model = fleet.state.card(c.card).model;
            if (t.model >= 0 && model != t.model) {
                *error = QStringLiteral("node %1 has cards of different models").arg(node);
                return std::nullopt;
            }
            t.model = model;
        }
        return t;
    }
    *error = QStringLiteral("no node %1 in the cluster").arg(node);
    return std::nullopt;
}

bool gresRoundTrips(const Catalogue::Catalogue &catalogue,
                    const RepartitionTarget &target,
                    const NodeLayout &layout,
                    QString *error)
{
    const QList<Gres> gres = gresForLayout(catalogue, layout);
    QStringList seen;
    for (const Gres &g : gres) {
        if (seen.contains(g.type)) {
            *error = QStringLiteral("the layout puts %1 instances in two runs of devices (%2): "
                                    "Slurm adds up a type's count on a node, so a profile's "
                                    "instances must follow each other in device order")
                             .arg(g.type, gresText(gres));
            return false;
        }
        seen << g.type;
    }
    FleetSnapshot s;
    FleetNode n = target.slurmNode;
    n.gres = gres;
    n.gresUsed.clear();
    s.nodes.append(n);
    const FleetState back = buildFleetState(s, catalogue, 0);
    const NodeMap &map = back.nodes.value(0);
    QStringList got;
    for (const FleetCard &c : map.cards) {
        const Sched::CardState &cs = back.state.card(c.card);
        NodeLayout one;
        one.model = cs.model;
        one.cards.append(cs.migLayout());
        got << formatNodeLayout(catalogue, one).mid(2);
    }
    QStringList want;
    for (const QList<Domain::MigPlacement> &card : layout.cards) {
        NodeLayout one;
        one.model = layout.model;
        one.cards.append(card);
        want << formatNodeLayout(catalogue, one).mid(2);
    }
    if (!map.problem.isEmpty() || got != want) {
        *error = QStringLiteral("Zhaoxi would read GRES %1 back as %2, not as the layout asked "
                                "for (%3): MIG instances fill cards in device order at the "
                                "lowest start their profile may take")
                         .arg(gresText(gres),
                              map.problem.isEmpty() ? got.join(QStringLiteral(" | ")) : map.problem,
                              want.join(QStringLiteral(" | ")));
        return false;
    }
    return true;
}

const char *toString(RepartitionStep step)
{
    switch (step) {
    case RepartitionStep::Plan:
        return "plan";
    case RepartitionStep::Drain:
        return "drain";
    case RepartitionStep::Jobs:
        return "jobs";
    case RepartitionStep::Apply:
        return "apply";
    case RepartitionStep::Gres:
        return "gres";
    case RepartitionStep::Reconfigure:
        return "reconfigure";
    case RepartitionStep::WaitGres:
        return "wait-gres";
    case RepartitionStep::Resume:
        return "resume";
    }
    return "?";
}

namespace {

class Cycle
{
public:
    Cycle(const RepartitionTarget &target,
          const RepartitionOptions &options,
          RepartitionIo &io,
          const std::function<void(const RepartitionEvent &)> &onEvent)
        : m_target(target)
        , m_options(options)
        , m_io(io)
        , m_onEvent(onEvent)
        , m_t0(io.nowMs())
    {}

    RepartitionResult result;

    void event(RepartitionStep step, bool ok, const QString &message)
    {
        const RepartitionEvent e{step, m_io.nowMs() - m_t0, ok, message};
        result.events.append(e);
        if (m_onEvent)
            m_onEvent(e);
    }

    // Runs scontrol; false (with the failure recorded) when it fails.
    bool scontrol(RepartitionStep step, const QStringList &args, QString *why)
    {
        const CommandResult r = m_io.run(m_options.scontrol, args);
        if (r.exitCode == 0)
            return true;
        *why = QStringLiteral("%1 failed (%2): %3")
                       .arg(commandLine(m_options.scontrol, args),
                            r.exitCode < 0 ? QStringLiteral("could not run")
                                           : QStringLiteral("exit code %1").arg(r.exitCode),
                            r.output.isEmpty() ? QStringLiteral("no output") : r.output);
        Q_UNUSED(step);
        return false;
    }

    std::optional<NodeView> node(QString *why)
    {
        QString error;
        std::optional<NodeView> v = m_io.readNode(m_target.node, &error);
        if (!v)
            *why = QStringLiteral("cannot read node %1: %2").arg(m_target.node, error);
        return v;
    }

    // Leaves the node drained with the failure as its reason.
    RepartitionResult fail(RepartitionStep step, const QString &why)
    {
        event(step, false, why);
        result.ok = false;
        result.failedStep = step;
        const QString reason = reasonText(QStringLiteral("zhaoxi repartition failed at %1: %2")
                                                  .arg(QLatin1String(toString(step)), why));
        QString err;
        if (scontrol(step,
                     {QStringLiteral("update"),
                      QStringLiteral("NodeName=") + m_target.node,
                      QStringLiteral("State=DRAIN"),
                      QStringLiteral("Reason=") + reason},
                     &err))
            event(step,
                  true,
                  QStringLiteral("node %1 left drained: %2").arg(m_target.node, reason));
        else
            event(step,
                  false,
                  QStringLiteral("could not leave node %1 drained: %2").arg(m_target.node, err));
        return result;
    }

    qint64 elapsed() const { return m_io.nowMs() - m_t0; }

    const RepartitionTarget &m_target;
    const RepartitionOptions &m_options;
    RepartitionIo &m_io;
    const std::function<void(const RepartitionEvent &)> &m_onEvent;
    qint64 m_t0;
};

QString idList(const QList<qint64> &ids)
{
    QStringList s;
    for (qint64 id : ids)
        s << QString::number(id);
    return s.join(QLatin1Char(','));
}

} // namespace

RepartitionResult runRepartition(const RepartitionTarget &target,
                                 const NodeLayout &layout,
                                 const Catalogue::Catalogue &catalogue,
                                 const RepartitionOptions &options,
                                 RepartitionIo &io,
                                 const std::function<void(const RepartitionEvent &)> &onEvent)
{
    Cycle c(target, options, io, onEvent);
    const QString gres = gresText(gresForLayout(catalogue, layout));
    const QString layoutText = formatNodeLayout(catalogue, layout);
    const QStringList env = {QStringLiteral("ZHAOXI_NODE=") + target.node,
                             QStringLiteral("ZHAOXI_LAYOUT=") + layoutText,
                             QStringLiteral("ZHAOXI_GRES=") + gres};
    c.event(RepartitionStep::Plan,
            true,
            QStringLiteral("%1: %2; GRES %3 -> %4")
                    .arg(target.node, layoutText, target.gres, gres));
    if (options.gresCommand.isEmpty())
        return c.fail(RepartitionStep::Plan, QStringLiteral("no GRES command"));

    // Drain: no new work; the reason says what is under way.
    QString why;
    if (!c.scontrol(RepartitionStep::Drain,
                    {QStringLiteral("update"),
                     QStringLiteral("NodeName=") + target.node,
                     QStringLiteral("State=DRAIN"),
                     QStringLiteral("Reason=")
                             + reasonText(QStringLiteral("zhaoxi repartition: %1").arg(gres))},
                    &why))
        return c.fail(RepartitionStep::Drain, why);
    c.event(RepartitionStep::Drain, true, QStringLiteral("node %1 drained").arg(target.node));

    // Jobs: wait, requeue at once, or wait until the deadline and requeue the rest.
    {
        const qint64 start = c.elapsed();
        bool requeued = false;
        qint64 requeuedAt = 0;
        QList<qint64> lastSeen;
        for (;;) {
            const std::optional<NodeView> v = c.node(&why);
            if (!v)
                return c.fail(RepartitionStep::Jobs, why);
            if (v->jobsHolding.isEmpty())
                break;
            if (v->jobsHolding != lastSeen) {
                c.event(RepartitionStep::Jobs,
                        true,
                        QStringLiteral("jobs on %1: %2").arg(target.node, idList(v->jobsHolding)));
                lastSeen = v->jobsHolding;
            }
            const qint64 waited = c.elapsed() - start;
            const bool requeueNow
                    = !requeued
                      && (options.jobs == JobPolicy::Immediate
                          || (options.jobs == JobPolicy::Deadline && waited >= options.deadlineMs));
            if (requeueNow) {
                const QStringList args = {QStringLiteral("requeue"), idList(v->jobsHolding)};
                if (!c.scontrol(RepartitionStep::Jobs, args, &why))
                    return c.fail(RepartitionStep::Jobs, why);
                requeued = true;
                requeuedAt = c.elapsed();
                c.event(RepartitionStep::Jobs,
                        true,
                        QStringLiteral("requeued %1 (%2)")
                                .arg(idList(v->jobsHolding),
                                     options.jobs == JobPolicy::Immediate
                                             ? QStringLiteral("--immediate")
                                             : QStringLiteral("deadline reached")));
            } else if (requeued && c.elapsed() - requeuedAt > options.requeueTimeoutMs) {
                return c.fail(RepartitionStep::Jobs,
                              QStringLiteral("jobs %1 still hold the node %2 ms after requeue")
                                      .arg(idList(v->jobsHolding))
                                      .arg(options.requeueTimeoutMs));
            } else if (!requeued && options.jobs == JobPolicy::Wait
                       && waited > options.jobsTimeoutMs) {
                return c.fail(RepartitionStep::Jobs,
                              QStringLiteral("jobs %1 did not end within %2 ms")
                                      .arg(idList(v->jobsHolding))
                                      .arg(options.jobsTimeoutMs));
            }
            io.sleepMs(options.pollMs);
        }
        c.event(RepartitionStep::Jobs, true, QStringLiteral("no job holds %1").arg(target.node));
    }

    // Apply the layout on the node (its own Zhaoxi on a real fleet).
    if (options.applyCommand.isEmpty()) {
        c.event(RepartitionStep::Apply,
                true,
                QStringLiteral("skipped: no --apply-command (the node's MIG layout is not changed "
                               "here)"));
    } else {
        const QStringList args = options.applyCommand.mid(1) + QStringList{target.node, layoutText};
        const CommandResult r = io.run(options.applyCommand.first(), args, env);
        if (r.exitCode != 0)
            return c.fail(
                    RepartitionStep::Apply,
                    QStringLiteral("%1 failed (%2): %3")
                            .arg(commandLine(options.applyCommand.first(), args),
                                 r.exitCode < 0 ? QStringLiteral("could not run")
                                                : QStringLiteral("exit code %1").arg(r.exitCode),
                                 r.output.isEmpty() ? QStringLiteral("no output") : r.output));
        c.event(RepartitionStep::Apply,
                true,
                QStringLiteral("%1 done").arg(commandLine(options.applyCommand.first(), args)));
    }

    // Slurm's configuration of the node.
    {
        const QStringList args = options.gresCommand.mid(1) + QStringList{target.node, gres};
        const CommandResult r = io.run(options.gresCommand.first(), args, env);
        if (r.exitCode != 0)
            return c.fail(RepartitionStep::Gres,
                          QStringLiteral("%1 failed (%2): %3")
                                  .arg(commandLine(options.gresCommand.first(), args),
                                       r.exitCode < 0
                                               ? QStringLiteral("could not run")
                                               : QStringLiteral("exit code %1").arg(r.exitCode),
                                       r.output.isEmpty() ? QStringLiteral("no output")
                                                          : r.output.right(400)));
        c.event(RepartitionStep::Gres,
                true,
                QStringLiteral("%1 done").arg(commandLine(options.gresCommand.first(), args)));
    }
    if (options.reconfigure) {
        if (!c.scontrol(RepartitionStep::Reconfigure, {QStringLiteral("reconfigure")}, &why))
            return c.fail(RepartitionStep::Reconfigure, why);
        c.event(RepartitionStep::Reconfigure, true, QStringLiteral("scontrol reconfigure done"));
    } else {
        c.event(RepartitionStep::Reconfigure,
                true,
                QStringLiteral("skipped: the GRES command makes Slurm take the GRES itself"));
    }

    // Until Slurm shows it.
    {
        const qint64 start = c.elapsed();
        const QString want = normalizedGres(gres);
        QString last;
        for (;;) {
            const std::optional<NodeView> v = c.node(&why);
            if (v) {
                last = v->gres;
                // Shown by a controller that has not heard from the node's slurmd yet.
                const bool down = v->state == QLatin1String("down")
                                  || v->state == QLatin1String("unknown")
                                  || v->stateFlags.contains(QLatin1String("NOT_RESPONDING"));
                if (normalizedGres(v->gres) == want && !down)
                    break;
            }
            // The controller may be restarting (the GRES command's doing): a failed read is
            // retried until the bound.
            if (c.elapsed() - start > options.gresTimeoutMs)
                return c.fail(RepartitionStep::WaitGres,
                              QStringLiteral("node %1 does not show GRES %2 within %3 ms (it "
                                             "shows %4)")
                                      .arg(target.node, gres)
                                      .arg(options.gresTimeoutMs)
                                      .arg(last.isEmpty() ? why : last));
            io.sleepMs(options.pollMs);
        }
        c.event(RepartitionStep::WaitGres,
                true,
                QStringLiteral("node %1 shows GRES %2").arg(target.node, gres));
    }

    if (!c.scontrol(RepartitionStep::Resume,
                    {QStringLiteral("update"),
                     QStringLiteral("NodeName=") + target.node,
                     QStringLiteral("State=RESUME")},
                    &why))
        return c.fail(RepartitionStep::Resume, why);
    c.event(RepartitionStep::Resume,
            true,
            QStringLiteral("node %1 resumed after %2 ms").arg(target.node).arg(c.elapsed()));
    c.result.ok = true;
    return c.result;
}

} // namespace Zhaoxi::Fleet
