// SPDX-License-Identifier: GPL-2.0
/* placeholder: replaced by its owner */
#include "engine.h"
