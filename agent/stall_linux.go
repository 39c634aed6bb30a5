package agent

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// runDelay reads how long the calling thread has waited in the kernel's run queue (the second figure of
// /proc/self/task/<tid>/schedstat): time it was ready but another task had the core, which is the machine being
// busy, not stalled. The thread must stay the same (runtime.LockOSThread).
type runDelay struct {
	file *os.File
	buf  [128]byte
}

func newRunDelay() *runDelay {
	f, err := os.Open("/proc/self/task/" + strconv.Itoa(syscall.Gettid()) + "/schedstat")
	if err != nil {
		return &runDelay{} // no schedstat (a kernel without it): every late wake counts
	}
	return &runDelay{file: f}
}

// read is the thread's run-queue wait so far; 0 when the kernel does not say.
func (r *runDelay) read() time.Duration {
	if r.file == nil {
		return 0
	}
	n, err := r.file.ReadAt(r.buf[:], 0)
	if n == 0 && err != nil {
		return 0
	}
	fields := bytes.Fields(r.buf[:n])
	if len(fields) < 2 {
		return 0
	}
	ns, err := strconv.ParseInt(string(fields[1]), 10, 64)
	if err != nil {
		return 0
	}
	return time.Duration(ns)
}
