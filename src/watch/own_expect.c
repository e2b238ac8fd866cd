// SPDX-License-Identifier: GPL-2.0-or-later
/* The own-change windows (own_expect.h). */
#include <string.h>

#include "own_expect.h"

static bool target_is(const struct own_target *t, const struct rn_id *id,
		      const char *name)
{
	return t->used && rn_id_equal(&t->id, id) && !strcmp(t->name, name);
}

static bool target_same(const struct own_target *t, const struct rn_id *id,
			const char *name, unsigned int kinds)
{
	return target_is(t, id, name) && t->kinds == kinds;
}

static bool target_open(const struct own_expect *x,
			const struct own_target *t)
{
	/* Until a drain begun after the end completes: see own_expect.h. */
	return t->active || x->done <= t->ended_at;
}

static bool stamp_moved(const struct own_stamp *was,
			const struct own_stamp *now)
{
	if (!was->set || !now || !now->set)
		return false;
	return was->ctime.tv_sec != now->ctime.tv_sec ||
	       was->ctime.tv_nsec != now->ctime.tv_nsec ||
	       was->size != now->size;
}

/* Events a stamp can tell apart: names are never compared. */
#define STAMP_KINDS (RN_EV_BIT(RN_EV_MODIFY) | RN_EV_BIT(RN_EV_ATTRIB) | \
		     RN_EV_BIT(RN_EV_CLOSE_WRITE))

/*
 * Is an event of kind that t matches the server's own? Yes while a change
 * to t is in progress; after it, only if the object kept the stamp it
 * left.
 */
static bool target_own(const struct own_expect *x, const struct own_target *t,
		       enum rn_event_kind kind, const struct own_stamp *now)
{
	if (!target_open(x, t))
		return false;
	if (t->active || !(RN_EV_BIT(kind) & STAMP_KINDS))
		return true;
	return !stamp_moved(&t->stamp, now);
}

/* Every target of the object (id, "") gets its last known stamp. */
static void stamp_spread(struct own_expect *x, const struct rn_id *id,
			 const struct own_stamp *s)
{
	for (unsigned int i = 0; i < OWN_EXPECT_MAX; i++)
		if (target_is(&x->t[i], id, ""))
			x->t[i].stamp = *s;
}

/* The object's last known stamp, unset if none. */
static struct own_stamp stamp_known(const struct own_expect *x,
				    const struct rn_id *id)
{
	struct own_stamp none = { 0 };

	for (unsigned int i = 0; i < OWN_EXPECT_MAX; i++)
		if (target_is(&x->t[i], id, "") && x->t[i].stamp.set)
			return x->t[i].stamp;
	return none;
}

static struct own_target *target_find(struct own_expect *x,
				      const struct rn_id *id,
				      const char *name, unsigned int kinds)
{
	for (unsigned int i = 0; i < OWN_EXPECT_MAX; i++)
		if (target_same(&x->t[i], id, name, kinds))
			return &x->t[i];
	return NULL;
}

/* A free slot, else the finished target that ended first. */
static struct own_target *target_slot(struct own_expect *x)
{
	struct own_target *best = NULL;

	for (unsigned int i = 0; i < OWN_EXPECT_MAX; i++) {
		struct own_target *t = &x->t[i];

		if (!t->used)
			return t;
		if (!t->active && (!best || t->ended_at < best->ended_at))
			best = t;
	}
	return best ? best : &x->t[0];
}

static bool name_ok(const char *name)
{
	size_t n = strnlen(name, NAME_MAX + 1);

	return n <= NAME_MAX && !strchr(name, '/');
}

void own_expect_begin(struct own_expect *x, const struct rn_id *id,
		      const char *name, unsigned int kinds)
{
	struct own_target *t;

	if (!name_ok(name))
		return;
	t = target_find(x, id, name, kinds);
	if (!t) {
		/* Read before a slot is picked: it may be the one reused. */
		struct own_stamp s = name[0] ? (struct own_stamp){ 0 } :
					       stamp_known(x, id);

		t = target_slot(x);
		memset(t, 0, sizeof(*t));
		t->used = true;
		t->id = *id;
		strcpy(t->name, name);
		t->kinds = kinds;
		t->stamp = s;
	}
	t->active++;
}

void own_expect_end(struct own_expect *x, const struct rn_id *id,
		    const char *name, unsigned int kinds,
		    const struct own_stamp *after)
{
	struct own_target *t = name_ok(name) ?
			       target_find(x, id, name, kinds) : NULL;

	if (!t || !t->active)
		return;
	t->active--;
	t->ended_at = x->begun;
	if (!after || !after->set)
		return;
	if (name[0])
		t->stamp = *after;
	else
		stamp_spread(x, id, after);
}

bool own_expect_match(const struct own_expect *x, const struct rn_id *id,
		      const char *name, enum rn_event_kind kind,
		      const struct own_stamp *now)
{
	for (unsigned int i = 0; i < OWN_EXPECT_MAX; i++)
		if (target_is(&x->t[i], id, name) &&
		    (x->t[i].kinds & RN_EV_BIT(kind)) &&
		    target_own(x, &x->t[i], kind, now))
			return true;
	return false;
}

void own_stamp_of(struct own_stamp *s, const struct stat *st)
{
	s->set = true;
	s->ctime = st->st_ctim;
	s->size = st->st_size;
}

void own_expect_drain_begin(struct own_expect *x)
{
	x->begun++;
}

void own_expect_drained(struct own_expect *x)
{
	x->done = x->begun;
	for (unsigned int i = 0; i < OWN_EXPECT_MAX; i++)
		if (x->t[i].used && !target_open(x, &x->t[i]))
			x->t[i].used = false;
}
