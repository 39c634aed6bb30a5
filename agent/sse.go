package agent

import (
	"bytes"
	"errors"
	"unicode/utf8"
)

// MaxLineBytes is the longest event-stream line the parser accepts: a bound on the memory one
// stream can take whatever the server sends.
const MaxLineBytes = 1 << 20

// maxInvalidLineChars caps Parser.FirstInvalidLine (in characters).
const maxInvalidLineChars = 512

// ErrLineTooLong is returned by Parser.FeedRaw once a line passes the parser's line limit.
var ErrLineTooLong = errors.New("an event-stream line is longer than the limit")

// Event is one dispatched server-sent event.
type Event struct {
	// Name is the `event:` field, "" when absent.
	Name string
	// Data is the `data:` lines joined with "\n".
	Data string
}

var bom = [3]byte{0xEF, 0xBB, 0xBF}

// Parser is an incremental WHATWG event-stream parser. It is fed the body in reads of any size
// and produces the same events whatever the split. It keeps no reference to the bytes it is fed,
// so the caller may reuse its read buffer. The zero value is not ready: use NewParser.
type Parser struct {
	maxLine int
	// carry holds a line not yet ended by the previous reads (the only copy the parser makes).
	carry []byte
	// skipLF: the previous read ended in CR, so an LF starting the next read ends nothing more.
	skipLF bool
	// bomSeen counts the BOM bytes matched at the very start; bomDone once the decision is made.
	bomSeen int
	bomDone bool

	name     string
	lastName string
	data     []byte
	hasData  bool
	err      error

	// InvalidLines counts lines whose field name is none of data, event, id, retry.
	InvalidLines int
	// FirstInvalidLine is the first such line, at most 512 characters.
	FirstInvalidLine string
}

// NewParser returns a parser that fails with ErrLineTooLong on a line longer than maxLine bytes
// (MaxLineBytes when maxLine <= 0).
func NewParser(maxLine int) *Parser {
	if maxLine <= 0 {
		maxLine = MaxLineBytes
	}
	return &Parser{maxLine: maxLine}
}

// RawEmit receives one event: its name, and its data, which stays valid only during the call.
type RawEmit func(name string, data []byte)

// FeedRaw parses one read and calls emit for every event it completes, oldest first, without a
// copy of each event's data: the reader interprets the data at once (one allocation fewer per
// token). After an error every later call returns the same error and emits nothing.
func (p *Parser) FeedRaw(b []byte, emit RawEmit) error {
	if p.err != nil || len(b) == 0 {
		return p.err
	}
	if !p.bomDone {
		b = p.skipBOM(b, emit)
		if p.err != nil || len(b) == 0 {
			return p.err
		}
	}
	p.feed(b, emit)
	return p.err
}

// skipBOM consumes the bytes of a leading UTF-8 BOM, which may be split across reads. When the
// stream turns out not to start with a BOM, the bytes held back are parsed first.
func (p *Parser) skipBOM(b []byte, emit RawEmit) []byte {
	for len(b) > 0 && !p.bomDone {
		if b[0] == bom[p.bomSeen] {
			p.bomSeen++
			b = b[1:]
			if p.bomSeen == len(bom) {
				p.bomDone = true
			}
			continue
		}
		p.bomDone = true
		if p.bomSeen > 0 {
			p.feed(bom[:p.bomSeen], emit)
		}
	}
	return b
}

func (p *Parser) feed(b []byte, emit RawEmit) {
	if p.skipLF {
		p.skipLF = false
		if b[0] == '\n' {
			b = b[1:]
		}
	}
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			if len(p.carry)+len(b) > p.maxLine {
				p.err = ErrLineTooLong
				return
			}
			p.carry = append(p.carry, b...)
			return
		}
		line := b[:i]
		if len(p.carry) > 0 {
			if len(p.carry)+i > p.maxLine {
				p.err = ErrLineTooLong
				return
			}
			p.carry = append(p.carry, line...)
			line = p.carry
		} else if i > p.maxLine {
			p.err = ErrLineTooLong
			return
		}
		p.line(line, emit)
		p.carry = p.carry[:0]
		if b[i] == '\r' {
			if i+1 == len(b) {
				p.skipLF = true
				return
			}
			if b[i+1] == '\n' {
				i++
			}
		}
		b = b[i+1:]
	}
}

// line interprets one complete line (without its line end).
func (p *Parser) line(line []byte, emit RawEmit) {
	if len(line) == 0 {
		if p.hasData {
			name := p.name
			p.hasData = false
			p.name = ""
			emit(name, p.data)
			p.data = p.data[:0]
			return
		}
		p.name = ""
		return
	}
	if line[0] == ':' {
		return // a comment: keep-alives never reach the script
	}
	field, value := line, line[len(line):]
	if c := bytes.IndexByte(line, ':'); c >= 0 {
		field, value = line[:c], line[c+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(field) { // no allocation: the compiler special-cases a switch on string(bytes)
	case "data":
		if p.hasData {
			p.data = append(p.data, '\n')
		}
		p.data = append(p.data, value...)
		p.hasData = true
	case "event":
		// Reuse the previous name's string: most streams repeat one name, so no allocation.
		if string(value) != p.lastName {
			p.lastName = string(value)
		}
		p.name = p.lastName
	case "id", "retry":
		// Read and ignored: a load test does not reconnect.
	default:
		p.InvalidLines++
		if p.InvalidLines == 1 {
			p.FirstInvalidLine = truncateChars(line, maxInvalidLineChars)
		}
	}
}

// truncateChars returns at most n characters (runes) of b as a string.
func truncateChars(b []byte, n int) string {
	i := 0
	for k := 0; k < n && i < len(b); k++ {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return string(b[:i])
}
