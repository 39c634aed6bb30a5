package agent

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// The agent's per-request figures against test/fixtures/request-figures.json, the fixture that pins TypeScript's one
// definition of each (lib/request-figures.ts, test/lib/request-figures.test.ts) to the same values: a record is built
// by the recorder's own complete from the case's chunks, and goodput judged by judgeGoodput.

type fixtureCase struct {
	Name        string          `json:"name"`
	StartMs     float64         `json:"startMs"`
	Chunks      [][2]float64    `json:"chunks"`
	EndMs       float64         `json:"endMs"`
	InputTokens int             `json:"inputTokens"`
	Completed   bool            `json:"completed"`
	Limits      json.RawMessage `json:"limits"`
	Expected    *struct {
		TTFTMs       float64   `json:"ttftMs"`
		E2EMs        float64   `json:"e2eMs"`
		OutputTokens int       `json:"outputTokens"`
		ITLMs        []float64 `json:"itlMs"`
		ITLMeanMs    *float64  `json:"itlMeanMs"`
		TPOTMs       *float64  `json:"tpotMs"`
		DecodeSpeed  *float64  `json:"decodeTokensPerSecond"`
		PrefillSpeed *float64  `json:"prefillTokensPerSecond"`
		Goodput      bool      `json:"goodput"`
	} `json:"expected"`
}

func readFigureCases(t *testing.T) []fixtureCase {
	t.Helper()
	raw, err := os.ReadFile("../test/fixtures/request-figures.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []fixtureCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) == 0 {
		t.Fatal("no cases in the fixture")
	}
	return f.Cases
}

// fixtureRecord is what the recorder makes of a case: a completed case through complete, with the usage giving
// the tokens and each chunk weighted so that distributeTokens gives it exactly its own; a failed case errored.
func fixtureRecord(c fixtureCase) Record {
	r := Record{StartMs: c.StartMs, EndMs: c.EndMs}
	if !c.Completed {
		r.Outcome = outcomeErrored
		return r
	}
	rc := &recorder{requestedInput: c.InputTokens, promptTokens: c.InputTokens, hasPrompt: true, hasCompletion: true}
	for _, ch := range c.Chunks {
		k := int(ch[1])
		rc.chunks = append(rc.chunks, tokenChunk{atMs: ch[0], chars: k - 1, hasContent: true})
		rc.completion += k
	}
	rc.complete(&r)
	return r
}

func sameFigure(t *testing.T, what string, got optional, want *float64) {
	t.Helper()
	switch {
	case want == nil && got.ok:
		t.Errorf("%s: got %v, want none", what, got.value)
	case want != nil && !got.ok:
		t.Errorf("%s: got none, want %v", what, *want)
	case want != nil && math.Abs(got.value-*want) > 1e-9*math.Max(1, math.Abs(*want)):
		t.Errorf("%s: got %v, want %v", what, got.value, *want)
	}
}

func TestFiguresFixture(t *testing.T) {
	for _, c := range readFigureCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			limits, _, err := parseSLO(c.Limits)
			if err != nil {
				t.Fatal(err)
			}
			r := fixtureRecord(c)
			e := c.Expected
			if good := judgeGoodput(&r, limits); good != (e != nil && e.Goodput) {
				t.Errorf("goodput: got %v", good)
			}
			if e == nil {
				if r.Outcome != outcomeErrored {
					t.Errorf("outcome %q, want errored", r.Outcome)
				}
				return
			}
			sameFigure(t, "ttft", some(r.TTFTMs, true), &e.TTFTMs)
			sameFigure(t, "e2e", some(r.E2EMs, true), &e.E2EMs)
			if r.OutputTokens != e.OutputTokens {
				t.Errorf("output tokens: got %d, want %d", r.OutputTokens, e.OutputTokens)
			}
			if len(r.ITLMs) != len(e.ITLMs) {
				t.Fatalf("itl: got %v, want %v", r.ITLMs, e.ITLMs)
			}
			for i := range e.ITLMs {
				sameFigure(t, "itl", some(r.ITLMs[i], true), &e.ITLMs[i])
			}
			sameFigure(t, "mean itl", meanOf(r.ITLMs), e.ITLMeanMs)
			sameFigure(t, "tpot", r.TPOTMs, e.TPOTMs)
			sameFigure(t, "decode speed", r.DecodeSpeed, e.DecodeSpeed)
			sameFigure(t, "prefill speed", r.PrefillSpeed, e.PrefillSpeed)
		})
	}
}
