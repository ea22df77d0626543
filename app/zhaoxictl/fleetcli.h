// SPDX-License-Identifier: GPL-3.0-or-later
// What every `zhaoxictl fleet` subcommand shares: the connection options and one read of the
// cluster. The subcommands live in cmd_fleet.cpp (show, submit), cmd_fleetjobs.cpp (cancel,
// requeue, priority) and cmd_fleetplan.cpp (windows, repartition).
#pragma once

#include "cli.h"

#include "core/fleet/fleetstate.h"
#include "core/fleet/slurmrest.h"

#include <QString>
#include <QUrl>

#include <memory>
#include <optional>

namespace Zhaoxi::Cli {

struct FleetConnection
{
    QUrl url;
    QString user;
    QString tokenFile;
    int timeoutMs = 10000;
};

// $USER, $LOGNAME, else the effective user's account name; empty when none is known.
QString currentUserName();

// Reads --rest, --token-file, --user and --timeout (the options every fleet command takes) and
// refuses any option not read so far; false (the reason printed on io.err, exit code 2) when one
// is wrong or missing. Call it after reading the command's own options (Args knows an option once
// it has been asked for).
bool readFleetConnection(Args &args, const char *command, Io &io, FleetConnection *out);

// A client for `conn`, its timeout set.
std::unique_ptr<Fleet::SlurmRestClient> fleetClient(const FleetConnection &conn);

// Reads the whole cluster once and maps it; nullopt with the reason on io.err (exit code 1).
std::optional<Fleet::FleetState> readFleet(Fleet::SlurmRestClient &client,
                                           const char *command,
                                           Io &io);

// The subcommands in other files.
int runFleetJobAction(Args &args, Io &io);   // cancel JOB | requeue JOB | priority JOB N
int runFleetWindows(Args &args, Io &io);     // windows SCHEDULE.json
int runFleetRepartition(Args &args, Io &io); // repartition NODE ...

} // namespace Zhaoxi::Cli
