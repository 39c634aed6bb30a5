//go:build linux && (amd64 || arm64 || ppc64 || ppc64le || riscv64 || s390x || loong64 || mips64 || mips64le)

package agent

import (
	"encoding/binary"
	"io"
	"net"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// rxConn is a TCP connection that reads with recvmsg and keeps the kernel's receive time
// (SO_TIMESTAMPNS) of the latest bytes read. The kernel stamps a segment when it reaches the
// socket, so a reader goroutine that the Go scheduler runs late, or another process that holds
// the core, still gets the time the token arrived. Writes and everything else go to the wrapped
// connection.
type rxConn struct {
	net.Conn // the TCP connection, for everything but Read
	raw      syscall.RawConn

	oob [64]byte // the latest read's ancillary data

	mu      sync.Mutex
	arrival time.Time // receive time of the latest read, on the monotonic clock; zero when unknown
}

// kernelTimestamps: events carry the kernel's receive times here.
const kernelTimestamps = true

// maxRxDelay bounds a receive time's age: an older one means the wall clock stepped between the
// kernel's stamp and the read, and the read's own time is used instead.
const maxRxDelay = time.Minute

// stampingKeeper is a socket that asks for receive stamps and stays open for the life of the
// process. Linux stamps received packets only while some socket asks, and turns stamping on a
// moment after the first one does (a deferred switch): without it, the first events after a
// run's first connect, or after every connection closed between iterations, would fall back to
// read times.
var stampingKeeper sync.Once

func keepStampingOn() {
	stampingKeeper.Do(func() {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return
		}
		if syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1) != nil {
			_ = syscall.Close(fd)
		}
	})
}

// withRxStamps wraps a TCP connection so that reads carry the kernel's receive time. Any other
// connection, or a socket that refuses the option, is returned as it is and its events are stamped
// when read.
func withRxStamps(c net.Conn) net.Conn {
	tcp, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		return c
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return c
	}
	keepStampingOn()
	return &rxConn{Conn: c, raw: raw}
}

// Read reads like net.Conn.Read (deadlines included: RawConn.Read honours them) and records the
// receive time of the bytes it returns.
func (c *rxConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n, oobn int
	var rerr error
	// oob is only touched here, and a connection is read by one goroutine at a time; mu guards
	// arrival alone, so lastArrival never waits for a read in progress.
	err := c.raw.Read(func(fd uintptr) bool {
		n, oobn, rerr = recvmsg(int(fd), b, c.oob[:])
		return rerr != syscall.EAGAIN
	})
	if err == nil {
		err = rerr
	}
	if err != nil {
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	if n == 0 {
		return 0, io.EOF
	}
	now := time.Now()
	arrival := now
	if wall, ok := kernelStamp(c.oob[:oobn]); ok {
		arrival = arrivalOnMonotonic(now, wall)
	}
	c.mu.Lock()
	c.arrival = notBefore(arrival, c.arrival)
	c.mu.Unlock()
	return n, nil
}

// notBefore is arrival, or previous when arrival lies before it. A socket's bytes arrive in the
// order they are read, but each kernel stamp is placed on the monotonic clock through two clock
// readings (now's wall and monotonic parts), and one read's bytes arriving a moment after the
// last could land up to a microsecond before them: an ITL of -0.0001 ms, and a TPOT of -1e-6 ms
// where every token came in one read, whose cell's k6 threshold max>=0 then failed (CI, 2026-12-07).
func notBefore(arrival, previous time.Time) time.Time {
	if arrival.Before(previous) {
		return previous
	}
	return arrival
}

// lastArrival is the receive time of the bytes the latest Read returned, or the zero time.
func (c *rxConn) lastArrival() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.arrival
}

// arrivalOnMonotonic places a kernel receive time (wall clock) on now's monotonic clock: now
// minus the wall-clock age of the stamp. A stamp from the future or older than maxRxDelay
// means the wall clock moved; now is returned.
func arrivalOnMonotonic(now, wall time.Time) time.Time {
	age := now.Round(0).Sub(wall)
	if age < 0 || age > maxRxDelay {
		return now
	}
	return now.Add(-age)
}

// kernelStamp finds the SCM_TIMESTAMPNS control message in a recvmsg's ancillary data. Parsed
// by hand, because syscall.ParseSocketControlMessage allocates on every read.
func kernelStamp(oob []byte) (time.Time, bool) {
	const hdr = int(unsafe.Sizeof(syscall.Cmsghdr{}))
	for len(oob) >= hdr {
		length := binary.NativeEndian.Uint64(oob[0:8])
		level := int32(binary.NativeEndian.Uint32(oob[8:12]))
		typ := int32(binary.NativeEndian.Uint32(oob[12:16]))
		if length < uint64(hdr) || length > uint64(len(oob)) {
			return time.Time{}, false
		}
		data := oob[hdr:length]
		if level == syscall.SOL_SOCKET && typ == syscall.SCM_TIMESTAMPNS && len(data) >= 16 {
			sec := int64(binary.NativeEndian.Uint64(data[0:8]))
			nsec := int64(binary.NativeEndian.Uint64(data[8:16]))
			return time.Unix(sec, nsec), true
		}
		next := (int(length) + 7) &^ 7 // control messages are 8-byte aligned on 64-bit Linux
		if next >= len(oob) {
			break
		}
		oob = oob[next:]
	}
	return time.Time{}, false
}

// recvmsg is one recvmsg(2) into p with ancillary data into oob, without the allocations of
// syscall.Recvmsg (a source address a TCP socket never has).
func recvmsg(fd int, p, oob []byte) (n, oobn int, err error) {
	iov := syscall.Iovec{Base: &p[0]}
	iov.SetLen(len(p))
	msg := syscall.Msghdr{Iov: &iov, Iovlen: 1, Control: &oob[0]}
	msg.SetControllen(len(oob))
	for {
		r, _, errno := syscall.Syscall(syscall.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), 0)
		switch errno {
		case 0:
			return int(r), int(msg.Controllen), nil
		case syscall.EINTR:
			continue
		default:
			return 0, 0, errno
		}
	}
}
