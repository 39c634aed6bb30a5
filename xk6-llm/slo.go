package llm

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/grafana/sobek"
)

// sloLimit is one limit of params.slo: the request's own value of metric must satisfy
// `value <op> limit`, in the metric's unit (ms for times, tokens/s for decodeSpeed).
type sloLimit struct {
	metric string
	op     string
	value  float64
}

// The metrics and operators a limit may name: those of a use case's limits (thresholds/use-cases.ts).
var (
	sloMetrics   = []string{keyTTFT, keyE2E, keyDecodeSpeed, keyITL, keyTPOT}
	sloOperators = []string{"<", "<=", ">", ">="}
)

// parseSLO reads params.slo: an array of { metric, operator, value }; absent or null means no
// limits (no goodput is judged). Other fields of a limit (a label) are ignored.
func parseSLO(v sobek.Value) ([]sloLimit, bool, error) {
	if nullish(v) {
		return nil, false, nil
	}
	arr, ok := v.(*sobek.Object)
	if !ok || arr.ClassName() != "Array" {
		return nil, false, errors.New("llm.stream: params.slo must be an array of { metric, operator, value }")
	}
	n := int(arr.Get("length").ToInteger())
	out := make([]sloLimit, 0, n)
	for i := 0; i < n; i++ {
		l, err := parseSLOLimit(arr.Get(fmt.Sprint(i)), i)
		if err != nil {
			return nil, false, err
		}
		out = append(out, l)
	}
	return out, true, nil
}

func parseSLOLimit(v sobek.Value, i int) (sloLimit, error) {
	what := fmt.Sprintf("llm.stream: params.slo[%d]", i)
	obj, ok := v.(*sobek.Object)
	if nullish(v) || !ok || obj.ClassName() == "Array" {
		return sloLimit{}, fmt.Errorf("%s must be an object { metric, operator, value }", what)
	}
	var l sloLimit
	for _, f := range []struct {
		name    string
		allowed []string
		dst     *string
	}{{"metric", sloMetrics, &l.metric}, {"operator", sloOperators, &l.op}} {
		x := obj.Get(f.name)
		s, isString := exportString(x)
		if !isString || !contains(f.allowed, s) {
			return sloLimit{}, fmt.Errorf("%s.%s %s is not one of: %s", what, f.name, shown(x), strings.Join(f.allowed, ", "))
		}
		*f.dst = s
	}
	switch x := exportOrNil(obj.Get("value")).(type) {
	case int64:
		l.value = float64(x)
	case float64:
		l.value = x
	default:
		return sloLimit{}, fmt.Errorf("%s.value must be a number in the metric's unit (ms, or tokens/s for decodeSpeed)", what)
	}
	if math.IsNaN(l.value) || math.IsInf(l.value, 0) {
		return sloLimit{}, fmt.Errorf("%s.value must be a finite number, got %v", what, l.value)
	}
	return l, nil
}

func exportOrNil(v sobek.Value) any {
	if nullish(v) {
		return nil
	}
	return v.Export()
}

func exportString(v sobek.Value) (string, bool) {
	s, ok := exportOrNil(v).(string)
	return s, ok
}

// shown writes a JS value for an error message: strings quoted, absent values named.
func shown(v sobek.Value) string {
	if nullish(v) {
		return "(missing)"
	}
	if s, ok := exportString(v); ok {
		return fmt.Sprintf("%q", s)
	}
	return v.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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
	case keyTTFT:
		return some(r.TTFTMs, true)
	case keyE2E:
		return some(r.E2EMs, true)
	case keyDecodeSpeed:
		return r.DecodeSpeed
	case keyTPOT:
		return r.TPOTMs
	case keyITL:
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

// holds compares as a k6 threshold does (lib/thresholds.ts compare).
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
