// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace Zhaoxi::Storage {

namespace Sql {
class Connection;
}

// The store's schema and its history. Every file records its version in `schema_version`;
// opening a file of an earlier version runs each forward step in its own transaction
// (v1 -> v2 -> v3), so a crash mid-migration leaves the file at the last completed version.
//
//   v1  events (severity and source as text, no partition/actor), metrics as one text-keyed
//       table ("card/0/gpu-util"), state key/value.
//   v2  events gain partition_uid and actor (the actor is lifted out of operator events'
//       params), state gains updated_ms, decision_traces appear.
//   v3  events' severity and source become small integers, with indexes for the console's
//       queries (time; job, partial: a job's history over weeks; a card's is read through the
//       time index, which halved ingest when it had its own); metrics split into metric_series (with exporter
//       labels) and metric_samples with downsampling tiers (mean/min/max/count); a meta table
//       for the roll-up watermarks.
//   v4  operator events (the audit trail) are append-only: triggers refuse UPDATE and DELETE of
//       events with source 3.
namespace Schema {

constexpr int kCurrentVersion = 4;

// The file's version: 0 for an empty database, -1 when it has tables but no version (not a
// Zhaoxi store), or the recorded version.
int version(Sql::Connection &db, QString *error);
// Creates the current schema in an empty database.
bool create(Sql::Connection &db, QString *error);
// Brings a file of an earlier version up to kCurrentVersion. Refuses newer versions.
bool migrate(Sql::Connection &db, QString *error);

} // namespace Schema
} // namespace Zhaoxi::Storage
