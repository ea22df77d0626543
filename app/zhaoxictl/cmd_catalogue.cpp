// SPDX-License-Identifier: GPL-3.0-or-later
#include "commands.h"
namespace Zhaoxi::Cli {
int runCatalogue(const QStringList &, Io &io) { io.err << "under construction\n"; return 2; }
int runLayouts(const QStringList &, Io &io) { io.err << "under construction\n"; return 2; }
int runCheckLayout(const QStringList &, Io &io) { io.err << "under construction\n"; return 2; }
}
