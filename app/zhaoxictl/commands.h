// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cli.h"

namespace Zhaoxi::Cli {

using CommandFn = int (*)(const QStringList &args, Io &io);

struct Command
{
    const char *name;
    const char *synopsis;
    CommandFn run;
};

int runCatalogue(const QStringList &args, Io &io);   // cmd_catalogue.cpp
int runLayouts(const QStringList &args, Io &io);     // cmd_catalogue.cpp
int runCheckLayout(const QStringList &args, Io &io); // cmd_catalogue.cpp
int runPlaceBench(const QStringList &args, Io &io);  // cmd_placebench.cpp

inline const Command kCommands[] = {
    {"catalogue", "catalogue [--json]  list card models and their partition profiles", runCatalogue},
    {"layouts", "layouts --model NAME [--profiles P1,P2,...] [--json]  every maximal MIG layout", runLayouts},
    {"check-layout", "check-layout --model NAME PROFILE@START ...  is this MIG layout valid, or why not", runCheckLayout},
    {"place-bench", "place-bench --nodes FILE --pods FILE --policy NAME --seed N|--seeds A-B [--tune 1.3] [--json]  FGD protocol replay", runPlaceBench},
};

} // namespace Zhaoxi::Cli
