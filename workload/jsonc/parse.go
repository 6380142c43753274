package jsonc

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of objects and arrays Parse accepts. The
// parser is recursive; the limit keeps hostile input from exhausting memory.
const MaxDepth = 1000

// Parse parses one JSON document: a single top-level value (normally an
// object), optionally surrounded by whitespace and comments. A leading UTF-8
// byte order mark is skipped. Malformed input yields a nil Value and a
// *SyntaxError, positioned at the offending character or, for an unterminated
// string or comment, at its start. Parse never panics.
func Parse(data []byte) (*Value, error) {
	p := &parser{data: data, line: 1, col: 1}
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		p.off = 3
	}
	if err := p.skipSpace(); err != nil {
		return nil, err
	}
	if p.eof() {
		return nil, p.errorf(p.pos(), "empty input: no JSON value")
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.skipSpace(); err != nil {
		return nil, err
	}
	if !p.eof() {
		return nil, p.errorf(p.pos(), "unexpected %s after top-level value", p.describe())
	}
	return v, nil
}

type parser struct {
	data      []byte
	off       int // byte offset of the next unread character
	line, col int // position of data[off]
	depth     int
}

func (p *parser) eof() bool { return p.off >= len(p.data) }
func (p *parser) pos() Pos  { return Pos{p.line, p.col} }

// advance consumes one character (a rune, or a single invalid byte), keeping
// line and column in step, and returns its length in bytes.
func (p *parser) advance() int {
	c, n := p.data[p.off], 1
	if c >= utf8.RuneSelf {
		_, n = utf8.DecodeRune(p.data[p.off:])
	}
	p.off += n
	if c == '\n' {
		p.line++
		p.col = 1
	} else {
		p.col++
	}
	return n
}

// skipASCII consumes n characters already known to be ASCII and not newlines.
func (p *parser) skipASCII(n int) {
	p.off += n
	p.col += n
}

func (p *parser) errorf(pos Pos, format string, args ...any) error {
	return &SyntaxError{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// describe names the next character for an error message.
func (p *parser) describe() string {
	if p.eof() {
		return "end of input"
	}
	r, n := utf8.DecodeRune(p.data[p.off:])
	if r == utf8.RuneError && n == 1 {
		return fmt.Sprintf("byte 0x%02X", p.data[p.off])
	}
	return fmt.Sprintf("character %q", r)
}

// skipSpace skips whitespace and comments. Like json-c (which uses isspace),
// it also takes form feed and vertical tab as whitespace.
func (p *parser) skipSpace() error {
	for !p.eof() {
		switch p.data[p.off] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			p.advance()
		case '/':
			if err := p.comment(); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) comment() error {
	start := p.pos()
	rest := p.data[p.off:]
	switch {
	case bytes.HasPrefix(rest, []byte("//")):
		for !p.eof() && p.data[p.off] != '\n' {
			p.advance()
		}
		return nil
	case bytes.HasPrefix(rest, []byte("/*")):
		p.skipASCII(2)
		for !p.eof() {
			if bytes.HasPrefix(p.data[p.off:], []byte("*/")) {
				p.skipASCII(2)
				return nil
			}
			p.advance()
		}
		return p.errorf(start, "unterminated comment")
	}
	return p.errorf(start, "unexpected '/': comments start with /* or //")
}

func (p *parser) value() (*Value, error) {
	if p.eof() {
		return nil, p.errorf(p.pos(), "unexpected end of input, expected a value")
	}
	switch c := p.data[p.off]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"' || c == '\'':
		start := p.pos()
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &Value{Kind: String, Pos: start, Str: s}, nil
	case c == '-' || isDigit(c):
		return p.number()
	case isWordChar(c):
		return p.literal()
	}
	return nil, p.errorf(p.pos(), "expected a value, found %s", p.describe())
}

// enter is called on an opening bracket, before consuming it.
func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return p.errorf(p.pos(), "nesting deeper than %d levels", MaxDepth)
	}
	return nil
}

func (p *parser) object() (*Value, error) {
	v := &Value{Kind: Object, Pos: p.pos()}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.advance() // '{'
	for {
		// A '}' may follow '{' or a ',': this is where trailing commas are allowed.
		if err := p.skipSpace(); err != nil {
			return nil, err
		}
		if p.eof() {
			return nil, p.errorf(p.pos(), "unexpected end of input: object opened at %v is not closed", v.Pos)
		}
		if c := p.data[p.off]; c == '}' {
			p.advance()
			return v, nil
		} else if c != '"' && c != '\'' {
			return nil, p.errorf(p.pos(), "expected quoted object key or '}', found %s", p.describe())
		}
		keyPos := p.pos()
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if err := p.skipSpace(); err != nil {
			return nil, err
		}
		if !p.eof() && (p.data[p.off] == ',' || p.data[p.off] == '}') {
			// A key without a value, as rt-app's workgen examples write
			// "suspend",: read as null, marked Bare for the reader to warn.
			v.Members = append(v.Members, Member{Key: key, KeyPos: keyPos, Value: &Value{Kind: Null, Pos: p.pos()}, Bare: true})
		} else {
			if p.eof() || p.data[p.off] != ':' {
				return nil, p.errorf(p.pos(), "expected ':' after object key %q", key)
			}
			p.advance()
			if err := p.skipSpace(); err != nil {
				return nil, err
			}
			elem, err := p.value()
			if err != nil {
				return nil, err
			}
			v.Members = append(v.Members, Member{Key: key, KeyPos: keyPos, Value: elem})
		}
		if err := p.skipSpace(); err != nil {
			return nil, err
		}
		if p.eof() {
			return nil, p.errorf(p.pos(), "unexpected end of input: object opened at %v is not closed", v.Pos)
		}
		switch p.data[p.off] {
		case ',':
			p.advance()
		case '}':
			p.advance()
			return v, nil
		default:
			return nil, p.errorf(p.pos(), "expected ',' or '}' after value of object key %q, found %s", key, p.describe())
		}
	}
}

func (p *parser) array() (*Value, error) {
	v := &Value{Kind: Array, Pos: p.pos()}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.advance() // '['
	for {
		// A ']' may follow '[' or a ',': this is where trailing commas are allowed.
		if err := p.skipSpace(); err != nil {
			return nil, err
		}
		if p.eof() {
			return nil, p.errorf(p.pos(), "unexpected end of input: array opened at %v is not closed", v.Pos)
		}
		if p.data[p.off] == ']' {
			p.advance()
			return v, nil
		}
		elem, err := p.value()
		if err != nil {
			return nil, err
		}
		v.Elems = append(v.Elems, elem)
		if err := p.skipSpace(); err != nil {
			return nil, err
		}
		if p.eof() {
			return nil, p.errorf(p.pos(), "unexpected end of input: array opened at %v is not closed", v.Pos)
		}
		switch p.data[p.off] {
		case ',':
			p.advance()
		case ']':
			p.advance()
			return v, nil
		default:
			return nil, p.errorf(p.pos(), "expected ',' or ']' after array element, found %s", p.describe())
		}
	}
}

// str reads a string in double or single quotes and returns its decoded text.
// Raw control characters are kept, as json-c keeps them; so are invalid
// UTF-8 bytes.
func (p *parser) str() (string, error) {
	start := p.pos()
	quote := p.data[p.off]
	p.advance()
	var buf []byte
	for !p.eof() {
		switch c := p.data[p.off]; c {
		case quote:
			p.advance()
			return string(buf), nil
		case '\\':
			var err error
			if buf, err = p.escape(buf, quote); err != nil {
				return "", err
			}
		default:
			n := p.advance()
			buf = append(buf, p.data[p.off-n:p.off]...)
		}
	}
	return "", p.errorf(start, "unterminated string")
}

// escape decodes the escape sequence at the current backslash onto buf.
func (p *parser) escape(buf []byte, quote byte) ([]byte, error) {
	start := p.pos()
	p.advance() // '\\'
	if p.eof() {
		return buf, nil // str reports the unterminated string
	}
	c := p.data[p.off]
	switch c {
	case '"', '\\', '/':
		buf = append(buf, c)
	case '\'':
		if quote != '\'' {
			return buf, p.errorf(start, `invalid escape \' in double-quoted string`)
		}
		buf = append(buf, c)
	case 'b':
		buf = append(buf, '\b')
	case 'f':
		buf = append(buf, '\f')
	case 'n':
		buf = append(buf, '\n')
	case 'r':
		buf = append(buf, '\r')
	case 't':
		buf = append(buf, '\t')
	case 'u':
		r, ok := hex4(p.data[p.off+1:])
		if !ok {
			return buf, p.errorf(start, `invalid \u escape: want 4 hex digits`)
		}
		p.skipASCII(5)
		if utf16.IsSurrogate(r) {
			// Only a high surrogate directly followed by an escaped low one
			// makes a character; anything else becomes U+FFFD, as in json-c
			// and encoding/json.
			rest := p.data[p.off:]
			lo, ok := rune(0), false
			if len(rest) >= 2 && rest[0] == '\\' && rest[1] == 'u' {
				lo, ok = hex4(rest[2:])
			}
			if r = utf16.DecodeRune(r, lo); ok && r != utf8.RuneError {
				p.skipASCII(6)
			}
		}
		return utf8.AppendRune(buf, r), nil
	default:
		return buf, p.errorf(start, "invalid escape: %s after '\\'", p.describe())
	}
	p.advance()
	return buf, nil
}

// hex4 decodes the four hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a number. It takes the whole run of characters that could
// belong to one, then checks it against the JSON grammar, so that "1.2.3" or
// "-Infinity" is reported as one bad number rather than as a stray character.
func (p *parser) number() (*Value, error) {
	start, from := p.pos(), p.off
	for !p.eof() && (isWordChar(p.data[p.off]) || strings.IndexByte(".+-", p.data[p.off]) >= 0) {
		p.skipASCII(1)
	}
	lit := string(p.data[from:p.off])
	if !validNumber(lit) {
		return nil, p.errorf(start, "invalid number %q", lit)
	}
	return &Value{Kind: Number, Pos: start, Num: lit}, nil
}

// validNumber reports whether s matches the JSON number grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(s string) bool {
	i := 0
	digits := func() bool {
		n := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		return i > n
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}

// literal reads true, false or null, in any letter case as json-c allows.
func (p *parser) literal() (*Value, error) {
	start, from := p.pos(), p.off
	for !p.eof() && isWordChar(p.data[p.off]) {
		p.skipASCII(1)
	}
	word := string(p.data[from:p.off])
	switch {
	case strings.EqualFold(word, "true"):
		return &Value{Kind: Bool, Pos: start, Bool: true}, nil
	case strings.EqualFold(word, "false"):
		return &Value{Kind: Bool, Pos: start}, nil
	case strings.EqualFold(word, "null"):
		return &Value{Kind: Null, Pos: start}, nil
	}
	return nil, p.errorf(start, "invalid literal %q (strings must be quoted)", word)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isWordChar(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}
