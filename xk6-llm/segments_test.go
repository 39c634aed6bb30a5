package llm

// k6's own execution-segment arithmetic, written down as testdata/k6-segments.json: the shares the
// suite's TypeScript port (lib/segments.ts) must reproduce (test/lib/segments.test.ts reads the file).
// The k6-operator's sequences for 1..6 runners, and two uneven ones.

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"go.k6.io/k6/lib"
)

const segmentsGolden = "testdata/k6-segments.json"

// segmentShares is one sequence and, per segment, its share of every value 0..maxValue.
type segmentShares struct {
	Sequence string    `json:"sequence"`
	Segments []string  `json:"segments"`
	Shares   [][]int64 `json:"shares"`
}

const maxSegmentValue = 40

func k6SegmentShares(t *testing.T, sequence string) segmentShares {
	t.Helper()
	var ess lib.ExecutionSegmentSequence
	if err := ess.UnmarshalText([]byte(sequence)); err != nil {
		t.Fatalf("sequence %q: %v", sequence, err)
	}
	out := segmentShares{Sequence: sequence}
	for _, segment := range ess {
		tuple, err := lib.NewExecutionTuple(segment, &ess)
		if err != nil {
			t.Fatalf("segment %s of %q: %v", segment, sequence, err)
		}
		shares := make([]int64, 0, maxSegmentValue+1)
		for v := int64(0); v <= maxSegmentValue; v++ {
			shares = append(shares, tuple.ScaleInt64(v))
		}
		out.Segments = append(out.Segments, segment.String())
		out.Shares = append(out.Shares, shares)
	}
	return out
}

func TestK6SegmentShares(t *testing.T) {
	sequences := []string{"0,1", "0,1/2,1", "0,1/3,2/3,1", "0,1/4,2/4,3/4,1", "0,1/5,2/5,3/5,4/5,1",
		"0,1/6,2/6,3/6,4/6,5/6,1", "0,1/4,1/2,1", "0,0.3,1"}
	all := make([]segmentShares, 0, len(sequences))
	for _, s := range sequences {
		shares := k6SegmentShares(t, s)
		// The property the suite relies on: the runners' shares add up to the whole, for every value.
		for v := int64(0); v <= maxSegmentValue; v++ {
			var sum int64
			for _, segment := range shares.Shares {
				sum += segment[v]
			}
			if sum != v {
				t.Fatalf("%s: shares of %d add up to %d", s, v, sum)
			}
		}
		all = append(all, shares)
	}
	want, err := json.MarshalIndent(all, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *update {
		if err := os.WriteFile(segmentsGolden, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(segmentsGolden)
	if err != nil {
		t.Fatalf("%v (go test -run TestK6SegmentShares -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from k6's segment arithmetic (go test -run TestK6SegmentShares -update rewrites it)", segmentsGolden)
	}
}
