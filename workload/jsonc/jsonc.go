// Package jsonc reads JSON the way rt-app does, returning an ordered tree with
// source positions.
//
// rt-app parses its workload files with json-c in non-strict mode, and the
// files written for it rely on that in ways encoding/json cannot follow:
//
//   - Key order is meaning. The members of a task or phase object are events
//     that run in the order they are written, so a map loses the workload.
//   - Keys repeat. A phase may say "run" twice; json-c replaces the first
//     value in place, so the event keeps its first slot but takes its last
//     value. Parse keeps every member as written; Collapse applies json-c's
//     rule, and reports which keys it collapsed so a caller can warn.
//   - The syntax is lenient: comments, trailing commas, single-quoted strings
//     and case-insensitive true/false/null are all found in real files.
//
// Every value and key carries its line and column so that a workload checker
// can point at the offending text.
//
// What is accepted beyond RFC 8259:
//
//   - /* block */ and // line comments wherever whitespace may appear;
//   - a trailing comma after the last member of an object or array;
//   - 'single-quoted' strings, in which \' is an escape;
//   - true, false and null in any letter case;
//   - raw control characters (tab, newline, ...) inside strings, and
//     form feed and vertical tab as whitespace, because json-c accepts them;
//   - invalid UTF-8 inside strings, kept as the bytes written;
//   - an object key with no value ("suspend", in rt-app's video examples,
//     which json-c rejects): a null value, with Member.Bare set.
//
// Numbers follow the JSON grammar exactly (no leading zeros, no '+', no NaN
// or Infinity) even though json-c is looser there; Num keeps the text as
// written so that a caller can decide how to read it.
package jsonc

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Pos is a 1-based line and column in the source. Col counts runes (a tab is
// one column; an invalid UTF-8 byte is one column). A leading byte order mark
// is not counted.
type Pos struct{ Line, Col int }

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Kind is the type of a Value.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Number
	String
	Object
	Array
)

var kindNames = [...]string{
	Null:   "null",
	Bool:   "boolean",
	Number: "number",
	String: "string",
	Object: "object",
	Array:  "array",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Member is one key/value pair of an object.
type Member struct {
	Key    string
	KeyPos Pos // the opening quote of the key
	Value  *Value
	// Bare: the key had no ':' and value, only a ',' or '}' after it
	// (rt-app's workgen examples write "suspend",); Value is null. json-c
	// rejects this; the reader decides what it means.
	Bare bool
}

// Value is a node of the parsed tree. Only the fields for its Kind are set.
type Value struct {
	Kind    Kind
	Pos     Pos      // where the value starts
	Bool    bool     // Bool
	Str     string   // String: decoded text
	Num     string   // Number: the literal as written, e.g. "-1", "2.5e3"
	Members []Member // Object: in source order, duplicates kept as they appear
	Elems   []*Value // Array
}

// Int returns a Number as an int64. Integer literals ("10", "-3") must fit in
// an int64. Literals with a fraction or exponent ("1e3", "2.0") are read as a
// float64 and accepted if that is integral and in range, so "1e3" gives 1000
// but "2.5" fails; note that such literals carry only float64 precision.
// ok is false for anything else, including a nil Value.
func (v *Value) Int() (n int64, ok bool) {
	if v == nil || v.Kind != Number {
		return 0, false
	}
	if !strings.ContainsAny(v.Num, ".eE") {
		n, err := strconv.ParseInt(v.Num, 10, 64)
		return n, err == nil
	}
	f, err := strconv.ParseFloat(v.Num, 64)
	// -2^63 is exactly representable; 2^63 is the first float above MaxInt64.
	if err != nil || f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// Float returns a Number as a float64, rounded to nearest. ok is false if v
// is not a Number or if the literal overflows a float64 (such as 1e400):
// a workload never means infinity.
func (v *Value) Float() (f float64, ok bool) {
	if v == nil || v.Kind != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.Num, 64)
	return f, err == nil
}

// Get returns the value of the last member with the given key, which is the
// one json-c keeps, or nil if v is not an object or has no such key. Get is
// safe on a nil Value, so lookups can be chained.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := len(v.Members) - 1; i >= 0; i-- {
		if v.Members[i].Key == key {
			return v.Members[i].Value
		}
	}
	return nil
}

// Collapse returns an object's members with json-c's duplicate-key rule
// applied: a repeated key keeps the place (and KeyPos) of its first
// occurrence but takes the value of its last, because json-c replaces the
// value in its ordered table in place. So rt-app runs
// {"run": 1000, "sleep": 2000, "run": 3000} as run 3000 then sleep 2000.
//
// dups lists each collapsed key once, in order of first occurrence. The
// returned slice is new, but the Values are shared with v. Collapse returns
// nil, nil if v is not an object.
func (v *Value) Collapse() (members []Member, dups []string) {
	if v == nil || v.Kind != Object {
		return nil, nil
	}
	members = make([]Member, 0, len(v.Members))
	index := make(map[string]int, len(v.Members))
	count := make(map[string]int, len(v.Members))
	for _, m := range v.Members {
		count[m.Key]++
		if i, seen := index[m.Key]; seen {
			members[i].Value = m.Value
			continue
		}
		index[m.Key] = len(members)
		members = append(members, m)
	}
	for _, m := range members {
		if count[m.Key] > 1 {
			dups = append(dups, m.Key)
		}
	}
	return members, dups
}

// Workgen renames repeated keys of an object as rt-app's workgen script
// does before it hands a file to rt-app, instead of collapsing them: the
// second "run" becomes "run1", and so on, with one counter per object
// that starts at 1 and only grows (workgen's curid), skipping names
// already taken. renamed lists each change as {old, new}.
func (v *Value) Workgen() (members []Member, renamed [][2]string) {
	if v == nil || v.Kind != Object {
		return nil, nil
	}
	seen := make(map[string]bool, len(v.Members))
	id := 1
	for _, m := range v.Members {
		if seen[m.Key] {
			k := m.Key + strconv.Itoa(id)
			for seen[k] {
				id++
				k = m.Key + strconv.Itoa(id)
			}
			renamed = append(renamed, [2]string{m.Key, k})
			m.Key = k
		}
		seen[m.Key] = true
		members = append(members, m)
	}
	return members, renamed
}

// SyntaxError is returned by Parse for malformed input.
type SyntaxError struct {
	Pos Pos
	Msg string
}

func (e *SyntaxError) Error() string { return e.Pos.String() + ": " + e.Msg }
