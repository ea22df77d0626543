// SPDX-License-Identifier: GPL-3.0-or-later
// The repartition editor's tests' appliance: the demo day (8 H200 cards in MIG and 3 soft-sliced
// L40S) simulated on the test's thread at a chosen moment, behind a SessionClient
// (tst_repartitioneditor: editing; tst_repartitionapply: applying).
#pragma once

#include "core/catalogue/catalogue.h"
#include "core/models/sessionclient.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"
#include "widgets/repartition/layoutedit.h"

#include "tests/data/scenarios.h"

#include <QtGlobal>

#include <memory>
#include <optional>

namespace RepartitionFixture {

using namespace Zhaoxi;
using Domain::CardId;
using Domain::MigPlacement;
using Layout = QList<MigPlacement>;
namespace LayoutEdit = Widgets::LayoutEdit;

inline constexpr qint64 kHour = 3600 * 1000;
inline constexpr qint64 kMinute = 60 * 1000;

using TestData::demoDay;

// A simulated appliance at a moment of the demo day, with the GUI thread's handle on it (same
// thread: a command runs inside the call, its answer comes from the event loop after it).
struct Appliance
{
    explicit Appliance(qint64 sinceStartMs)
        : session(demoDay(), QString(), demoDay().seed)
    {
        session.runTo(sinceStartMs);
        client = std::make_unique<Models::SessionClient>(&session);
    }
    Session::SnapshotPtr snapshot() const { return client->snapshot(); }
    qint64 sinceStart() const { return snapshot()->nowMs - snapshot()->startMs; }
    const Sched::CardState &card(CardId id) const { return snapshot()->state.card(id); }
    const Domain::CardModel &model(CardId id) const { return snapshot()->state.model(card(id)); }
    Layout layout(CardId id) const
    {
        return LayoutEdit::sorted(
                LayoutEdit::layoutOf(LayoutEdit::currentUnits(snapshot()->state, id)));
    }
    // The first healthy MIG card `accept` agrees to.
    template<typename Accept>
    CardId findCard(Accept accept) const
    {
        for (const Sched::CardState &c : snapshot()->state.cards()) {
            if (c.mode == Domain::PartitionMode::Mig && c.health == Sched::CardHealth::Healthy
                && accept(c))
                return c.id;
        }
        return CardId();
    }
    CardId firstH200() const
    {
        return findCard([](const Sched::CardState &) { return true; });
    }

    Session::SimulationSession session;
    std::unique_ptr<Models::SessionClient> client;
};

inline int profileIndex(const Domain::CardModel &model, const char *name)
{
    const int i = model.profileIndex(QString::fromLatin1(name));
    if (i < 0)
        qFatal("no profile %s on %s", name, qPrintable(model.name));
    return i;
}

inline QString format(const Domain::CardModel &model, const Layout &layout)
{
    return LayoutEdit::placementList(model, layout);
}

} // namespace RepartitionFixture
