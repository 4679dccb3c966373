/* SPDX-License-Identifier: Apache-2.0 */
/* Kathleen Nichols' windowed min/max filter (Linux lib/win_minmax.c semantics): the best,
 * second-best and third-best samples of the last `win` time units, so that the estimate
 * ages out without storing every sample. BBR keys it by round count, rtt_min by jiffies. */
#include <kbpf/tcp.h>

/* Age the three samples: once the best is older than the window, promote the others;
 * keep the 2nd/3rd from going stale within the window's quarter/half. */
static __u32 minmax_subwin_update(struct minmax *m, __u32 win, const struct minmax_sample *val)
{
	__u32 dt = val->t - m->s[0].t;

	if (dt > win) {
		m->s[0] = m->s[1];
		m->s[1] = m->s[2];
		m->s[2] = *val;
		if (val->t - m->s[0].t > win) {
			m->s[0] = m->s[1];
			m->s[1] = m->s[2];
			m->s[2] = *val;
		}
	} else if (m->s[1].t == m->s[0].t && dt > win / 4) {
		m->s[2] = m->s[1] = *val;
	} else if (m->s[2].t == m->s[1].t && dt > win / 2) {
		m->s[2] = *val;
	}
	return m->s[0].v;
}

__u32 minmax_running_max(struct minmax *m, __u32 win, __u32 t, __u32 meas)
{
	struct minmax_sample val = { .t = t, .v = meas };

	if (val.v >= m->s[0].v || val.t - m->s[2].t > win)
		return minmax_reset(m, t, meas);
	if (val.v >= m->s[1].v)
		m->s[2] = m->s[1] = val;
	else if (val.v >= m->s[2].v)
		m->s[2] = val;
	return minmax_subwin_update(m, win, &val);
}

__u32 minmax_running_min(struct minmax *m, __u32 win, __u32 t, __u32 meas)
{
	struct minmax_sample val = { .t = t, .v = meas };

	if (val.v <= m->s[0].v || val.t - m->s[2].t > win)
		return minmax_reset(m, t, meas);
	if (val.v <= m->s[1].v)
		m->s[2] = m->s[1] = val;
	else if (val.v <= m->s[2].v)
		m->s[2] = val;
	return minmax_subwin_update(m, win, &val);
}
