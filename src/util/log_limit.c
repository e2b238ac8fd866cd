// SPDX-License-Identifier: GPL-2.0-or-later
/* Repeated log lines, rate-limited per message (log_limit.h). */
#include <stddef.h>

#include "log_limit.h"

static struct log_limit_slot *log_limit_slot(struct log_limit *l,
					     const char *fmt)
{
	struct log_limit_slot *free_slot = NULL;
	int i;

	for (i = 0; i < LOG_LIMIT_SLOTS; i++) {
		if (l->slot[i].fmt == fmt)
			return &l->slot[i];
		if (!l->slot[i].fmt && !free_slot)
			free_slot = &l->slot[i];
	}
	return free_slot;
}

bool log_limit_pass(struct log_limit *l, const char *fmt, double now,
		    unsigned long *held)
{
	struct log_limit_slot *s;
	bool pass = true;

	*held = 0;
	pthread_mutex_lock(&l->lock);
	s = log_limit_slot(l, fmt);
	if (s && s->fmt && now - s->last < LOG_LIMIT_INTERVAL) {
		s->held++;
		pass = false;
	} else if (s) {
		*held = s->held;
		*s = (struct log_limit_slot){ .fmt = fmt, .last = now };
	}
	pthread_mutex_unlock(&l->lock);
	return pass;
}

void log_limit_flush(struct log_limit *l,
		     void (*say)(const char *fmt, unsigned long held))
{
	int i;

	pthread_mutex_lock(&l->lock);
	for (i = 0; i < LOG_LIMIT_SLOTS; i++) {
		if (l->slot[i].fmt && l->slot[i].held)
			say(l->slot[i].fmt, l->slot[i].held);
		l->slot[i].held = 0;
	}
	pthread_mutex_unlock(&l->lock);
}
