package agent

import (
	"slices"
	"testing"
)

func TestDistributeTokens(t *testing.T) {
	tests := []struct {
		total   int
		weights []int
		want    []int
	}{
		{10, []int{5, 15, 2, 8}, []int{2, 4, 1, 3}}, // speculative decoding: uneven chunks
		{3, []int{1, 1, 1}, []int{1, 1, 1}},
		{2, []int{4, 4, 4}, []int{1, 1, 1}}, // usage below the chunk count: one each
		{5, []int{0, 0}, []int{3, 2}},       // no text: spread evenly, the earlier chunk first
		{7, []int{1, 1, 1}, []int{3, 2, 2}}, // ties in the remainder go to the earlier chunk
		{4, nil, []int{}},
	}
	for _, tc := range tests {
		got := distributeTokens(tc.total, tc.weights)
		if !slices.Equal(got, tc.want) {
			t.Errorf("distributeTokens(%d, %v) = %v, want %v", tc.total, tc.weights, got, tc.want)
		}
	}
}

func TestInterTokenLatencies(t *testing.T) {
	// Chunks at 100, 130, 150 ms carrying 2, 3, 1 tokens: the first chunk's extra token counts 0,
	// the second's 30 ms gap is spread over 3 tokens, the third's 20 ms is one token's.
	got := interTokenLatencies([]float64{100, 130, 150}, []int{2, 3, 1})
	if want := []float64{0, 10, 10, 10, 20}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := interTokenLatencies([]float64{100}, []int{1}); len(got) != 0 {
		t.Errorf("one token: %v, want no sample", got)
	}
}

func TestSpeedFormulas(t *testing.T) {
	// 5 tokens, TTFT 100 ms, e2e 203 ms: TPOT (203-100)/4 = 25.75 ms, decode 4/0.103 s.
	if v, ok := timePerOutputToken(203, 100, 5); !ok || v != 25.75 {
		t.Errorf("tpot = %v %v", v, ok)
	}
	if v, ok := decodeSpeed(203, 100, 5); !ok || v != 4000.0/103 {
		t.Errorf("decode = %v %v", v, ok)
	}
	if v, ok := prefillSpeed(1024, 100); !ok || v != 10240 {
		t.Errorf("prefill = %v %v", v, ok)
	}
	if _, ok := timePerOutputToken(150, 100, 1); ok {
		t.Error("tpot of one token must be undefined")
	}
	if _, ok := decodeSpeed(100, 100, 5); ok {
		t.Error("decode speed with no decode time must be undefined")
	}
	if _, ok := prefillSpeed(0, 100); ok {
		t.Error("prefill speed without input must be undefined")
	}
}

func TestDistributeTokensMore(t *testing.T) {
	tests := []struct {
		total   int
		weights []int
		want    []int
	}{
		{8, []int{4, 8, 12}, []int{2, 3, 3}},
		{12, []int{11, 10, 5, 2}, []int{4, 4, 2, 2}},
		{3, []int{1, 1}, []int{2, 1}},
		{3, []int{9, 1, 1}, []int{1, 1, 1}},
		{5, []int{-3, 0}, []int{3, 2}}, // a negative weight counts as none
	}
	for _, tc := range tests {
		if got := distributeTokens(tc.total, tc.weights); !slices.Equal(got, tc.want) {
			t.Errorf("distributeTokens(%d, %v) = %v, want %v", tc.total, tc.weights, got, tc.want)
		}
	}
	// Chunks at 100, 130, 140 ms with 1, 3, 2 tokens: 30 ms over 3, then 10 ms over 2.
	got := interTokenLatencies([]float64{100, 130, 140}, []int{1, 3, 2})
	if !slices.Equal(got, []float64{10, 10, 10, 5, 5}) {
		t.Errorf("interTokenLatencies = %v", got)
	}
}
