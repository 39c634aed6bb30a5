//go:build linux

package agent

import (
	"net"
	"syscall"
	"testing"
	"time"
)

// unansweredAddress is a loopback address where a connect hangs: a listener with a backlog of 0
// that never accepts, its queue filled, so the kernel drops the next SYN.
func unansweredAddress(t *testing.T) (string, bool) {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	if syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}) != nil || syscall.Listen(fd, 0) != nil {
		return "", false
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return "", false
	}
	addr := net.JoinHostPort("127.0.0.1", itoa(sa.(*syscall.SockaddrInet4).Port)) //nolint:forcetypeassert // bound AF_INET
	for range 8 {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			return "http://" + addr + "/", true // the queue is full: the next connect hangs too
		}
		t.Cleanup(func() { _ = c.Close() })
	}
	return "", false
}
