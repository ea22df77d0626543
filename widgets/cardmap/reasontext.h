// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/problem.h"
#include "core/sched/status.h"

#include <QString>

namespace Zhaoxi::Widgets {

// The console's words for the scheduler's codes (HOUSE_STYLE 4): one place that turns a
// Sched::Status (a Reason with its a/b parameters, see core/sched/status.h) into one plain,
// translated sentence with its numbers in units people read: memory in GiB, CPU in cores,
// compute in percent of a card, budgets in cards. E.g. CardMemoryTooSmall(40960, 16384) ->
// "Needs 40 GiB of card memory; this card offers at most 16 GiB."
//
// A success gives "It fits here."; an Error without a reason (the session could not answer:
// the job or card is gone, or the job is no longer waiting) gives a sentence that says so.
// Translation context: "Zhaoxi::Widgets::ReasonText". Pure; GUI thread (it uses tr()).
QString reasonText(const Sched::Status &status);

// Memory as people read it: "512 MiB", "16 GiB", "35.5 GiB". Context as above.
QString memoryAmountText(qint64 memoryMiB);

// A number with at most `decimals` decimals, trailing zeros dropped so whole numbers read as whole
// numbers: (40.0, 1) -> "40", (35.50, 2) -> "35.5". Not translated; thread-safe.
QString trimmedNumberText(double value, int decimals);

// Chinese sentences put together from translated parts: a space between two Chinese characters
// (or Chinese punctuation) is dropped ("需要 一张卡 的算力" -> "需要一张卡的算力"); the space
// between Chinese and a number or Latin word stays ("需要 0.5 张卡"). Other text is returned
// unchanged. Thread-safe.
QString tidyCjkSpacing(QString text);

// Compute in cards as people read it: "one card", "2.5 cards". Context as above.
QString cardsText(qint64 milliCards);

// A colocation policy's name in the console's words ("windows" -> "time windows"); an unknown
// name as it is. Context as above.
QString policyNameText(const QString &policy);
// A window's name: the schedule's own words, but the usual "day" and "night" in the console's
// language. Context as above.
QString windowNameText(const QString &window);

// A length of work as hours and minutes, "h:mm" (e.g. 5400000 ms -> "1:30"); negative as 0.
QString hoursMinutesText(qint64 ms);

// Why the appliance is read-only, in the console's words (Snapshot::readOnlyProblem): one
// sentence per read-only code; any other problem as "Read-only: " and its English.
QString readOnlyText(const Domain::Problem &reason);

} // namespace Zhaoxi::Widgets
