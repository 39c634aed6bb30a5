package agent

import (
	"strings"
	"testing"
)

// Whatever a caller sends, parseParams answers params or a misuse message, never panics, and a
// message always starts with the prefix the script throws it under.
func FuzzParams(f *testing.F) {
	f.Add(`{"url":"http://127.0.0.1/","timeout":"1d2h","requestedInputTokens":3,` +
		`"slo":[{"metric":"ttft","operator":"<","value":1}]}`)
	f.Add(`{"url":"x","headers":{"a":"b"},"idleTimeout":1.5,"keepText":true,"events":false,"pool":"vu-1"}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseParams([]byte(s))
		switch {
		case err != nil && !strings.HasPrefix(err.Error(), errPrefix):
			t.Fatalf("message %q lacks the prefix", err)
		case err == nil && (p == nil || p.url == "" || p.timeout < 0 || p.idleTimeout < 0):
			t.Fatalf("params %+v from %q", p, s)
		}
	})
}
