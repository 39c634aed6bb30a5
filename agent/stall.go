package agent

import (
	"runtime"
	"sync"
	"time"
)

// The stall meter: a goroutine that wakes every stallTick and keeps the stretches in which it did not run though it
// was not waiting for a core either (stall_linux.go reads the kernel's run-queue wait of its thread). Those are the
// machine's: a paused or starved VM, a stopped process. The kernel's receive times are stamped by the same machine,
// so a stall moves them too, and no read lag shows it: the bytes wait outside the VM, not in the socket
// (docs/design/client-integrity.md). Each answer carries the longest stall within its request (Health.StallMs).

// stallTick is how often the meter wakes: stalls are measured to about this, at 200 wake-ups a second.
const stallTick = 5 * time.Millisecond

// stallMin is the least oversleep kept: below it are the timer's and the scheduler's ordinary wake-up delays.
const stallMin = 2 * time.Millisecond

// stallKeep is how many stalls are kept, newest first out of the ring's end; a request longer than the span of the
// last stallKeep stalls gets the longest of those.
const stallKeep = 1024

// stall is a stretch the meter did not run: from when it was due to wake to when it woke.
type stall struct{ from, to time.Time }

type stallMeter struct {
	mu sync.Mutex
	// last is the meter's latest wake; zero until it started.
	last   time.Time
	ring   [stallKeep]stall
	stalls int
}

// meter is the process's stall meter, started by the first NewServer.
var (
	meter      stallMeter
	meterStart sync.Once
)

// startStallMeter starts the process's meter once; it runs for the process's life.
func startStallMeter() {
	meterStart.Do(func() {
		meter.woke(time.Now(), 0)
		go meter.run()
	})
}

// run wakes every stallTick on a thread of its own, whose run-queue wait it reads (runDelay).
func (m *stallMeter) run() {
	runtime.LockOSThread()
	delay := newRunDelay()
	waited := delay.read()
	for {
		time.Sleep(stallTick)
		now := time.Now()
		queued := delay.read()
		m.woke(now, stallTick+(queued-waited))
		waited = queued
	}
}

// woke records a wake at now, expected `due` after the last one (the tick, plus the time the meter's thread waited
// in the run queue): anything later by stallMin or more is a stall.
func (m *stallMeter) woke(now time.Time, due time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.last.IsZero() && now.Sub(m.last)-due >= stallMin {
		m.ring[m.stalls%stallKeep] = stall{from: m.last.Add(due), to: now}
		m.stalls++
	}
	m.last = now
}

// longest is the longest stall within [from, to], as far as the meter has seen, and whether the meter runs. A stall
// the meter has not yet woken from (its last wake more than a tick before `to`) counts up to `to`.
func (m *stallMeter) longest(from, to time.Time) (time.Duration, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.last.IsZero() {
		return 0, false
	}
	var worst time.Duration
	within := func(s stall) {
		start, end := s.from, s.to
		if from.After(start) {
			start = from
		}
		if to.Before(end) {
			end = to
		}
		if d := end.Sub(start); d > worst {
			worst = d
		}
	}
	if due := m.last.Add(stallTick); to.Sub(due) >= stallMin {
		within(stall{from: due, to: to})
	}
	for i := m.stalls - 1; i >= 0 && i >= m.stalls-stallKeep; i-- {
		s := m.ring[i%stallKeep]
		if s.to.Before(from) {
			break // the ring is in time order: every older stall ended before the request
		}
		within(s)
	}
	return worst, true
}
