// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/storage/event.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace Zhaoxi::Storage {
class Reader;
class Store;
} // namespace Zhaoxi::Storage

namespace Zhaoxi::Service {

// The operator audit trail: every action an operator asks for (done or refused) is a
// Source::Operator event with its actor, hash-chained so that a changed, removed or inserted
// event is found. The store refuses UPDATE and DELETE of operator events (schema v4); the chain
// catches a file edited by other means.
//
// Each event's params carry "prev" (the previous operator event's hash, "" for the first) and
// "hash": SHA-256, hex, over a versioned line of the event's fields (time, severity, code, card,
// partition, job, actor) and its params without "hash", in compact JSON with sorted keys.
//
// Threads: one AuditTrail per store, used by one thread (the service's).
class AuditTrail
{
public:
    // The chain's head in `reader`'s store: the hash of its last operator event ("" when none).
    // False with *error when the store cannot be read.
    static bool headOf(Storage::Reader &reader, QByteArray *head, QString *error);

    // Appends to `store`, continuing the chain from `head`.
    AuditTrail(Storage::Store &store, QByteArray head);

    // Records one operator event (its source is set to Operator; `params` gains prev and hash).
    // Returns the event's id in the store.
    qint64 record(Storage::Event event, QJsonObject params);
    QByteArray head() const { return m_head; }

    struct Verdict
    {
        bool intact = true;
        qint64 events = 0;    // operator events checked
        qint64 brokenAt = -1; // the id of the first event whose link is broken
        QString problem;      // English: what is wrong there
    };
    // Walks every operator event in append order and checks each link. False with *error when
    // the store cannot be read (a broken chain is a verdict, not an error).
    static bool verify(Storage::Reader &reader, Verdict *verdict, QString *error);

    // The hash of an event whose params (without "hash") are `params`.
    static QByteArray hashOf(const Storage::Event &event, const QJsonObject &params);

private:
    Storage::Store &m_store;
    QByteArray m_head;
};

} // namespace Zhaoxi::Service
