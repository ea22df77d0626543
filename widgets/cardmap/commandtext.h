// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/problem.h"
#include "core/sched/status.h"

#include <QString>

namespace Zhaoxi::Widgets {

// The console's words for why a session refused a job command (CommandResult::error,
// JobLog::error). The sessions answer in English (HOUSE_STYLE 4: the core speaks codes and
// English log lines); their fixed phrases about jobs ("no job 7", "job 7 is not running",
// "job 7 is not waiting", "job 7 has ended") come back as one translated sentence, anything
// else (a reader's message about a spec, an operating system error) as it is, as the sentence's
// last word would be unclear if rephrased. Translation context "Zhaoxi::Widgets::CommandText".
// Pure; GUI thread (it uses tr()).
QString commandErrorText(const QString &error);

// The console's words for why the appliance refused a command, a preview or a log
// (Domain::Problem, e.g. Session::problemOf(result)): one translated sentence per code with its
// parameters; a scheduling refusal in the scheduler's words (reasonText of `status` when it has a
// reason); a read-only code as readOnlyText; Code::Text (a component without codes, or an older
// service's English) through commandErrorText. Context as above.
QString problemText(const Domain::Problem &problem, const Sched::Status &status = {});

// The console's words for the workload spec reader's fixed messages about one field ("must not
// be empty", "required", ...); any other message as it is. Context as above.
QString specProblemText(const QString &message);

} // namespace Zhaoxi::Widgets
