// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the mig-parted sources; not part of the library's interface.
#pragma once

#include <QString>
#include <QStringView>

namespace Zhaoxi::Catalogue::Detail {

// A device-filter value as mig-parted spells it: "0x233510DE" (device << 16 | vendor).
QString hexFilter(quint32 id);
// Input quoted in a message: a fuzzed file may hold megabytes on one line.
QString excerpt(QStringView s);

} // namespace Zhaoxi::Catalogue::Detail
