// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clusterstate.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace Zhaoxi::Sched {

// An appliance as a file describes it: a name and the hosts with their cards and MIG layouts.
// Jobs, card health and host up/down are run-time facts and are not part of the file.
struct Appliance
{
    QString name;
    ClusterState state;
};

// Why an appliance file was refused: which file, where (the line and column of a JSON syntax
// error or a repeated key, else 0), which field (a JSON path such as
// "hosts[1].cards[0].layout[2]"; empty for the file as a whole) and why, in English (for logs and
// the command line; HOUSE_STYLE 4).
struct ApplianceError
{
    QString file;
    // Where a JSON syntax error was found (the offending character, or the last one of a file cut
    // short) or where a key is repeated; 0 for every other error.
    int line = 0;   // 1-based
    int column = 0; // 1-based, in characters (not bytes)
    QString field;
    QString message;
    // "file:line:column: field: message", leaving out the parts that are unknown.
    QString toString() const;
};

// The appliance file format. One JSON object; every key is checked and unknown keys are errors,
// so a misspelt key cannot silently drop a card. Duplicate keys are errors too. Names (the
// appliance's, hosts', card models') must not be blank, have white space around them, or hold a
// NUL, a control character or a lone UTF-16 surrogate.
//
//   name              string, required: the appliance's name, shown by the console
//   hosts             [object], required, at least one
//     name            string, required, unique in the appliance, e.g. "node-a"
//     cpu             number > 0, required: CPU cores (fractions down to 1/1000 core)
//     memoryGiB       number > 0, required: host memory in GiB (fractions down to 1 MiB)
//     cards           [object], optional (a host without cards serves CPU-only work); at most
//                     64 cards per host, counting repeats
//       model         string, required: a catalogue model name or alias, e.g. "H200-141GB"
//       mode          "whole" | "mig" | "time-slicing" | "mps", optional, default "whole";
//                     the model must support it
//       linkDomain    int >= 0, optional, default 0: cards of a host with the same value share a
//                     fast link (NVLink)
//       count         int 1..64, optional, default 1: the card is repeated this many times
//       layout        [string], optional, only in "mig" mode: the MIG instances, each
//                     "<profile>@<start>" (e.g. "3g.71gb@0"); the whole list must be a valid
//                     layout for the model (core/catalogue/layoutrules.h). Absent or empty: no
//                     instances yet.
//
// Reading is all-or-nothing and stops at the first problem. Pure functions: reentrant, any thread.

// Parses an appliance from the file's contents against `catalogue`. On failure returns nullopt
// and fills *error (if given); `fileName` only names the file in the error.
std::optional<Appliance> readAppliance(const QByteArray &json,
                                       const Catalogue::Catalogue &catalogue,
                                       const QString &fileName,
                                       ApplianceError *error);

// The same for an appliance object already parsed, e.g. the "appliance" block of a scenario
// (whose reader has parsed the text and looked for repeated keys). Fields are paths in `root`.
std::optional<Appliance> readApplianceObject(const QJsonObject &root,
                                             const Catalogue::Catalogue &catalogue,
                                             const QString &fileName,
                                             ApplianceError *error);

// Reads the file at `path` (a Qt resource path such as ":/appliances/demo.json" works too).
std::optional<Appliance> loadApplianceFile(const QString &path,
                                           const Catalogue::Catalogue &catalogue,
                                           ApplianceError *error);

// Writes the appliance in the format above, indented, with consecutive identical cards folded
// into one entry with "count". Writes the topology and the MIG layouts only (see Appliance).
// For an appliance read from a file, readAppliance(writeAppliance(a)) gives back an equal state.
QByteArray writeAppliance(const Appliance &appliance);

} // namespace Zhaoxi::Sched
