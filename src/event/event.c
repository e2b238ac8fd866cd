// SPDX-License-Identifier: GPL-2.0-or-later
#include "event.h"

const char *rn_event_kind_name(enum rn_event_kind kind)
{
	switch (kind) {
	case RN_EV_CREATE:
		return "CREATE";
	case RN_EV_DELETE:
		return "DELETE";
	case RN_EV_MOVE:
		return "MOVE";
	case RN_EV_MODIFY:
		return "MODIFY";
	case RN_EV_ATTRIB:
		return "ATTRIB";
	case RN_EV_CLOSE_WRITE:
		return "CLOSE_WRITE";
	case RN_EV_OVERFLOW:
		return "OVERFLOW";
	}
	return "?";
}
