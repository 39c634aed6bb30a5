//go:build unix

package agent

import (
	"runtime"
	"syscall"
	"time"
)

// processCPUPerCore is the CPU time this process has used (user + system) divided by the cores it
// may use (GOMAXPROCS), in seconds; ok is false when the system does not say.
func processCPUPerCore() (seconds float64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return used.Seconds() / float64(runtime.GOMAXPROCS(0)), true
}
