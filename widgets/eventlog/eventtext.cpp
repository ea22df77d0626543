// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventtext.h"

#include "core/storage/exporter.h"
#include "widgets/cardmap/reasontext.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace Zhaoxi::Widgets {

using Models::EventNames;
using Storage::Event;

// One translation context for the free functions, so lupdate and the translators see them
// together.
class EventText
{
    Q_DECLARE_TR_FUNCTIONS(Zhaoxi::Widgets::EventText)
};

namespace {

// A named param; Storage::eventParam reads a store's legacy keys too.
QString param(const Event &e, const char *key)
{
    return Storage::eventParam(e, QLatin1StringView(key));
}

qint64 intParam(const Event &e, const char *key, qint64 absent = -1)
{
    bool ok = false;
    const qint64 v = param(e, key).toLongLong(&ok);
    return ok ? v : absent;
}

QString jobLabel(const EventNames &names, int job)
{
    if (job < 0)
        return EventText::tr("(no job)");
    const QString name = names.job(job);
    return name.isEmpty() ? QStringLiteral("#%1").arg(job) : name;
}

QString cardLabel(const EventNames &names, int card)
{
    if (card < 0)
        return EventText::tr("(no card)");
    if (const EventNames::Card *c = names.card(card)) {
        const QString host = names.host(c->host);
        if (!host.isEmpty())
            return EventText::tr("%1 card %2").arg(host).arg(c->indexOnHost);
    }
    return EventText::tr("card %1").arg(card);
}

QString hostLabel(const EventNames &names, qint64 host)
{
    const QString name = names.host(int(host));
    return name.isEmpty() ? EventText::tr("host %1").arg(host) : name;
}

QString serviceLabel(const EventNames &names, qint64 index)
{
    const QString name = names.service(int(index));
    return name.isEmpty() ? EventText::tr("service %1").arg(index) : name;
}

QString windowLabel(const EventNames &names, qint64 index)
{
    const QString name = names.windows.value(int(index));
    return name.isEmpty() ? QString::number(index + 1) : name;
}

// A MIG placement "3g.71gb@4" from a device step's profile index and start.
QString stepPartition(const EventNames &names, int card, qint64 profile, qint64 start)
{
    QString name;
    if (const EventNames::Card *c = names.card(card);
        c && profile >= 0 && profile < c->migProfiles.size())
        name = c->migProfiles[profile];
    if (name.isEmpty())
        name = profile >= 0 ? EventText::tr("profile %1").arg(profile) : QStringLiteral("?");
    return start >= 0 ? QStringLiteral("%1@%2").arg(name).arg(start) : name;
}

// A scheduler partition event's "3g.71gb@4": the profile's name is in its params, except for
// events recorded before the recorder knew the cards (it then writes the index).
QString eventPartition(const Event &e, const EventNames &names)
{
    QString profile = param(e, "profile");
    const qint64 index = intParam(e, "profileIndex");
    if (const EventNames::Card *c = names.card(e.card);
        c && index >= 0 && index < c->migProfiles.size())
        profile = c->migProfiles[index];
    if (profile.isEmpty())
        profile = e.partition >= 0 ? EventText::tr("partition %1").arg(e.partition)
                                   : QStringLiteral("?");
    const qint64 start = intParam(e, "start");
    return start >= 0 ? QStringLiteral("%1@%2").arg(profile).arg(start) : profile;
}

QString modeText(const QString &mode)
{
    if (mode == QLatin1String("whole"))
        return EventText::tr("whole-card");
    if (mode == QLatin1String("mig"))
        return EventText::tr("MIG");
    if (mode == QLatin1String("time-slicing"))
        return EventText::tr("time-slicing");
    if (mode == QLatin1String("mps"))
        return EventText::tr("MPS");
    return mode;
}

// Why a policy or device acted (Device::ActionReason as stored); empty for none.
QString actionText(const QString &reason)
{
    static const struct
    {
        const char *code;
        const char *text;
    } kReasons[] = {
            {"window", QT_TRANSLATE_NOOP("Zhaoxi::Widgets::EventText", "time window")},
            {"slo-at-risk", QT_TRANSLATE_NOOP("Zhaoxi::Widgets::EventText", "SLO at risk")},
            {"pressure", QT_TRANSLATE_NOOP("Zhaoxi::Widgets::EventText", "load pressure")},
            {"load-fell", QT_TRANSLATE_NOOP("Zhaoxi::Widgets::EventText", "load fell")},
            {"forecast-ramp", QT_TRANSLATE_NOOP("Zhaoxi::Widgets::EventText", "forecast ramp")},
            {"static-share", QT_TRANSLATE_NOOP("Zhaoxi::Widgets::EventText", "static split")},
            {"device-in-use",
             QT_TRANSLATE_NOOP("Zhaoxi::Widgets::EventText", "the instance is in use")},
            {"invalid-order",
             QT_TRANSLATE_NOOP("Zhaoxi::Widgets::EventText", "the driver refused the order")},
            {"gpu-lost", QT_TRANSLATE_NOOP("Zhaoxi::Widgets::EventText", "the card is gone")},
            {"load-rose", QT_TRANSLATE_NOOP("Zhaoxi::Widgets::EventText", "load rose")},
            {"consolidate",
             QT_TRANSLATE_NOOP("Zhaoxi::Widgets::EventText", "freeing a card for a waiting job")},
            {"drain",
             QT_TRANSLATE_NOOP("Zhaoxi::Widgets::EventText", "an operator drains the card")},
    };
    for (const auto &r : kReasons) {
        if (reason == QLatin1String(r.code))
            return EventText::tr(r.text);
    }
    return reason == QLatin1String("none") ? QString() : reason;
}

// "text (reason)" or "text" when there is no reason.
QString withReason(const QString &text, const Event &e)
{
    const QString why = actionText(param(e, "reason"));
    return why.isEmpty() ? text : EventText::tr("%1 (%2)").arg(text, why);
}

QString classText(qint64 kind)
{
    switch (kind) {
    case 0:
        return EventText::tr("training");
    case 1:
        return EventText::tr("inference");
    case 2:
        return EventText::tr("batch");
    }
    return EventText::tr("class %1").arg(kind);
}

QString schedulerMessage(const Event &e, const EventNames &n, bool *known)
{
    const QByteArray &c = e.code;
    const QString job = jobLabel(n, e.job);
    if (c == "job-submitted")
        return EventText::tr("Job %1 submitted").arg(job);
    if (c == "job-placed") {
        const auto placed = n.placements.constFind(e.id);
        if (placed != n.placements.cend() && placed->cards.size() > 1) {
            const EventNames::Card *first = n.card(placed->cards.first());
            const QString host
                    = first ? hostLabel(n, first->host) : hostLabel(n, intParam(e, "host"));
            return EventText::tr(
                           "Job %1 placed on %n card(s) of %2", nullptr, int(placed->cards.size()))
                    .arg(job, host);
        }
        if (e.card >= 0) {
            if (placed != n.placements.cend() && !placed->units.isEmpty())
                return EventText::tr("Job %1 placed on %2 (%3)")
                        .arg(job, cardLabel(n, e.card), placed->units.join(QStringLiteral(", ")));
            return EventText::tr("Job %1 placed on %2").arg(job, cardLabel(n, e.card));
        }
        return EventText::tr("Job %1 placed on host %2")
                .arg(job, hostLabel(n, intParam(e, "host")));
    }
    if (c == "job-waiting") {
        const QString why
                = reasonPhrase(reasonFromCode(QLatin1StringView(param(e, "reason").toLatin1())));
        return why.isEmpty() ? EventText::tr("Job %1 is waiting").arg(job)
                             : EventText::tr("Job %1 is waiting: %2").arg(job, why);
    }
    if (c == "job-preempting") {
        const int otherJob = int(intParam(e, "other"));
        const QString other = jobLabel(n, otherJob);
        const qint64 at = intParam(e, "evictionAtMs", 0);
        if (otherJob < 0) {
            // Not for another job: sent back to the queue (a policy's move, an operator's
            // requeue or drain); it leaves at its checkpoint.
            if (at > 0)
                return EventText::tr("Job %1 will leave its cards at %2 (at its checkpoint)")
                        .arg(job, eventClockText(at, n.utcOffsetSeconds));
            return EventText::tr("Job %1 will leave its cards at its next checkpoint").arg(job);
        }
        if (at > 0)
            return EventText::tr("Job %1 will be preempted for job %2 at %3")
                    .arg(job, other, eventClockText(at, n.utcOffsetSeconds));
        return EventText::tr("Job %1 will be preempted for job %2").arg(job, other);
    }
    if (c == "job-evicted") {
        const qint64 lost = intParam(e, "workLostMs", 0);
        if (lost > 0)
            return EventText::tr("Job %1 evicted; %2 of work lost")
                    .arg(job, eventDurationText(lost));
        return EventText::tr("Job %1 evicted; no work lost").arg(job);
    }
    if (c == "job-finished")
        return EventText::tr("Job %1 finished").arg(job);
    if (c == "job-cancelled")
        return EventText::tr("Job %1 cancelled").arg(job);
    if (c == "job-failed")
        return EventText::tr("Job %1 failed").arg(job);
    if (c == "partition-created")
        return EventText::tr("Partition %1 created on %2")
                .arg(eventPartition(e, n), cardLabel(n, e.card));
    if (c == "partition-destroyed")
        return EventText::tr("Partition %1 destroyed on %2")
                .arg(eventPartition(e, n), cardLabel(n, e.card));
    if (c == "card-mode-changed")
        return EventText::tr("%1 switched to %2 mode")
                .arg(cardLabel(n, e.card), modeText(param(e, "mode")));
    if (c == "card-failed")
        return EventText::tr("%1 failed").arg(cardLabel(n, e.card));
    if (c == "card-recovered")
        return EventText::tr("%1 recovered").arg(cardLabel(n, e.card));
    if (c == "budget-changed")
        return EventText::tr("Class budgets changed");
    if (c == "layout-pinned") {
        const qint64 until = intParam(e, "untilMs", -1);
        if (until > 0)
            return EventText::tr("Layout of %1 pinned until %2")
                    .arg(cardLabel(n, e.card), eventClockText(until, n.utcOffsetSeconds));
        return EventText::tr("Layout of %1 pinned until unpinned").arg(cardLabel(n, e.card));
    }
    if (c == "layout-unpinned")
        return param(e, "expired") == QLatin1String("true")
                       ? EventText::tr("Layout pin of %1 expired").arg(cardLabel(n, e.card))
                       : EventText::tr("Layout of %1 unpinned").arg(cardLabel(n, e.card));
    if (c == "card-changed-after-operator") {
        const QString since = eventDurationText(
                std::max<qint64>(0, e.atMs - intParam(e, "operatorAtMs", e.atMs)));
        if (param(e, "cause") == QLatin1String("reclaim-idle"))
            return EventText::tr("%1 was reset to one whole instance for waiting training, %2 "
                                 "after an operator changed it")
                    .arg(cardLabel(n, e.card), since);
        if (e.job < 0)
            return EventText::tr("%1 was reconfigured, %2 after an operator changed it")
                    .arg(cardLabel(n, e.card), since);
        return EventText::tr("%1 was reconfigured for job %2, %3 after an operator changed it")
                .arg(cardLabel(n, e.card), job, since);
    }
    *known = false;
    return {};
}

// A fleet through Slurm (FleetSession): what Slurm reported changed, in the console's words.
QString fleetMessage(const Event &e, bool *known)
{
    const QByteArray &c = e.code;
    const QString slurmJob = param(e, "slurmJob");
    const QString name = param(e, "name");
    if (c == "fleet-read")
        return EventText::tr("Slurm at %1 read: %2 nodes, %3 jobs")
                .arg(param(e, "url"), param(e, "nodes"), param(e, "jobs"));
    if (c == "fleet-unreachable")
        return EventText::tr("Slurm at %1 is not reachable: %2")
                .arg(param(e, "url"), param(e, "message"));
    if (c == "fleet-reachable")
        return EventText::tr("Slurm at %1 answers again after %2")
                .arg(param(e, "url"), eventDurationText(intParam(e, "downMs", 0)));
    if (c == "fleet-node-added")
        return EventText::tr("Node %1 joined (%2)").arg(param(e, "node"), param(e, "state"));
    if (c == "fleet-node-state") {
        const QString reason = param(e, "reason");
        const QString text
                = EventText::tr("Node %1 is %2 (was %3)")
                          .arg(param(e, "node"), param(e, "state"), param(e, "previousState"));
        return reason.isEmpty() ? text : EventText::tr("%1: %2").arg(text, reason);
    }
    if (c == "fleet-token-renewed")
        return EventText::tr("The Slurm token was renewed");
    if (c == "fleet-token-renew-failed")
        return EventText::tr("The Slurm token could not be renewed: %1").arg(param(e, "error"));
    if (c == "fleet-token-expiring")
        return EventText::tr("The Slurm token expires at %1 and nothing renews it")
                .arg(QString::fromLatin1(Storage::isoTime(intParam(e, "expiresAtMs", 0), 0)));
    if (c == "slurm-job-seen")
        return EventText::tr("Slurm job %1 (%2): %3").arg(slurmJob, name, param(e, "state"));
    if (c == "slurm-job-submitted")
        return EventText::tr("Slurm job %1 (%2) submitted for node %3")
                .arg(slurmJob, name, param(e, "node"));
    if (c == "slurm-job-started")
        return EventText::tr("Slurm job %1 (%2) started").arg(slurmJob, name);
    if (c == "slurm-job-requeued")
        return EventText::tr("Slurm job %1 (%2) requeued").arg(slurmJob, name);
    if (c == "slurm-job-ended")
        return EventText::tr("Slurm job %1 (%2) ended: %3").arg(slurmJob, name, param(e, "state"));
    if (c == "slurm-job-replanned")
        return EventText::tr("Slurm refused %1 on the node Zhaoxi chose; re-planned on %2")
                .arg(name, param(e, "node"));
    if (c == "fleet-windows-applied")
        return EventText::tr("The schedule's Slurm reservations were applied");
    if (c == "fleet-windows-failed")
        return EventText::tr("The schedule's Slurm reservations failed at %1: %2")
                .arg(param(e, "failedStep"), param(e, "error"));
    if (c == "slurm-job-waiting")
        return EventText::tr("Slurm job %1 (%2) waits: %3").arg(slurmJob, name, param(e, "reason"));
    *known = false;
    return {};
}

QString deviceMessage(const Event &e, const EventNames &n, bool *known)
{
    const QByteArray &c = e.code;
    const QString card = cardLabel(n, e.card);
    const qint64 kind = intParam(e, "stepKind");
    if (c == "step-started" || c == "step-done" || c == "step-failed") {
        const QString part
                = stepPartition(n, e.card, intParam(e, "profileIndex"), intParam(e, "start"));
        if (c == "step-started") {
            if (kind == 0)
                return EventText::tr("Creating partition %1 on %2").arg(part, card);
            if (kind == 1)
                return EventText::tr("Destroying partition %1 on %2").arg(part, card);
            return EventText::tr("Changing the mode of %1").arg(card);
        }
        if (c == "step-done") {
            const QString took = eventDurationText(intParam(e, "durationMs", 0));
            if (kind == 0)
                return EventText::tr("Driver created partition %1 on %2 in %3")
                        .arg(part, card, took);
            if (kind == 1)
                return EventText::tr("Driver destroyed partition %1 on %2 in %3")
                        .arg(part, card, took);
            return EventText::tr("Driver changed the mode of %1 in %2").arg(card, took);
        }
        QString why = actionText(param(e, "reason"));
        if (why.isEmpty())
            why = EventText::tr("unknown error");
        if (kind == 0)
            return EventText::tr("Driver could not create partition %1 on %2: %3")
                    .arg(part, card, why);
        if (kind == 1)
            return EventText::tr("Driver could not destroy partition %1 on %2: %3")
                    .arg(part, card, why);
        return EventText::tr("Driver could not change the mode of %1: %2").arg(card, why);
    }
    if (c == "fault-card-lost")
        return EventText::tr("%1 was lost").arg(card);
    if (c == "fault-memory-error")
        return EventText::tr("Memory error on %1").arg(card);
    if (c == "fault-thermal-throttle") {
        if (const qint64 duration = intParam(e, "durationMs", 0); duration > 0)
            return EventText::tr("%1 is thermally throttled for %2")
                    .arg(card, eventDurationText(duration));
        return EventText::tr("%1 is thermally throttled").arg(card);
    }
    if (c == "throttle-started")
        return EventText::tr("%1 is throttling at %2 °C")
                .arg(card,
                     trimmedNumberText(double(intParam(e, "temperatureMilliC", 0)) / 1000.0, 0));
    if (c == "throttle-ended")
        return EventText::tr("%1 is no longer throttling").arg(card);
    return fleetMessage(e, known);
}

QString policyMessage(const Event &e, const EventNames &n, bool *known)
{
    const QByteArray &c = e.code;
    const qint64 service = intParam(e, "service");
    const qint64 workloadClass = intParam(e, "workloadClass");
    if (c == "window-opened") {
        const qint64 window = intParam(e, "windowIndex");
        if (window < 0)
            return EventText::tr("No time window in force");
        return EventText::tr("Window ‘%1’ opened").arg(windowLabel(n, window));
    }
    if (c == "window-switch") {
        const qint64 window = intParam(e, "windowIndex");
        const QString opens = eventClockText(intParam(e, "opensAtMs", 0), n.utcOffsetSeconds);
        if (window < 0)
            return EventText::tr("Preparing for the end of the time windows at %1").arg(opens);
        return EventText::tr("Preparing for window ‘%1’, which opens at %2")
                .arg(windowLabel(n, window), opens);
    }
    if (c == "budget-set") {
        const qint64 inference = intParam(e, "inferenceMilli");
        const qint64 training = intParam(e, "trainingMilli");
        QString text;
        if (inference >= 0 && training >= 0 && inference + training > 0) {
            const double sum = double(inference + training);
            text = EventText::tr("Class budgets set: inference %1 %, training %2 %")
                           .arg(trimmedNumberText(100.0 * double(inference) / sum, 0),
                                trimmedNumberText(100.0 * double(training) / sum, 0));
        } else {
            auto cards = [](qint64 milli) {
                return milli < 0 ? EventText::tr("unlimited")
                                 : EventText::tr("%1 cards")
                                           .arg(trimmedNumberText(double(milli) / 1000.0, 2));
            };
            text = EventText::tr("Class budgets set: inference %1, training %2")
                           .arg(cards(inference), cards(training));
        }
        return withReason(text, e);
    }
    if (c == "replica-added")
        return withReason(EventText::tr("Replica %1 of %2 added")
                                  .arg(jobLabel(n, e.job), serviceLabel(n, service)),
                          e);
    if (c == "replica-removed")
        return withReason(EventText::tr("Replica %1 of %2 removed")
                                  .arg(jobLabel(n, e.job), serviceLabel(n, service)),
                          e);
    if (c == "training-requeued") {
        const QString job = jobLabel(n, e.job);
        const QString atCheckpoint = param(e, "atCheckpoint");
        if (atCheckpoint == QLatin1String("true") || atCheckpoint == QLatin1String("1"))
            return withReason(
                    EventText::tr("Job %1 goes back to the queue at its checkpoint at %2")
                            .arg(job,
                                 eventClockText(intParam(e, "leavesAtMs", 0), n.utcOffsetSeconds)),
                    e);
        return withReason(EventText::tr("Job %1 goes back to the queue now").arg(job), e);
    }
    if (c == "training-kept")
        return withReason(EventText::tr("Job %1 stays: the room it was leaving for is not needed")
                                  .arg(jobLabel(n, e.job)),
                          e);
    if (c == "guard-pressure")
        return withReason(
                EventText::tr("Service %1 under pressure: p99 %2 ms, %3 requests queued")
                        .arg(serviceLabel(n, service),
                             trimmedNumberText(double(intParam(e, "p99Us", 0)) / 1000.0, 1))
                        .arg(intParam(e, "queueDepth", 0)),
                e);
    if (c == "guard-release")
        return EventText::tr("Service %1: load fell, capacity returns to training")
                .arg(serviceLabel(n, service));
    if (c == "forecast-ramp")
        return EventText::tr("Service %1: forecast rises to %2 requests/s")
                .arg(serviceLabel(n, service),
                     trimmedNumberText(double(intParam(e, "forecastMilliRps", 0)) / 1000.0, 1));
    // Learning from the store at a run's start (core/replay): the service is named, not indexed.
    if (c == "forecast-history-learned")
        return EventText::tr("Service %1: the forecast learns from %2 recorded days")
                .arg(param(e, "service"), QString::number(intParam(e, "days", 0)));
    if (c == "forecast-history-short")
        return EventText::tr("Service %1: only %2 days recorded of the %3 the forecast needs; it "
                             "keeps the scenario's curve")
                .arg(param(e, "service"),
                     QString::number(intParam(e, "days", 0)),
                     QString::number(intParam(e, "needed", 0)));
    if (c == "service-time-learned")
        return EventText::tr(
                       "Service %1: measured %2 ms per request on a %3-card unit (%4 samples)")
                .arg(param(e, "service"),
                     trimmedNumberText(param(e, "ms").toDouble(), 1),
                     trimmedNumberText(double(intParam(e, "unitMilli", 0)) / 1000.0, 2),
                     QString::number(intParam(e, "samples", 0)));
    if (c == "power-cap-set") {
        const qint64 watts = intParam(e, "watts");
        if (watts < 0)
            return EventText::tr("Power cap for %1 removed").arg(classText(workloadClass));
        return EventText::tr("Power cap for %1 set to %2 W")
                .arg(classText(workloadClass))
                .arg(watts);
    }
    if (c == "bandwidth-quota-set") {
        const qint64 share = intParam(e, "sharePermille");
        if (share < 0 || share >= 1000)
            return EventText::tr("Host bandwidth for %1 no longer limited")
                    .arg(classText(workloadClass));
        return EventText::tr("Host bandwidth for %1 limited to %2 %")
                .arg(classText(workloadClass), trimmedNumberText(double(share) / 10.0, 1));
    }
    if (c == "training-checkpoint")
        return EventText::tr("Job %1 saved a checkpoint (%2 of work)")
                .arg(jobLabel(n, e.job), eventDurationText(intParam(e, "workSavedMs", 0)));
    if (c == "training-resumed") {
        // Stores written before the params were named have only the work the checkpoint kept.
        const qint64 lost = intParam(e, "workLostMs");
        if (lost < 0)
            return EventText::tr("Job %1 resumed from its checkpoint (%2 of work kept)")
                    .arg(jobLabel(n, e.job), eventDurationText(intParam(e, "workSavedMs", 0)));
        if (lost == 0)
            return EventText::tr("Job %1 resumed from its checkpoint; no work lost")
                    .arg(jobLabel(n, e.job));
        return EventText::tr("Job %1 resumed from its checkpoint; %2 of work lost")
                .arg(jobLabel(n, e.job), eventDurationText(lost));
    }
    if (c == "training-completed")
        return EventText::tr("Training job %1 completed").arg(jobLabel(n, e.job));
    if (c == "requests-failed-over")
        return EventText::tr("Service %1: %n request(s) re-sent from replica %2",
                             nullptr,
                             int(intParam(e, "requests", 0)))
                .arg(serviceLabel(n, service), jobLabel(n, e.job));
    *known = false;
    return {};
}

// An operator's action (the service's audit, or the embedded console's): who, what, and for a
// refusal why. The subject's state after it is in params.after.
QString operatorMessage(const Event &e, const EventNames &n, bool *known)
{
    const QJsonObject p = QJsonDocument::fromJson(e.params).object();
    const QJsonObject asked = p.value(QStringLiteral("asked")).toObject();
    const QJsonObject after = p.value(QStringLiteral("after")).toObject();
    const QString who = e.actor.isEmpty() ? EventText::tr("an operator") : e.actor;
    const QString job = jobLabel(n, e.job);
    const QByteArray c = e.code.mid(int(qstrlen("operator-")));
    if (!p.value(QStringLiteral("ok")).toBool(true)) {
        const QString why = p.value(QStringLiteral("refused")).toString();
        if (c == "submit")
            return EventText::tr("%1's workload was refused: %2").arg(who, why);
        if (c == "layout-apply")
            return EventText::tr("%1's repartition of %2 was refused: %3")
                    .arg(who, cardLabel(n, e.card), why);
        if (c == "schedule-set")
            return EventText::tr("%1's schedule was refused: %2").arg(who, why);
        return EventText::tr("%1 asked to %2 %3; refused: %4")
                .arg(who, QString::fromLatin1(c), job, why);
    }
    if (c == "submit")
        return EventText::tr("%1 submitted %2").arg(who, job);
    if (c == "place") {
        const int card = after.value(QStringLiteral("units"))[0][QStringLiteral("card")].toInt(
                asked.value(QStringLiteral("card")).toInt(-1));
        return EventText::tr("%1 placed %2 on %3").arg(who, job, cardLabel(n, card));
    }
    if (c == "requeue")
        return EventText::tr("%1 took %2 back to the queue").arg(who, job);
    if (c == "cancel")
        return EventText::tr("%1 cancelled %2").arg(who, job);
    if (c == "priority")
        return EventText::tr("%1 set the priority of %2 to %3")
                .arg(who, job)
                .arg(asked.value(QStringLiteral("priority")).toInt());
    if (c == "layout-apply") {
        QStringList layout;
        for (const QJsonValue &v : asked.value(QStringLiteral("layout")).toArray())
            layout.append(v.toString());
        return EventText::tr("%1 repartitioned %2: %3")
                .arg(who,
                     cardLabel(n, e.card),
                     layout.isEmpty() ? EventText::tr("no partitions")
                                      : layout.join(QStringLiteral(", ")));
    }
    if (c == "schedule-set")
        return EventText::tr("%1 set the windows schedule").arg(who);
    *known = false;
    return {};
}

QString otherMessage(const Event &e, bool *known)
{
    if (e.code == "store-moved-aside")
        return EventText::tr("The store file was unreadable (%1); it was moved to %2")
                .arg(param(e, "problem"), param(e, "movedTo"));
    if (e.code == "operator-login")
        return EventText::tr("%1 logged in").arg(e.actor);
    *known = false;
    return {};
}

} // namespace

Sched::Reason reasonFromCode(QLatin1StringView code)
{
    for (int r = 0; r < Sched::kReasonCount; ++r) {
        if (code == QLatin1StringView(Sched::reasonCode(Sched::Reason(r))))
            return Sched::Reason(r);
    }
    return Sched::Reason::None;
}

QString reasonPhrase(Sched::Reason reason)
{
    using Sched::Reason;
    switch (reason) {
    case Reason::None:
        return {};
    case Reason::HostDown:
        return EventText::tr("the host is down");
    case Reason::HostNotAllowed:
        return EventText::tr("it is pinned to another host");
    case Reason::InsufficientHostCpu:
        return EventText::tr("not enough free CPU on the host");
    case Reason::InsufficientHostMemory:
        return EventText::tr("not enough free host memory");
    case Reason::HostCpuTooSmall:
        return EventText::tr("no host has enough CPU");
    case Reason::HostMemoryTooSmall:
        return EventText::tr("no host has enough memory");
    case Reason::CardFailed:
        return EventText::tr("the card has failed");
    case Reason::ModelNotAllowed:
        return EventText::tr("its affinity excludes the card model");
    case Reason::ProfileNotOnModel:
        return EventText::tr("the card model has no such MIG profile");
    case Reason::IsolationMismatch:
        return EventText::tr("it needs hard isolation; the card is soft-sliced");
    case Reason::CardMemoryTooSmall:
        return EventText::tr("no card offers enough memory");
    case Reason::CardMemoryInUse:
        return EventText::tr("not enough free card memory");
    case Reason::CardComputeInUse:
        return EventText::tr("not enough free compute on the cards");
    case Reason::NoFreeUnit:
        return EventText::tr("every fitting partition is busy");
    case Reason::NeedsRepartition:
        return EventText::tr("a card must be repartitioned first");
    case Reason::TooManyClients:
        return EventText::tr("the cards already serve their limit of clients");
    case Reason::CardReconfiguring:
        return EventText::tr("the card is being reconfigured");
    case Reason::GangTooWide:
        return EventText::tr("not enough cards on one host");
    case Reason::GangNotInOneLinkDomain:
        return EventText::tr("not enough free cards in one fast-link domain");
    case Reason::ClassBudgetExceeded:
        return EventText::tr("its class budget is used up");
    case Reason::NoHosts:
        return EventText::tr("the appliance has no hosts");
    case Reason::Count:
        break;
    }
    return QString::fromLatin1(Sched::reasonCode(reason));
}

QString eventDurationText(qint64 ms)
{
    ms = std::max<qint64>(0, ms);
    if (ms < 60'000)
        return EventText::tr("%1 s").arg(
                trimmedNumberText(double(ms) / 1000.0, ms < 10'000 ? 1 : 0));
    if (ms < 3'600'000)
        return EventText::tr("%1 min").arg(
                trimmedNumberText(double(ms) / 60'000.0, ms < 600'000 ? 1 : 0));
    return EventText::tr("%1 h").arg(trimmedNumberText(double(ms) / 3'600'000.0, 1));
}

QString eventClockText(qint64 epochMs, int utcOffsetSeconds)
{
    return QString::fromLatin1(Storage::isoTime(epochMs, utcOffsetSeconds).mid(11, 5));
}

QString eventMessage(const Event &event, const EventNames &names)
{
    bool known = true;
    QString text;
    switch (event.source) {
    case Storage::Source::Scheduler:
        text = schedulerMessage(event, names, &known);
        break;
    case Storage::Source::Device:
        text = deviceMessage(event, names, &known);
        // "card-recovered" is the device's and the scheduler's.
        if (!known) {
            known = true;
            text = schedulerMessage(event, names, &known);
        }
        break;
    case Storage::Source::Policy:
        text = policyMessage(event, names, &known);
        break;
    case Storage::Source::Operator:
        text = operatorMessage(event, names, &known);
        if (!known) {
            known = true;
            text = otherMessage(event, &known);
        }
        break;
    case Storage::Source::System:
        text = otherMessage(event, &known);
        break;
    }
    if (!known) {
        // A code from another source than usual still has its words.
        known = true;
        text = schedulerMessage(event, names, &known);
        if (!known) {
            known = true;
            text = policyMessage(event, names, &known);
        }
        if (!known) {
            known = true;
            text = deviceMessage(event, names, &known);
        }
        if (!known) {
            known = true;
            text = otherMessage(event, &known);
        }
    }
    return known ? tidyCjkSpacing(text) : Storage::englishMessage(event);
}

QString eventMessage(const Event &event)
{
    static const EventNames none;
    return eventMessage(event, none);
}

} // namespace Zhaoxi::Widgets
