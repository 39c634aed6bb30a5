package agent

import (
	"encoding/json"
	"math"
	"strings"
	"unicode/utf16"
)

// chunkFacts is what one decoded chunk says, apart from when it arrived: a chunk of a
// /chat/completions or /completions stream, or an event of the Responses or Messages API
// (chunk_typed.go).
type chunkFacts struct {
	// generatedChars is the generated text's length in UTF-16 units (as JavaScript counts it): the
	// weight for spreading usage tokens over chunks.
	generatedChars int
	// reasoningChars is the part of generatedChars that is reasoning text: a chunk that is mostly
	// reasoning puts its tokens on the record's reasoning count when the usage has none.
	reasoningChars int
	hasToken       bool
	hasContent     bool
	finishReason   string // "" when the chunk has none
	promptTokens   int
	hasPrompt      bool
	completion     int
	hasCompletion  bool
	// cached is usage.prompt_tokens_details.cached_tokens (vLLM with --enable-prompt-tokens-details,
	// SGLang with --enable-cache-report): prompt tokens the prefix cache served.
	cached    int
	hasCached bool
	// reasoningTokens is the usage's reasoning figure: completion_tokens_details.reasoning_tokens
	// (chat), output_tokens_details.reasoning_tokens (Responses).
	reasoningTokens    int
	hasReasoningTokens bool
	// Anthropic's input_tokens excludes the prompt tokens read from or written to its cache: the
	// record adds them back (messagesUsage) so input tokens mean what they mean elsewhere.
	cacheCreation    int
	hasCacheCreation bool
	messagesUsage    bool
	// typed: the chunk is an event of the Responses or Messages API, whose stream ends with a
	// terminal event (response.completed, response.incomplete, message_stop) instead of [DONE].
	typed    bool
	terminal bool
	// functionCall: a Responses event shows a function call in the output (its item, or its
	// arguments streaming). Its response still completes with status "completed", which the record
	// puts in the chat word a tool call has elsewhere: "tool_calls" (chat's finish_reason, and
	// Messages' stop_reason "tool_use").
	functionCall bool
	// content is the generated content text of the chunk (delta.content, or a completions choice's
	// text), for a conversation's next turn; reasoning and tool calls are not part of it.
	content string
	// err is the server's error message when the chunk is an error object, else "".
	err    string
	hasErr bool
}

// decodeJSON decodes an event's data; ok is false when it is not JSON. encoding/json accepts what
// JavaScript's JSON.parse accepts: a duplicate name (the last wins) and invalid UTF-8 (replaced).
// Unmarshal neither keeps nor changes its input, so the caller's buffer can be reused afterwards.
func decodeJSON(data []byte) (v any, ok bool) {
	err := json.Unmarshal(data, &v)
	return v, err == nil
}

// readChunk interprets one decoded chunk. A token is any generated text: content,
// reasoning_content / reasoning (vLLM's and SGLang's reasoning parsers), a tool-call delta, or a
// completions choice's text. The role-only first chunk and the usage-only last chunk carry none.
func readChunk(v any) chunkFacts {
	o, ok := v.(map[string]any)
	if !ok {
		return chunkFacts{err: "chunk is not a JSON object", hasErr: true}
	}
	var f chunkFacts
	f.err, f.hasErr = errorMessageOf(o)
	if t, ok := o["type"].(string); ok {
		if t == "error" && !f.hasErr {
			// The Responses API's error event: {"type": "error", "code", "message"}.
			f.err, f.hasErr = firstNonEmpty(textOf(o["message"]), textOf(o["code"]), "error event"), true
		}
		if isTypedEvent(t) {
			readTypedEvent(t, o, &f)
			return f
		}
	}
	choices, _ := o["choices"].([]any)
	for _, c := range choices {
		choice, ok := c.(map[string]any)
		if !ok {
			continue
		}
		if fr, ok := choice["finish_reason"].(string); ok {
			f.finishReason = fr
		}
		if delta, ok := choice["delta"].(map[string]any); ok {
			if text, ok := delta["content"].(string); ok {
				f.content += text
			}
			content := textLength(delta["content"])
			reasoning := textLength(delta["reasoning_content"]) + textLength(delta["reasoning"])
			tool := 0
			if calls, ok := delta["tool_calls"].([]any); ok {
				for _, call := range calls {
					fn, _ := asObject(call)["function"].(map[string]any)
					if fn == nil {
						tool++
						continue
					}
					// A tool-call delta is a token even when it only names the function.
					tool += max(1, textLength(fn["arguments"])+textLength(fn["name"]))
				}
			}
			f.addGenerated(content, reasoning, tool)
		} else if n := textLength(choice["text"]); n > 0 {
			f.hasToken, f.hasContent = true, true
			f.generatedChars += n
			f.content += choice["text"].(string)
		}
	}
	if usage, ok := o["usage"].(map[string]any); ok {
		f.promptTokens, f.hasPrompt = tokenCount(usage["prompt_tokens"])
		f.completion, f.hasCompletion = tokenCount(usage["completion_tokens"])
		if details, ok := usage["prompt_tokens_details"].(map[string]any); ok {
			f.cached, f.hasCached = tokenCount(details["cached_tokens"])
		}
		if details, ok := usage["completion_tokens_details"].(map[string]any); ok {
			f.reasoningTokens, f.hasReasoningTokens = tokenCount(details["reasoning_tokens"])
		}
	}
	return f
}

// addGenerated notes generated text of a chunk by kind, in UTF-16 units. Both decoders go through
// it, so they agree on what a token is.
func (f *chunkFacts) addGenerated(content, reasoning, tool int) {
	if content > 0 {
		f.hasContent = true
	}
	if content+reasoning+tool > 0 {
		f.hasToken = true
	}
	f.generatedChars += content + reasoning + tool
	f.reasoningChars += reasoning
}

// errorMessageOf reads the error shapes servers put in a chunk or body: {"error": "text"},
// {"error": {"message": ...}} (OpenAI, vLLM >= 0.10, gateways) and {"object": "error", "message":
// ...} (vLLM before 0.10).
func errorMessageOf(o map[string]any) (string, bool) {
	switch e := o["error"].(type) {
	case string:
		return e, true
	case map[string]any:
		if m, ok := e["message"].(string); ok {
			return m, true
		}
		b, err := json.Marshal(e) // a map's keys are written sorted
		if err != nil {
			return "error object in stream", true
		}
		return string(b), true
	}
	if o["object"] == "error" {
		if m, ok := o["message"].(string); ok {
			return m, true
		}
		return "error object in stream", true
	}
	return "", false
}

// serverMessageOf is the message of a JSON error body (or of a text carrying one after a prefix,
// as llama.cpp's "error: {...}" line), else the text itself, trimmed.
func serverMessageOf(text string) string {
	if at := strings.IndexByte(text, '{'); at >= 0 {
		if v, ok := decodeJSON([]byte(text[at:])); ok {
			if o, ok := v.(map[string]any); ok {
				if m, ok := errorMessageOf(o); ok && m != "" {
					return m
				}
				// llama.cpp: {"code", "message", "type"}.
				if m, ok := o["message"].(string); ok && m != "" {
					return m
				}
			}
		}
	}
	return strings.TrimSpace(text)
}

func textOf(v any) string {
	s, _ := v.(string)
	return s
}

func asObject(v any) map[string]any {
	o, _ := v.(map[string]any)
	return o
}

// textLength is a string's length in UTF-16 units, 0 for anything else.
func textLength(v any) int {
	s, ok := v.(string)
	if !ok {
		return 0
	}
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// tokenCount reads a usage count: any finite number, rounded.
func tokenCount(v any) (int, bool) {
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return int(math.Round(f)), true
}
