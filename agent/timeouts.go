package agent

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Error codes of an answer (docs/reference/agent-api.md, "The answer").
const (
	codeNone           = ""
	codeConnect        = "connect"
	codeConnectTimeout = "connect_timeout"
	codeHeaderTimeout  = "header_timeout"
	codeIdleTimeout    = "idle_timeout"
	codeTimeout        = "timeout"
	codeReset          = "reset"
	codeRead           = "read"
	codeLineTooLong    = "line_too_long"
	codeCancelled      = "cancelled"
	codeInvalid        = "invalid_request"
)

// endError is the cause a request's context is cancelled with, so the read that fails because of
// it can tell which limit fired (or that the script's onEvents threw).
type endError struct {
	code string
	msg  string
}

func (e *endError) Error() string { return e.msg }

// Phases of a request, for the one phase timer: a limit armed for a phase that has already
// passed (a late httptrace hook) must not fire.
const (
	phaseConnect = iota
	phaseWrite   // connected, writing the request: only the whole-request timeout applies
	phaseHead
	phaseBody
	phaseDone
)

// limits enforces connectTimeout, headerTimeout and idleTimeout on one request by cancelling its
// context with an *endError. The whole-request timeout is a plain timer owned by the request.
type limits struct {
	cancel  context.CancelCauseFunc
	base    time.Time
	connect time.Duration
	header  time.Duration
	idle    time.Duration

	mu    sync.Mutex
	phase int
	timer *time.Timer

	// lastRead is the time of the latest read, in ns since base: one atomic store per read
	// instead of a timer reset per read.
	lastRead atomic.Int64
}

// start arms the connect limit (the request starts in phaseConnect).
func (l *limits) start() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.connect > 0 {
		l.timer = time.AfterFunc(l.connect, func() {
			l.fire(phaseConnect, codeConnectTimeout,
				fmt.Sprintf("no connection within %s (connectTimeout)", l.connect))
		})
	}
}

// fire cancels the request if it is still in the phase the timer was armed for.
func (l *limits) fire(phase int, code, msg string) {
	l.mu.Lock()
	still := l.phase == phase
	l.mu.Unlock()
	if still {
		l.cancel(&endError{code: code, msg: msg})
	}
}

// enter moves to a later phase, stopping the previous phase's timer; moving back is ignored.
// It reports whether the phase changed.
func (l *limits) enter(phase int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if phase <= l.phase {
		return false
	}
	l.phase = phase
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	switch {
	case phase == phaseHead && l.header > 0:
		l.timer = time.AfterFunc(l.header, func() {
			l.fire(phaseHead, codeHeaderTimeout,
				fmt.Sprintf("no response headers within %s of the request (headerTimeout)", l.header))
		})
	case phase == phaseBody && l.idle > 0:
		l.touch(time.Now())
		l.timer = time.AfterFunc(l.idle, l.checkIdle)
	}
	return true
}

// touch records a read.
func (l *limits) touch(now time.Time) {
	l.lastRead.Store(int64(now.Sub(l.base)))
}

// checkIdle fires the idle limit, or re-arms itself for what is left since the last read.
func (l *limits) checkIdle() {
	quiet := time.Since(l.base) - time.Duration(l.lastRead.Load())
	if quiet >= l.idle {
		l.fire(phaseBody, codeIdleTimeout, fmt.Sprintf("no data read for %s (idleTimeout)", l.idle))
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.phase == phaseBody && l.timer != nil {
		l.timer.Reset(l.idle - quiet)
	}
}

// stop ends all limits.
func (l *limits) stop() {
	l.enter(phaseDone)
}
