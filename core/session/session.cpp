// SPDX-License-Identifier: GPL-3.0-or-later
#include "session.h"

#include <QMetaType>

namespace Zhaoxi::Session {

void registerMetaTypes()
{
    qRegisterMetaType<SnapshotPtr>("Zhaoxi::Session::SnapshotPtr");
    qRegisterMetaType<PlacementPreview>("Zhaoxi::Session::PlacementPreview");
    qRegisterMetaType<LayoutPreview>("Zhaoxi::Session::LayoutPreview");
    qRegisterMetaType<CommandResult>("Zhaoxi::Session::CommandResult");
    qRegisterMetaType<ApplyMode>("Zhaoxi::Session::ApplyMode");
    qRegisterMetaType<QList<Domain::MigPlacement>>("QList<Zhaoxi::Domain::MigPlacement>");
}

} // namespace Zhaoxi::Session
