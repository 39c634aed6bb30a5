package agent

import (
	"time"
)

// maxHandoff bounds a believable hand-off: a larger one means the two wall clocks disagree (a
// step between the caller's reading and ours), and none is counted.
const maxHandoff = time.Minute

// handoffMs is how long the call took to reach the request's start, in ms: from the caller's wall
// clock at the call (callEpochMs) to start on ours. It covers the caller writing the call, the
// loopback, and the agent reading and parsing the params, which an open-loop schedule must count
// as the request's lateness. A reading a little below zero is the caller's clock resolution, and
// counts as 0; ok is false without a caller's clock or with clocks that disagree.
func handoffMs(p *params, start time.Time) (ms float64, ok bool) {
	if !p.hasCallEpoch {
		return 0, false
	}
	ms = float64(start.UnixNano())/float64(time.Millisecond) - p.callEpochMs
	if ms > float64(maxHandoff/time.Millisecond) || ms < -float64(maxHandoff/time.Millisecond) {
		return 0, false
	}
	return max(ms, 0), true
}
