//go:build !linux

package agent

import "time"

// runDelay: the run-queue wait is read on Linux only; elsewhere every late wake counts as a stall.
type runDelay struct{}

func newRunDelay() *runDelay { return &runDelay{} }

func (*runDelay) read() time.Duration { return 0 }
