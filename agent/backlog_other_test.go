//go:build !linux

package agent

import "testing"

func unansweredAddress(*testing.T) (string, bool) { return "", false }
