// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// QCustomPlot's header says `signals:` and `foreach`, which the build's QT_NO_KEYWORDS takes
// away: lend them for the include only. Include this instead of <qcustomplot.h>.
#ifdef QT_NO_KEYWORDS
#define signals Q_SIGNALS
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef foreach
#else
#include <qcustomplot.h>
#endif
