// SPDX-License-Identifier: GPL-3.0-or-later
#include "commands.h"
namespace Zhaoxi::Cli {
int runPlaceBench(const QStringList &, Io &io)
{
    io.err << "place-bench: under construction\n";
    return 2;
}
}
