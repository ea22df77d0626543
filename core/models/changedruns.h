// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QtGlobal>

namespace Zhaoxi::Models {

// The batching of HOUSE_STYLE 8, shared by the table models: asks `update(i)` for rows
// [0, count) whether the row changed (it updates the row as it goes) and calls
// `changedRun(first, last)` once per run of consecutive changed rows, in order.
template<typename Update, typename ChangedRun>
void forEachChangedRun(qsizetype count, Update update, ChangedRun changedRun)
{
    qsizetype runStart = -1;
    for (qsizetype i = 0; i <= count; ++i) {
        if (i < count && update(i)) {
            if (runStart < 0)
                runStart = i;
        } else if (runStart >= 0) {
            changedRun(int(runStart), int(i - 1));
            runStart = -1;
        }
    }
}

} // namespace Zhaoxi::Models
