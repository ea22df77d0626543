// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// jsonTypeName() and jsonTypeNameWithArticle() now live with the shared JSON reader; this header
// stays for the code that includes it for them alone.
#include "core/domain/jsonreader.h"
