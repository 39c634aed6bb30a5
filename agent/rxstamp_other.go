//go:build !(linux && (amd64 || arm64 || ppc64 || ppc64le || riscv64 || s390x || loong64 || mips64 || mips64le))

package agent

import (
	"net"
	"time"
)

// withRxStamps returns the connection as it is: kernel receive times (SO_TIMESTAMPNS) are read
// on 64-bit Linux only, and elsewhere events are stamped when Go reads them.
func withRxStamps(c net.Conn) net.Conn { return c }

// rxConn is never made here; the type keeps the callers portable.
type rxConn struct{ net.Conn }

func (*rxConn) lastArrival() time.Time { return time.Time{} }

// kernelTimestamps: events carry the time the agent read them here.
const kernelTimestamps = false
