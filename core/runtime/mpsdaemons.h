// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "binding.h"

#include "core/sched/clusterstate.h"

#include <QHash>
#include <QString>
#include <QStringList>

#include <functional>

namespace Zhaoxi::Runtime {

// One NVIDIA MPS control daemon per card in MPS mode (NVIDIA's MPS documentation): started with
// `nvidia-cuda-mps-control -d` in the card's own pipe and log directories and the card's UUID,
// never an index, in its CUDA_VISIBLE_DEVICES (an index would be renumbered); stopped with
// `quit` on its control pipe when the card leaves MPS mode. Clients find it through the same two
// directories (bindJob puts them in their environment).
//
// On simulated cards (`controlPath` empty) the same lifecycle runs without the binary: the
// directories are made and removed, and each start and stop is reported the same way, so the
// whole path is exercised without a GPU.
//
// The daemon serves one user id at a time: a client of another account would wait until the
// running server's clients are done. clientUser() says whom a card's daemon serves while it has
// clients; the launcher refuses a second account on it.
//
// Single thread: the runtime's.
class MpsDaemons
{
public:
    struct Options
    {
        QString rootDir;     // <rootDir>/<card uuid>/{pipe,log}
        QString controlPath; // nvidia-cuda-mps-control; empty: simulated cards
        std::function<QString(Domain::CardId)> cardUuid;
    };
    explicit MpsDaemons(Options options);

    // Makes the daemons follow the cards' modes: started for each card now in MPS mode, stopped
    // for each that left it. Returns one line per change ("started card 3 (GPU-…)", "stopped
    // …", or "failed to start …: why") for the caller's events.
    QStringList follow(const Sched::ClusterState &state);
    // Stops every daemon (at the end of a run).
    QStringList stopAll();

    MpsDirs dirs(Domain::CardId card) const;
    bool running(Domain::CardId card) const { return m_running.contains(card.value()); }

    // The account the card's daemon serves now (empty: none, or no clients).
    QString clientUser(Domain::CardId card) const { return m_users.value(card.value()); }
    void addClient(Domain::CardId card, const QString &user);
    void removeClient(Domain::CardId card, const QString &user);

private:
    bool start(Domain::CardId card, QString *why);
    void stop(Domain::CardId card);

    Options m_options;
    QHash<int, QString> m_running; // card -> its uuid
    QHash<int, QString> m_users;   // card -> the account of its clients
    QHash<int, int> m_clients;     // card -> clients bound
};

} // namespace Zhaoxi::Runtime
