package agent

// How a completed stream's tokens were read: the tokens the client read together with the chunk
// before them, apart from those the server itself sent several to a chunk. Pure; runs in the agent.
//
// A token's time is the kernel's receive time of the read that completed its chunk, so two chunks
// completed by one read share a time and the later one's tokens get an ITL of 0: the reader fell a
// whole gap behind (or a network coalesced the two writes into one packet). A chunk carrying several
// tokens is the server's doing (SGLang's stream interval, speculative decoding): its gap is spread
// over its tokens, and only the first chunk's extra tokens count 0 ms. Counting both apart lets a
// report blame the client only for what it did.

// tokenReading is, for a completed stream, the tokens whose chunk shared its read (its receive
// time) with the token chunk before it, and the tokens that came in a chunk with another token.
// It reads the chunks' times and tokens that complete worked out for the record's ITL.
func (rc *recorder) tokenReading(outputTokens int) (readTogether, chunked int) {
	if len(rc.chunks) == 0 {
		return 0, 0
	}
	return tokensReadTogether(rc.arrivals, rc.perChunk), max(0, outputTokens-len(rc.chunks))
}

// tokensReadTogether counts the tokens of every chunk that arrived at the same time as the chunk
// before it: the ITL samples of 0 that the server's chunking does not explain.
func tokensReadTogether(arrivalsMs []float64, tokensPerChunk []int) int {
	n := 0
	for i := 1; i < len(arrivalsMs); i++ {
		if arrivalsMs[i] == arrivalsMs[i-1] {
			n += tokensPerChunk[i]
		}
	}
	return n
}
