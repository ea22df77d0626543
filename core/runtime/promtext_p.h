// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internals of promtext shared by its parts, not for other units: promtext.cpp reads an
// exposition (the tokenizer and the parser), promtext_window.cpp answers queries on what it read
// (quantiles, presets, the service window between two scrapes). Pure functions, any thread.

#include "promtext.h"

#include <QByteArrayView>
#include <QStringView>

#include <limits>
#include <optional>

namespace Zhaoxi::Runtime::PromDetail {

constexpr double inf = std::numeric_limits<double>::infinity();

// Servers write plain decimals ("12", "-0.5", "1.5e-3") nearly always: those are read in place;
// from_chars rounds exactly, as toDouble does. Anything else (a sign '+', "1.", Inf, blanks, an
// overflow) takes the slow path, whose grammar is the whole of ParseFloat's and toDouble's.
std::optional<double> parseFloat(QByteArrayView token);
// The same on a label value already made a QString (as parseFloat(value.toUtf8()) would).
std::optional<double> parseFloat(QStringView text);

} // namespace Zhaoxi::Runtime::PromDetail
