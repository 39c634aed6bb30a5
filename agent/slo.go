package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// sloLimit is one limit of params.slo: the request's own value of metric must satisfy
// `value <op> limit`, in the metric's unit (ms for times, tokens/s for decodeSpeed).
type sloLimit struct {
	metric string
	op     string
	value  float64
}

// The figures a limit may name: those of a use case's limits (thresholds/use-cases.ts).
const (
	sloTTFT        = "ttft"
	sloTTFC        = "ttfc"
	sloE2E         = "e2e"
	sloDecodeSpeed = "decodeSpeed"
	sloITL         = "itl"
	sloTPOT        = "tpot"
)

// The metrics and operators a limit may name.
var (
	sloMetrics   = []string{sloTTFT, sloTTFC, sloE2E, sloDecodeSpeed, sloITL, sloTPOT}
	sloOperators = []string{"<", "<=", ">", ">="}
)

// parseSLO reads params.slo: an array of { metric, operator, value }; absent or null means no
// limits (no goodput is judged). Other fields of a limit (a label) are ignored.
func parseSLO(raw json.RawMessage) ([]sloLimit, bool, error) {
	if nullish(raw) {
		return nil, false, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, false, errors.New(errPrefix + "params.slo must be an array of { metric, operator, value }")
	}
	out := make([]sloLimit, 0, len(items))
	for i, item := range items {
		l, err := parseSLOLimit(item, i)
		if err != nil {
			return nil, false, err
		}
		out = append(out, l)
	}
	return out, true, nil
}

func parseSLOLimit(raw json.RawMessage, i int) (sloLimit, error) {
	what := fmt.Sprintf("%sparams.slo[%d]", errPrefix, i)
	var obj map[string]json.RawMessage
	if nullish(raw) || json.Unmarshal(raw, &obj) != nil {
		return sloLimit{}, fmt.Errorf("%s must be an object { metric, operator, value }", what)
	}
	var l sloLimit
	for _, f := range []struct {
		name    string
		allowed []string
		dst     *string
	}{{"metric", sloMetrics, &l.metric}, {"operator", sloOperators, &l.op}} {
		x := obj[f.name]
		var s string
		if json.Unmarshal(x, &s) != nil || !slices.Contains(f.allowed, s) {
			return sloLimit{}, fmt.Errorf("%s.%s %s is not one of: %s", what, f.name, shown(x), strings.Join(f.allowed, ", "))
		}
		*f.dst = s
	}
	v := obj["value"]
	if nullish(v) || json.Unmarshal(v, &l.value) != nil {
		return sloLimit{}, fmt.Errorf("%s.value must be a number in the metric's unit (ms, or tokens/s for decodeSpeed)",
			what)
	}
	if math.IsNaN(l.value) || math.IsInf(l.value, 0) {
		return sloLimit{}, fmt.Errorf("%s.value must be a finite number, got %v", what, l.value)
	}
	return l, nil
}

// shown writes a JSON value for an error message: as it was sent, absent values named.
func shown(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "(missing)"
	}
	return string(bytes.TrimSpace(raw))
}

// judgeGoodput says whether a request met every limit, judged on its own figures: false for a
// failed request (a failed request is not good), else true when every limit holds. ITL is judged
// on the request's mean ITL (its llm_itl samples averaged: the time from its first to its last
// token over the tokens between), the per-request form of the cell mean that limitStat "avg"
// checks; a stall raises it in proportion to its length. A figure the request does not have
// (ITL, TPOT and decode speed below 2 output tokens) is not judged: it gives no sample to the
// cell's figure either.
func judgeGoodput(r *Record, limits []sloLimit) bool {
	if r.Outcome != outcomeCompleted {
		return false
	}
	for _, l := range limits {
		v := sloValue(r, l.metric)
		if v.ok && !holds(v.value, l.op, l.value) {
			return false
		}
	}
	return true
}

// sloValue is the request's own value of a limit's metric.
func sloValue(r *Record, metric string) optional {
	switch metric {
	case sloTTFT:
		return some(r.TTFTMs, true)
	case sloTTFC:
		return r.TTFCMs
	case sloE2E:
		return some(r.E2EMs, true)
	case sloDecodeSpeed:
		return r.DecodeSpeed
	case sloTPOT:
		return r.TPOTMs
	case sloITL:
		return meanOf(r.ITLMs)
	}
	return optional{}
}

func meanOf(xs []float64) optional {
	if len(xs) == 0 {
		return optional{}
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return some(sum/float64(len(xs)), true)
}

// holds compares as a k6 threshold does (lib/threshold-grammar.ts compare).
func holds(v float64, op string, limit float64) bool {
	switch op {
	case "<":
		return v < limit
	case "<=":
		return v <= limit
	case ">":
		return v > limit
	case ">=":
		return v >= limit
	}
	return false
}
