// SPDX-License-Identifier: GPL-3.0-or-later
#include "nvmlplan.h"

#include "nvmlbackend.h"

#include "core/catalogue/layoutrules.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>

namespace Zhaoxi::Device {

using Domain::CardModel;
using Domain::MigPlacement;

namespace {

// "3g.71gb@4" against a model; an empty optional with *why on a problem.
std::optional<MigPlacement> parsePlacement(const CardModel &model,
                                           const QString &text,
                                           QString *why)
{
    const int at = text.lastIndexOf(QLatin1Char('@'));
    if (at <= 0) {
        *why = QStringLiteral("\"%1\" is not <profile>@<start>").arg(text);
        return std::nullopt;
    }
    const int profile = model.profileIndex(text.left(at));
    if (profile < 0) {
        *why = QStringLiteral("%1 has no profile \"%2\"").arg(model.name, text.left(at));
        return std::nullopt;
    }
    bool ok = false;
    const int start = text.mid(at + 1).toInt(&ok);
    if (!ok || !model.migProfiles[profile].starts.contains(start)) {
        *why = QStringLiteral("%1 cannot start at \"%2\"").arg(text.left(at), text.mid(at + 1));
        return std::nullopt;
    }
    return MigPlacement{profile, start};
}

bool onlyKeys(const QJsonObject &o,
              std::initializer_list<const char *> keys,
              const QString &where,
              QString *error)
{
    for (const QString &k : o.keys()) {
        const bool known = std::any_of(
                keys.begin(), keys.end(), [&](const char *x) { return k == QLatin1String(x); });
        if (!known) {
            *error = QStringLiteral("%1: unknown key \"%2\"").arg(where, k);
            return false;
        }
    }
    return true;
}

QList<MigPlacement> sorted(QList<MigPlacement> l)
{
    std::sort(l.begin(), l.end(), [](MigPlacement a, MigPlacement b) {
        return a.start != b.start ? a.start < b.start : a.profile < b.profile;
    });
    return l;
}

} // namespace

std::optional<PlanFile> readPlanFile(const QByteArray &json,
                                     const Catalogue::Catalogue &catalogue,
                                     QString *error)
{
    QString dummy;
    QString &err = error ? *error : dummy;
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError) {
        err = QStringLiteral("not JSON: %1 at offset %2").arg(pe.errorString()).arg(pe.offset);
        return std::nullopt;
    }
    if (!doc.isObject()) {
        err = QStringLiteral("a plan file is one JSON object");
        return std::nullopt;
    }
    const QJsonObject root = doc.object();
    if (!onlyKeys(root, {"zhaoxiPlan", "note", "cards"}, QStringLiteral("(file)"), &err))
        return std::nullopt;
    if (root.value(QLatin1String("zhaoxiPlan")).toInt(-1) != PlanFile::kVersion) {
        err = QStringLiteral("zhaoxiPlan: must be %1").arg(PlanFile::kVersion);
        return std::nullopt;
    }
    PlanFile plan;
    const QJsonValue note = root.value(QLatin1String("note"));
    if (!note.isUndefined() && !note.isString()) {
        err = QStringLiteral("note: must be a string");
        return std::nullopt;
    }
    plan.note = note.toString();
    const QJsonArray cards = root.value(QLatin1String("cards")).toArray();
    if (cards.isEmpty()) {
        err = QStringLiteral("cards: at least one card is required");
        return std::nullopt;
    }
    for (int c = 0; c < cards.size(); ++c) {
        const QString where = QStringLiteral("cards[%1]").arg(c);
        if (!cards[c].isObject()) {
            err = where + QStringLiteral(": must be an object");
            return std::nullopt;
        }
        const QJsonObject o = cards[c].toObject();
        if (!onlyKeys(o, {"uuid", "index", "model", "expect", "steps"}, where, &err))
            return std::nullopt;
        PlanCard card;
        const QJsonValue uuid = o.value(QLatin1String("uuid"));
        const QJsonValue index = o.value(QLatin1String("index"));
        if (!uuid.isUndefined()) {
            if (!uuid.isString() || uuid.toString().isEmpty()) {
                err = where + QStringLiteral(".uuid: must be a non-empty string");
                return std::nullopt;
            }
            card.uuid = uuid.toString();
        }
        if (!index.isUndefined()) {
            if (!index.isDouble() || index.toDouble() < 0 || index.toDouble() != index.toInt()) {
                err = where + QStringLiteral(".index: must be an integer >= 0");
                return std::nullopt;
            }
            card.index = index.toInt();
        }
        if (card.uuid.isEmpty() && card.index < 0) {
            err = where + QStringLiteral(": needs \"uuid\" or \"index\"");
            return std::nullopt;
        }
        const QString modelName = o.value(QLatin1String("model")).toString();
        card.model = catalogue.indexOf(modelName);
        if (card.model < 0) {
            err = where + QStringLiteral(".model: unknown model \"%1\"").arg(modelName);
            return std::nullopt;
        }
        const CardModel &model = catalogue.models()[card.model];
        const QJsonValue expect = o.value(QLatin1String("expect"));
        if (!expect.isUndefined()) {
            if (!expect.isArray()) {
                err = where + QStringLiteral(".expect: must be a list of \"<profile>@<start>\"");
                return std::nullopt;
            }
            QList<MigPlacement> layout;
            const QJsonArray a = expect.toArray();
            for (int i = 0; i < a.size(); ++i) {
                QString why;
                const auto p = parsePlacement(model, a[i].toString(), &why);
                if (!p) {
                    err = where + QStringLiteral(".expect[%1]: %2").arg(i).arg(why);
                    return std::nullopt;
                }
                layout << *p;
            }
            const Catalogue::LayoutVerdict v = Catalogue::validateLayout(model, layout);
            if (!v.isValid()) {
                err = where + QStringLiteral(".expect: ") + v.describe(model, layout);
                return std::nullopt;
            }
            card.expect = layout;
        }
        const QJsonArray steps = o.value(QLatin1String("steps")).toArray();
        if (steps.isEmpty()) {
            err = where + QStringLiteral(".steps: at least one step is required");
            return std::nullopt;
        }
        for (int s = 0; s < steps.size(); ++s) {
            const QString sw = where + QStringLiteral(".steps[%1]").arg(s);
            const QJsonObject so = steps[s].toObject();
            if (!onlyKeys(so, {"op", "instance"}, sw, &err))
                return std::nullopt;
            PlanStep step;
            const QString op = so.value(QLatin1String("op")).toString();
            if (op == QLatin1String("destroy")) {
                step.kind = DeviceStep::Kind::DestroyInstance;
            } else if (op == QLatin1String("create")) {
                step.kind = DeviceStep::Kind::CreateInstance;
            } else {
                err = sw + QStringLiteral(".op: must be \"destroy\" or \"create\"");
                return std::nullopt;
            }
            QString why;
            const auto p
                    = parsePlacement(model, so.value(QLatin1String("instance")).toString(), &why);
            if (!p) {
                err = sw + QStringLiteral(".instance: ") + why;
                return std::nullopt;
            }
            step.placement = *p;
            card.steps << step;
        }
        plan.cards << card;
    }
    return plan;
}

QByteArray writePlanFile(const PlanFile &plan, const Catalogue::Catalogue &catalogue)
{
    QJsonObject root;
    root.insert(QStringLiteral("zhaoxiPlan"), PlanFile::kVersion);
    if (!plan.note.isEmpty())
        root.insert(QStringLiteral("note"), plan.note);
    QJsonArray cards;
    for (const PlanCard &c : plan.cards) {
        const CardModel &model = catalogue.models()[c.model];
        QJsonObject o;
        if (!c.uuid.isEmpty())
            o.insert(QStringLiteral("uuid"), c.uuid);
        if (c.index >= 0)
            o.insert(QStringLiteral("index"), c.index);
        o.insert(QStringLiteral("model"), model.name);
        if (c.expect) {
            QJsonArray e;
            for (const MigPlacement &p : *c.expect)
                e.append(Catalogue::formatPlacement(model, p));
            o.insert(QStringLiteral("expect"), e);
        }
        QJsonArray steps;
        for (const PlanStep &s : c.steps) {
            QJsonObject so;
            so.insert(QStringLiteral("op"),
                      s.kind == DeviceStep::Kind::DestroyInstance ? QStringLiteral("destroy")
                                                                  : QStringLiteral("create"));
            so.insert(QStringLiteral("instance"), Catalogue::formatPlacement(model, s.placement));
            steps.append(so);
        }
        o.insert(QStringLiteral("steps"), steps);
        cards.append(o);
    }
    root.insert(QStringLiteral("cards"), cards);
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

PlanCard planCardFrom(int model,
                      const QString &uuid,
                      int index,
                      const QList<Sched::PlannerInstance> &current,
                      const Sched::RepartitionPlan &plan)
{
    PlanCard card;
    card.uuid = uuid;
    card.index = index;
    card.model = model;
    QList<MigPlacement> expect;
    for (const Sched::PlannerInstance &i : current)
        expect << MigPlacement{i.profile, i.start};
    card.expect = sorted(expect);
    for (const Sched::RepartitionStep &s : plan.steps) {
        PlanStep step;
        if (s.kind == Sched::RepartitionStep::Kind::Destroy) {
            step.kind = DeviceStep::Kind::DestroyInstance;
            const auto it = std::find_if(current.cbegin(), current.cend(), [&](const auto &i) {
                return i.uid == s.uid;
            });
            step.placement = it != current.cend() ? MigPlacement{it->profile, it->start}
                                                  : MigPlacement{s.profile, s.start};
        } else {
            step.kind = DeviceStep::Kind::CreateInstance;
            step.placement = MigPlacement{s.profile, s.start};
        }
        card.steps << step;
    }
    return card;
}

ResolvedPlan resolvePlan(const PlanFile &plan,
                         const Catalogue::Catalogue &catalogue,
                         const QList<NvmlCardReport> &cards)
{
    ResolvedPlan out;
    QSet<int> used;
    for (int c = 0; c < plan.cards.size(); ++c) {
        const PlanCard &pc = plan.cards[c];
        const QString who = !pc.uuid.isEmpty() ? pc.uuid : QStringLiteral("index %1").arg(pc.index);
        int found = -1;
        if (!pc.uuid.isEmpty()) {
            for (int i = 0; i < cards.size(); ++i) {
                if (cards[i].uuid.compare(pc.uuid, Qt::CaseInsensitive) == 0)
                    found = i;
            }
            if (found < 0) {
                out.problems << QStringLiteral("card %1: no such card on this machine").arg(who);
                continue;
            }
            if (pc.index >= 0 && cards[found].index != pc.index) {
                out.problems << QStringLiteral("card %1: it has index %2 here, the plan says %3")
                                        .arg(who)
                                        .arg(cards[found].index)
                                        .arg(pc.index);
                continue;
            }
        } else {
            if (pc.index >= cards.size()) {
                out.problems << QStringLiteral("card %1: this machine has %2 card(s)")
                                        .arg(who)
                                        .arg(cards.size());
                continue;
            }
            found = pc.index;
        }
        if (used.contains(found)) {
            out.problems << QStringLiteral("card %1: named twice in the plan").arg(who);
            continue;
        }
        used.insert(found);
        const NvmlCardReport &card = cards[found];
        const CardModel &model = catalogue.models()[pc.model];
        if (card.model != pc.model) {
            out.problems << QStringLiteral("card %1: it is a %2, the plan is for %3")
                                    .arg(who,
                                         card.model >= 0 ? catalogue.models()[card.model].name
                                                         : card.name,
                                         model.name);
            continue;
        }
        if (pc.expect) {
            QList<MigPlacement> now;
            for (const InstanceInfo &i : card.layout.instances)
                now << MigPlacement{i.profile, i.start};
            if (sorted(now) != sorted(*pc.expect) || !card.layoutProblems.isEmpty()) {
                QStringList have, want;
                for (const MigPlacement &p : sorted(now))
                    have << Catalogue::formatPlacement(model, p);
                for (const MigPlacement &p : sorted(*pc.expect))
                    want << Catalogue::formatPlacement(model, p);
                out.problems << QStringLiteral(
                                        "card %1: its layout is [%2], the plan was made for [%3]")
                                        .arg(who,
                                             have.join(QLatin1Char(' ')),
                                             want.join(QLatin1Char(' ')));
                continue;
            }
        }
        for (const PlanStep &s : pc.steps) {
            DeviceStep d;
            d.kind = s.kind;
            d.card = card.id;
            d.profile = s.placement.profile;
            d.start = s.placement.start;
            out.steps << d;
        }
    }
    if (!out.problems.isEmpty())
        out.steps.clear();
    return out;
}

} // namespace Zhaoxi::Device
