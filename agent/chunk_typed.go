package agent

import "strings"

// Events of the OpenAI Responses API (POST /v1/responses) and the Anthropic Messages API
// (POST /v1/messages). Each names itself in its data's "type" member (a chat or completions chunk
// has none), so the API is decided per event and the agent's params need no field for it.

// messagesEventTypes are the Messages API's event types; every Responses type starts "response.".
var messagesEventTypes = map[string]bool{
	"message_start": true, "content_block_start": true, "content_block_delta": true, "content_block_stop": true,
	"message_delta": true, "message_stop": true, "ping": true,
}

// isTypedEvent reports whether a data object's "type" names a Responses or Messages event. Any
// other type ("error", or one a chat server made up) leaves the chunk to the chat reading.
func isTypedEvent(t string) bool {
	return strings.HasPrefix(t, "response.") || messagesEventTypes[t]
}

// readTypedEvent reads one Responses or Messages event. Text deltas are tokens; the final response
// object (Responses) or message_start and message_delta (Messages) carry usage; the terminal event
// completes the stream. Every other type is an event without a token.
func readTypedEvent(t string, o map[string]any, f *chunkFacts) {
	f.typed = true
	switch t {
	case "response.output_text.delta", "response.refusal.delta", "response.reasoning_text.delta",
		"response.reasoning_summary_text.delta", "response.function_call_arguments.delta":
		s, _ := o["delta"].(string)
		f.addTypedDelta(t, s)
		f.functionCall = t == "response.function_call_arguments.delta"
	case "response.output_item.added", "response.output_item.done":
		f.functionCall = isFunctionCall(o["item"])
	case "response.completed", "response.incomplete":
		resp := asObject(o["response"])
		f.terminal = true
		f.finishReason = responsesFinishReason(t, resp)
		if output, ok := resp["output"].([]any); ok {
			for _, item := range output {
				f.functionCall = f.functionCall || isFunctionCall(item)
			}
		}
		readResponsesUsage(asObject(resp["usage"]), f)
	case "response.failed":
		if !f.hasErr {
			f.err, f.hasErr = "response failed", true
			if m, ok := asObject(asObject(o["response"])["error"])["message"].(string); ok && m != "" {
				f.err = m
			}
		}
	case "content_block_delta":
		d := asObject(o["delta"])
		dt, _ := d["type"].(string)
		s, _ := d[messagesDeltaField(dt)].(string)
		f.addTypedDelta(dt, s)
	case "message_start":
		readMessagesUsage(asObject(asObject(o["message"])["usage"]), f)
	case "message_delta":
		if reason, ok := asObject(o["delta"])["stop_reason"].(string); ok {
			f.finishReason = messagesFinishReason(reason)
		}
		u := asObject(o["usage"])
		readMessagesUsage(u, f)
		// Cumulative: the last message_delta holds the whole output. message_start's output_tokens
		// is a placeholder (1), not read.
		f.completion, f.hasCompletion = tokenCount(u["output_tokens"])
	case "message_stop":
		f.terminal = true
	}
}

// messagesDeltaField is the member of a content_block_delta's delta that holds its text.
func messagesDeltaField(deltaType string) string {
	switch deltaType {
	case "text_delta":
		return "text"
	case "thinking_delta":
		return "thinking"
	case "input_json_delta":
		return "partial_json"
	}
	return ""
}

// addTypedDelta notes the text of a delta event of either API by its (event or delta) type. An
// empty delta is no token: Anthropic opens a tool's input with partial_json "".
func (f *chunkFacts) addTypedDelta(kind, s string) {
	n := textLength(s)
	switch kind {
	case "response.output_text.delta", "response.refusal.delta", "text_delta":
		f.addGenerated(n, 0, 0)
		f.content += s
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta", "thinking_delta":
		f.addGenerated(0, n, 0)
	case "response.function_call_arguments.delta", "input_json_delta":
		f.addGenerated(0, 0, n)
	}
}

// responsesFinishReason puts a final response's status in the chat vocabulary, so a record's
// finishReason keeps one meaning whichever API it came from.
func responsesFinishReason(t string, resp map[string]any) string {
	if t == "response.completed" {
		if status, ok := resp["status"].(string); ok && status != "" && status != "completed" {
			return status
		}
		return "stop"
	}
	reason, _ := asObject(resp["incomplete_details"])["reason"].(string)
	switch reason {
	case "max_output_tokens":
		return "length"
	case "":
		return "incomplete"
	}
	return reason // content_filter is already the chat word
}

// isFunctionCall reports whether a Responses output item is a function call.
func isFunctionCall(item any) bool {
	t, _ := asObject(item)["type"].(string)
	return t == "function_call"
}

// toolCallsFinish is the finish reason of a Responses stream that made a function call: its
// response completes as any other ("stop"), and the record says what chat and Messages say.
func toolCallsFinish(reason string, functionCall bool) string {
	if functionCall && reason == "stop" {
		return "tool_calls"
	}
	return reason
}

func messagesFinishReason(reason string) string {
	switch reason {
	case "end_turn", "stop_sequence":
		return "stop"
	case "max_tokens":
		return "length"
	case "tool_use":
		return "tool_calls"
	}
	return reason
}

// readResponsesUsage reads a Responses usage object; its input_tokens include the cached ones.
func readResponsesUsage(u map[string]any, f *chunkFacts) {
	if u == nil {
		return
	}
	f.promptTokens, f.hasPrompt = tokenCount(u["input_tokens"])
	f.completion, f.hasCompletion = tokenCount(u["output_tokens"])
	f.cached, f.hasCached = tokenCount(asObject(u["input_tokens_details"])["cached_tokens"])
	f.reasoningTokens, f.hasReasoningTokens = tokenCount(asObject(u["output_tokens_details"])["reasoning_tokens"])
}

// readMessagesUsage reads the prompt side of a Messages usage object. Its parts are kept apart and
// summed by the record (input + cache reads + cache writes), so a later usage naming only some of
// them (message_delta) leaves the others as message_start said.
func readMessagesUsage(u map[string]any, f *chunkFacts) {
	if u == nil {
		return
	}
	f.messagesUsage = true
	f.promptTokens, f.hasPrompt = tokenCount(u["input_tokens"])
	f.cached, f.hasCached = tokenCount(u["cache_read_input_tokens"])
	f.cacheCreation, f.hasCacheCreation = tokenCount(u["cache_creation_input_tokens"])
}
