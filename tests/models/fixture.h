// SPDX-License-Identifier: GPL-3.0-or-later
// A small appliance day for the jobs table and the card map: one host with three whole H200
// cards (one NVLink domain) and an L40S.
//
//   00:00  gang-a (2 x H200, priority 10, checkpoints every 20 min) and solo-b (1 x H200,
//          priority 10, restarts from scratch) start; the L40S stays free.
//   00:05  urgent-p (2 x H200, priority 100) preempts gang-a at its next checkpoint (about
//          00:20) and reserves the host until then, so everything submitted meanwhile waits:
//   00:06  small-l (batch, 20 GiB, fits the L40S), mid-m (1 x H200, priority 50) and big-n
//          (batch, 60 GiB: more than an L40S has).
//   ~00:20 gang-a leaves, urgent-p starts; the others follow as room allows; urgent-p ends
//          two hours later.
#pragma once

#include "core/catalogue/catalogue.h"
#include "core/models/sessionclient.h"
#include "core/session/simulationsession.h"
#include "core/sim/scenario.h"

#include <QTest>

#include <memory>

namespace CardMapFixture {

using namespace Zhaoxi;

inline const char *scenarioJson()
{
    return R"({
    "name": "card map: three H200 and an L40S",
    "start": "2026-01-05T00:00:00Z",
    "duration": "4h",
    "seed": 7,
    "appliance": {
        "name": "map-test",
        "hosts": [
            {"name": "node", "cpu": 128, "memoryGiB": 1024,
             "cards": [{"model": "H200-141GB", "mode": "whole", "linkDomain": 0, "count": 3},
                       {"model": "L40S-48GB", "mode": "whole", "linkDomain": 1}]}
        ]
    },
    "training": [
        {"spec": {"name": "gang-a", "kind": "training",
                  "demand": {"compute": {"wholeCard": true}, "memoryGiB": 100, "cards": 2, "hostCpu": 8, "hostMemoryGiB": 64},
                  "time": {"expectedDuration": "10h"}, "priority": 10, "preemption": "checkpoint", "checkpointInterval": "20m",
                  "affinity": {"cardModels": ["H200-141GB"]}}, "restartCost": "1m"},
        {"spec": {"name": "solo-b", "kind": "training",
                  "demand": {"compute": {"wholeCard": true}, "memoryGiB": 100, "hostCpu": 4, "hostMemoryGiB": 32},
                  "time": {"expectedDuration": "10h"}, "priority": 10, "preemption": "restart",
                  "affinity": {"cardModels": ["H200-141GB"]}}, "restartCost": "1m"},
        {"spec": {"name": "urgent-p", "kind": "training",
                  "demand": {"compute": {"wholeCard": true}, "memoryGiB": 100, "cards": 2, "hostCpu": 8, "hostMemoryGiB": 64},
                  "time": {"expectedDuration": "2h"}, "priority": 100, "preemption": "checkpoint", "checkpointInterval": "20m",
                  "affinity": {"cardModels": ["H200-141GB"]}}, "submitAt": "5m", "restartCost": "1m"},
        {"spec": {"name": "small-l", "kind": "batch",
                  "demand": {"compute": {"wholeCard": true}, "memoryGiB": 20, "hostCpu": 2, "hostMemoryGiB": 8},
                  "time": {"expectedDuration": "1h"}, "priority": 5, "preemption": "restart"}, "submitAt": "6m", "restartCost": "30s"},
        {"spec": {"name": "mid-m", "kind": "training",
                  "demand": {"compute": {"wholeCard": true}, "memoryGiB": 100, "hostCpu": 4, "hostMemoryGiB": 32},
                  "time": {"expectedDuration": "1h"}, "priority": 50, "preemption": "restart",
                  "affinity": {"cardModels": ["H200-141GB"]}}, "submitAt": "6m", "restartCost": "30s"},
        {"spec": {"name": "big-n", "kind": "batch",
                  "demand": {"compute": {"wholeCard": true}, "memoryGiB": 60, "hostCpu": 2, "hostMemoryGiB": 8},
                  "time": {"expectedDuration": "1h"}, "priority": 5, "preemption": "restart"}, "submitAt": "6m", "restartCost": "30s"}
    ],
    "policy": {"default": "static", "static": {"inferenceShare": 0}}
})";
}

constexpr qint64 kMinute = 60'000;

// The cards of the scenario, by id.
constexpr int kH200a = 0;
constexpr int kH200b = 1;
constexpr int kH200c = 2; // solo-b's
constexpr int kL40S = 3;

inline Sim::Scenario scenario()
{
    static const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    Sim::ScenarioError error;
    const std::optional<Sim::Scenario> s = Sim::readScenario(QByteArray(scenarioJson()),
                                                             QStringLiteral("cardmap-test.json"),
                                                             QString(),
                                                             catalogue,
                                                             &error);
    if (!s)
        qFatal("test scenario: %s", qPrintable(error.toString()));
    return *s;
}

// A simulated appliance on the test's thread (commands answer before they return) and the
// GUI's handle on it.
struct Appliance
{
    Appliance()
        : session(scenario(), QString(), 7)
        , client(&session)
    {}

    Session::SimulationSession session;
    Models::SessionClient client;

    void runTo(qint64 sinceStartMs) { session.runTo(sinceStartMs); }
    const Session::Snapshot &now() const { return *client.snapshot(); }

    Domain::JobId job(const QString &name) const
    {
        for (const Sched::Job &j : now().state.jobs()) {
            if (j.spec.name == name)
                return j.id;
        }
        return Domain::JobId();
    }
    const Sched::Job &jobState(const QString &name) const
    {
        const Domain::JobId id = job(name);
        if (!id.isValid())
            qFatal("no job %s", qPrintable(name));
        return now().state.job(id);
    }
    // The cards a job is bound to (ids).
    QList<int> cardsOf(const QString &name) const
    {
        QList<int> cards;
        for (const Sched::Assignment &a : jobState(name).assignments)
            cards.append(a.card.value());
        return cards;
    }
};

} // namespace CardMapFixture
