package agent

import "sort"

// The pure formulas of the request record (docs/architecture.md, "Measurement definitions"). Times are float ms.

// timePerOutputToken is TPOT: (e2e - ttft) / (outputTokens - 1); undefined (ok false) for fewer
// than 2 output tokens, as in GuideLLM.
func timePerOutputToken(e2eMs, ttftMs float64, outputTokens int) (float64, bool) {
	if outputTokens < 2 {
		return 0, false
	}
	return (e2eMs - ttftMs) / float64(outputTokens-1), true
}

// decodeSpeed is the per-user decode speed in tokens/s: (outputTokens - 1) / (e2e - ttft).
func decodeSpeed(e2eMs, ttftMs float64, outputTokens int) (float64, bool) {
	decodeMs := e2eMs - ttftMs
	if outputTokens < 2 || decodeMs <= 0 {
		return 0, false
	}
	return float64(outputTokens-1) * 1000 / decodeMs, true
}

// prefillSpeed is the per-user prefill speed in tokens/s: inputTokens / ttft (queue wait included,
// as a user sees it).
func prefillSpeed(inputTokens int, ttftMs float64) (float64, bool) {
	if inputTokens <= 0 || ttftMs <= 0 {
		return 0, false
	}
	return float64(inputTokens) * 1000 / ttftMs, true
}

// distributeTokens splits total tokens over chunks in proportion to their text lengths (largest
// remainder), at least one per chunk. The server's usage often says more tokens than chunks arrived:
// SGLang's stream interval and speculative decoding put several tokens in one chunk.
func distributeTokens(total int, weights []int) []int {
	n := len(weights)
	out := make([]int, n)
	if n == 0 {
		return out
	}
	for i := range out {
		out[i] = 1
	}
	if total <= n {
		return out
	}
	spare := float64(total - n)
	weightSum := 0
	for _, w := range weights {
		weightSum += max(0, w)
	}
	shares := make([]float64, n)
	left := total
	for i, w := range weights {
		if weightSum > 0 {
			shares[i] = spare * float64(max(0, w)) / float64(weightSum)
		} else {
			shares[i] = spare / float64(n)
		}
		out[i] += int(shares[i])
		left -= out[i]
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	// Largest fractional part first; ties go to the earlier chunk.
	sort.SliceStable(order, func(a, b int) bool {
		fa := shares[order[a]] - float64(int(shares[order[a]]))
		fb := shares[order[b]] - float64(int(shares[order[b]]))
		return fa > fb
	})
	for k := 0; left > 0; k, left = (k+1)%n, left-1 {
		out[order[k]]++
	}
	return out
}

// interTokenLatencies gives one ITL sample per token after the first from the arrival times of the
// token-bearing chunks and the tokens each carried. A chunk of k tokens that arrived g ms after the
// previous chunk gives k samples of g/k: its gap is spread over its tokens. The first chunk's own
// delay is TTFT, not ITL; its extra tokens arrived with the first one and count 0 ms.
func interTokenLatencies(arrivalsMs []float64, tokensPerChunk []int) []float64 {
	total := 0
	for _, k := range tokensPerChunk {
		total += k
	}
	out := make([]float64, 0, max(0, total-1))
	for i, at := range arrivalsMs {
		k := tokensPerChunk[i]
		if i == 0 {
			for j := 1; j < k; j++ {
				out = append(out, 0)
			}
			continue
		}
		gap := at - arrivalsMs[i-1]
		for j := 0; j < k; j++ {
			out = append(out, gap/float64(k))
		}
	}
	return out
}
