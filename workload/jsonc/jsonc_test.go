package jsonc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func mustParse(t *testing.T, src string) *Value {
	t.Helper()
	v, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return v
}

func keys(ms []Member) []string {
	var ks []string
	for _, m := range ms {
		ks = append(ks, m.Key)
	}
	return ks
}

func TestOrderAndDuplicates(t *testing.T) {
	v := mustParse(t, `{"run": 1000, "sleep": 2000, "run": 3000}`)
	if v.Kind != Object {
		t.Fatalf("kind = %v, want object", v.Kind)
	}
	if got, want := keys(v.Members), []string{"run", "sleep", "run"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Parse keys = %q, want %q", got, want)
	}
	for i, want := range []string{"1000", "2000", "3000"} {
		if got := v.Members[i].Value.Num; got != want {
			t.Errorf("member %d = %s, want %s", i, got, want)
		}
	}
	if got := v.Get("run"); got == nil || got.Num != "3000" {
		t.Errorf(`Get("run") = %+v, want 3000 (the last one)`, got)
	}
	if got := v.Get("missing"); got != nil {
		t.Errorf(`Get("missing") = %+v, want nil`, got)
	}

	ms, dups := v.Collapse()
	if got, want := keys(ms), []string{"run", "sleep"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Collapse keys = %q, want %q", got, want)
	}
	if ms[0].Value.Num != "3000" || ms[1].Value.Num != "2000" {
		t.Errorf("Collapse values = [%s %s], want [3000 2000]", ms[0].Value.Num, ms[1].Value.Num)
	}
	// The collapsed "run" sits where the first one was written but holds
	// the value (and value position) of the last.
	if ms[0].KeyPos != (Pos{1, 2}) || ms[0].Value.Pos != (Pos{1, 37}) {
		t.Errorf("collapsed run: KeyPos %v Value.Pos %v, want 1:2 and 1:37", ms[0].KeyPos, ms[0].Value.Pos)
	}
	if want := []string{"run"}; !reflect.DeepEqual(dups, want) {
		t.Errorf("dups = %q, want %q", dups, want)
	}
	// Collapse must not touch the parsed tree.
	if len(v.Members) != 3 || v.Members[0].Value.Num != "1000" {
		t.Errorf("Collapse modified the tree: %+v", v.Members)
	}
}

func TestCollapseManyDuplicates(t *testing.T) {
	v := mustParse(t, `{"a": 1, "b": 1, "b": 2, "a": 2, "c": 0, "a": 3}`)
	ms, dups := v.Collapse()
	var got []string
	for _, m := range ms {
		got = append(got, m.Key+"="+m.Value.Num)
	}
	if want := []string{"a=3", "b=2", "c=0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Collapse = %q, want %q", got, want)
	}
	// "b" is the first key seen repeated, but "a" occurs first.
	if want := []string{"a", "b"}; !reflect.DeepEqual(dups, want) {
		t.Errorf("dups = %q, want %q", dups, want)
	}

	ms, dups = mustParse(t, `{"x": 1, "y": 2}`).Collapse()
	if len(ms) != 2 || dups != nil {
		t.Errorf("no duplicates: got %d members, dups %q", len(ms), dups)
	}
	if ms, dups := mustParse(t, `[1]`).Collapse(); ms != nil || dups != nil {
		t.Errorf("Collapse of an array = %v, %v; want nil, nil", ms, dups)
	}
}

const rtApp = `/* rt-app workload, the way people write them */
{
	// global settings
	'global': {
		"duration": 2,
		"calibration": "CPU0",
		"ftrace": False,
	},
	"tasks": {
		"thread0": {
			"instance": 1,
			"loop": -1,
			"run": 1000, /* us */
			"sleep": 2000,
			"run": 3000,
			"lock_order": ['mutex0', "mutex1",],
			"cpus": NULL,
			"x": TRUE, // trailing comment
		},
	},
}
// the end`

func TestLenientSyntax(t *testing.T) {
	v := mustParse(t, rtApp)
	if got, want := keys(v.Members), []string{"global", "tasks"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("top keys = %q, want %q", got, want)
	}
	if f := v.Get("global").Get("ftrace"); f == nil || f.Kind != Bool || f.Bool {
		t.Errorf("ftrace = %+v, want boolean false", f)
	}
	if c := v.Get("global").Get("calibration"); c == nil || c.Str != "CPU0" {
		t.Errorf("calibration = %+v, want CPU0", c)
	}
	th := v.Get("tasks").Get("thread0")
	want := []string{"instance", "loop", "run", "sleep", "run", "lock_order", "cpus", "x"}
	if got := keys(th.Members); !reflect.DeepEqual(got, want) {
		t.Errorf("thread0 keys = %q, want %q", got, want)
	}
	lo := th.Get("lock_order")
	if lo == nil || lo.Kind != Array || len(lo.Elems) != 2 || lo.Elems[0].Str != "mutex0" || lo.Elems[1].Str != "mutex1" {
		t.Errorf("lock_order = %+v", lo)
	}
	if c := th.Get("cpus"); c == nil || c.Kind != Null {
		t.Errorf("cpus = %+v, want null", c)
	}
	if x := th.Get("x"); x == nil || x.Kind != Bool || !x.Bool {
		t.Errorf("x = %+v, want true", x)
	}
	if n, ok := th.Get("loop").Int(); !ok || n != -1 {
		t.Errorf("loop = %d, %v; want -1", n, ok)
	}
}

func TestLiteralsAnyCase(t *testing.T) {
	for _, tc := range []struct {
		src  string
		kind Kind
		b    bool
	}{
		{"true", Bool, true}, {"True", Bool, true}, {"tRuE", Bool, true},
		{"false", Bool, false}, {"FALSE", Bool, false},
		{"null", Null, false}, {"Null", Null, false}, {"NULL", Null, false},
	} {
		v := mustParse(t, tc.src)
		if v.Kind != tc.kind || v.Bool != tc.b {
			t.Errorf("%s: got %v %v, want %v %v", tc.src, v.Kind, v.Bool, tc.kind, tc.b)
		}
	}
}

func TestTrailingCommasAndEmpty(t *testing.T) {
	for src, n := range map[string]int{
		`{}`: 0, `{ }`: 0, `{"a": 1,}`: 1, `{"a": 1, /* c */ }`: 1,
		`[]`: 0, `[1, 2,]`: 2, "[1,\n// c\n]": 1,
	} {
		v := mustParse(t, src)
		if got := len(v.Members) + len(v.Elems); got != n {
			t.Errorf("%s: %d children, want %d", src, got, n)
		}
	}
}

func TestStrings(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`"plain"`, "plain"},
		{`'single'`, "single"},
		{`'it\'s'`, "it's"},
		{`'say "hi"'`, `say "hi"`},
		{`"it's"`, "it's"},
		{`"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t"},
		{`'\"'`, `"`},
		{`"\u00e9\u20AC"`, "é€"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\ud800x"`, "\uFFFDx"},            // lone high surrogate
		{`"\udc00"`, "\uFFFD"},              // lone low surrogate
		{`"\ud800\u0041"`, "\uFFFDA"},       // high surrogate, then not a low one
		{`"\ud800\ud800\udc00"`, "\uFFFD𐀀"}, // the second high pairs up
		{`"\u0000"`, "\x00"},
		{"\"tab\there\"", "tab\there"}, // raw control characters: json-c keeps them
		{"\"bad\xffutf8\"", "bad\xffutf8"},
		{`"ünï"`, "ünï"},
	} {
		v := mustParse(t, tc.src)
		if v.Kind != String || v.Str != tc.want {
			t.Errorf("%s: got %v %q, want %q", tc.src, v.Kind, v.Str, tc.want)
		}
		// Where the input is standard JSON, agree with encoding/json.
		var std string
		if json.Unmarshal([]byte(tc.src), &std) == nil && !strings.Contains(tc.src, "\xff") && std != v.Str {
			t.Errorf("%s: got %q, encoding/json says %q", tc.src, v.Str, std)
		}
	}
}

func TestPositions(t *testing.T) {
	src := "{\n\t\"a\": [1, \"é\", {\"b\": null}],\n  \"ü\": 'x'\r\n}"
	for _, prefix := range []string{"", "\uFEFF"} {
		v := mustParse(t, prefix+src)
		a := v.Members[0].Value
		u := v.Members[1]
		for _, tc := range []struct {
			what      string
			got, want Pos
		}{
			{"root", v.Pos, Pos{1, 1}},
			{"key a", v.Members[0].KeyPos, Pos{2, 2}},
			{"array", a.Pos, Pos{2, 7}},
			{"1", a.Elems[0].Pos, Pos{2, 8}},
			{"é", a.Elems[1].Pos, Pos{2, 11}},
			{"object", a.Elems[2].Pos, Pos{2, 16}},
			{"key b", a.Elems[2].Members[0].KeyPos, Pos{2, 17}},
			{"null", a.Elems[2].Members[0].Value.Pos, Pos{2, 22}},
			{"key ü", u.KeyPos, Pos{3, 3}},
			{"'x'", u.Value.Pos, Pos{3, 8}},
		} {
			if tc.got != tc.want {
				t.Errorf("BOM %v: %s at %v, want %v", prefix != "", tc.what, tc.got, tc.want)
			}
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	for _, tc := range []struct {
		src, want string // want is "line:col: message"
	}{
		{"{\n  \"tasks\": {\n\t\t\"priority\" 10\n  }\n}", `3:14: expected ':' after object key "priority"`},
		{"", "1:1: empty input: no JSON value"},
		{"  /* only a comment */\n", "2:1: empty input: no JSON value"},
		{"\uFEFF", "1:1: empty input: no JSON value"},
		{`{"a": "abc`, "1:7: unterminated string"},
		{`{"a": 'abc"}`, "1:7: unterminated string"},
		{`"abc\`, "1:1: unterminated string"},
		{"{\"a\": 1 /* x \n\n", "1:9: unterminated comment"},
		{`{"a": 1} x`, "1:10: unexpected character 'x' after top-level value"},
		{`{"a": 1}}`, "1:9: unexpected character '}' after top-level value"},
		{`{} {}`, "1:4: unexpected character '{' after top-level value"},
		{`{"a": 1 "b": 2}`, `1:9: expected ',' or '}' after value of object key "a", found character '"'`},
		{"{\"a\":1,\n\t\"b\" 2}", `2:6: expected ':' after object key "b"`},
		{"{\r\n\"a\" 1}", `2:5: expected ':' after object key "a"`},
		{`{"a"`, `1:5: expected ':' after object key "a"`},
		{`{"a":`, "1:6: unexpected end of input, expected a value"},
		{`{"a":}`, "1:6: expected a value, found character '}'"},
		{"{\n  \"a\": [1, 2", "2:13: unexpected end of input: array opened at 2:8 is not closed"},
		{`{"a": 1,`, "1:9: unexpected end of input: object opened at 1:1 is not closed"},
		{`[1 2]`, "1:4: expected ',' or ']' after array element, found character '2'"},
		{`{a: 1}`, "1:2: expected quoted object key or '}', found character 'a'"},
		{`{,}`, "1:2: expected quoted object key or '}', found character ','"},
		{`{"a": 1,,}`, "1:9: expected quoted object key or '}', found character ','"},
		{`[1,,2]`, "1:4: expected a value, found character ','"},
		{`[,]`, "1:2: expected a value, found character ','"},
		{`{"a": yes}`, `1:7: invalid literal "yes" (strings must be quoted)`},
		{`{"é": x}`, `1:7: invalid literal "x" (strings must be quoted)`}, // columns count runes
		{"\"\xff\" x", "1:5: unexpected character 'x' after top-level value"},
		{"\uFEFFx", `1:1: invalid literal "x" (strings must be quoted)`},
		{`trueish`, `1:1: invalid literal "trueish" (strings must be quoted)`},
		{`{"a": 01}`, `1:7: invalid number "01"`},
		{`[1.2.3]`, `1:2: invalid number "1.2.3"`},
		{`[-]`, `1:2: invalid number "-"`},
		{`[1.]`, `1:2: invalid number "1."`},
		{`[1e+]`, `1:2: invalid number "1e+"`},
		{`[-Infinity]`, `1:2: invalid number "-Infinity"`},
		{`[NaN]`, `1:2: invalid literal "NaN" (strings must be quoted)`},
		{`[+1]`, "1:2: expected a value, found character '+'"},
		{`[.5]`, "1:2: expected a value, found character '.'"},
		{`[#]`, "1:2: expected a value, found character '#'"},
		{"[\xff]", "1:2: expected a value, found byte 0xFF"},
		{`"\q"`, `1:2: invalid escape: character 'q' after '\'`},
		{`"a\'b"`, `1:3: invalid escape \' in double-quoted string`},
		{`"\u12G4"`, `1:2: invalid \u escape: want 4 hex digits`},
		{`"\u12"`, `1:2: invalid \u escape: want 4 hex digits`},
		{`[1] /x`, "1:5: unexpected '/': comments start with /* or //"},
		{deep, fmt.Sprintf("1:%d: nesting deeper than %d levels", MaxDepth+1, MaxDepth)},
	} {
		v, err := Parse([]byte(tc.src))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, %v; want *SyntaxError %q", tc.src, v, err, tc.want)
			continue
		}
		if v != nil {
			t.Errorf("Parse(%q) returned a value with its error", tc.src)
		}
		if err.Error() != tc.want {
			t.Errorf("Parse(%q):\n got %s\nwant %s", tc.src, err, tc.want)
		}
	}
}

func TestMaxDepthAccepted(t *testing.T) {
	src := strings.Repeat(`{"a":[`, MaxDepth/2) + strings.Repeat("]}", MaxDepth/2)
	v := mustParse(t, src)
	depth := 0
	for v != nil {
		depth++
		switch v.Kind {
		case Object:
			v = v.Get("a")
		case Array:
			if len(v.Elems) == 0 {
				v = nil
			} else {
				v = v.Elems[0]
			}
		}
	}
	if depth != MaxDepth {
		t.Errorf("depth = %d, want %d", depth, MaxDepth)
	}
}

func TestNumbers(t *testing.T) {
	for _, tc := range []struct {
		lit   string
		n     int64
		intOK bool
		f     float64
		fOK   bool
	}{
		{"10", 10, true, 10, true},
		{"-3", -3, true, -3, true},
		{"0", 0, true, 0, true},
		{"-0", 0, true, math.Copysign(0, -1), true},
		{"2.5", 0, false, 2.5, true},
		{"1e3", 1000, true, 1000, true},
		{"1E+3", 1000, true, 1000, true},
		{"2.0", 2, true, 2, true},
		{"1.5e1", 15, true, 15, true},
		{"1e-3", 0, false, 0.001, true},
		{"9223372036854775807", math.MaxInt64, true, 9223372036854775807, true},
		{"9223372036854775808", 0, false, 9223372036854775808, true},
		{"-9223372036854775808", math.MinInt64, true, -9223372036854775808, true},
		{"-9.223372036854775808e18", math.MinInt64, true, -9223372036854775808, true},
		{"9.223372036854775807e18", 0, false, 9223372036854775807, true}, // rounds to 2^63
		{"1e19", 0, false, 1e19, true},
		{"1e400", 0, false, 0, false},
		{"-1e400", 0, false, 0, false},
	} {
		v := mustParse(t, tc.lit)
		if v.Kind != Number || v.Num != tc.lit {
			t.Errorf("%s: parsed as %v %q", tc.lit, v.Kind, v.Num)
		}
		if n, ok := v.Int(); ok != tc.intOK || (ok && n != tc.n) {
			t.Errorf("%s: Int() = %d, %v; want %d, %v", tc.lit, n, ok, tc.n, tc.intOK)
		}
		f, ok := v.Float()
		if ok != tc.fOK || (ok && (f != tc.f || math.Signbit(f) != math.Signbit(tc.f))) {
			t.Errorf("%s: Float() = %v, %v; want %v, %v", tc.lit, f, ok, tc.f, tc.fOK)
		}
	}
	for _, v := range []*Value{nil, mustParse(t, `"10"`), mustParse(t, `true`), mustParse(t, `null`)} {
		if _, ok := v.Int(); ok {
			t.Errorf("Int() of %+v: ok", v)
		}
		if _, ok := v.Float(); ok {
			t.Errorf("Float() of %+v: ok", v)
		}
	}
}

func TestStringers(t *testing.T) {
	if got := (Pos{3, 14}).String(); got != "3:14" {
		t.Errorf("Pos.String = %q", got)
	}
	for k, want := range map[Kind]string{
		Null: "null", Bool: "boolean", Number: "number", String: "string",
		Object: "object", Array: "array", Kind(42): "Kind(42)",
	} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
	err := error(&SyntaxError{Pos{3, 14}, `expected ':' after object key "run"`})
	if got, want := err.Error(), `3:14: expected ':' after object key "run"`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestGetChaining(t *testing.T) {
	v := mustParse(t, `{"a": {"b": [1]}}`)
	if v.Get("a").Get("b") == nil {
		t.Error("a.b not found")
	}
	if v.Get("x").Get("y") != nil || v.Get("a").Get("b").Get("c") != nil {
		t.Error("lookup through a missing key or an array should give nil")
	}
}

// encode appends v as standard JSON, keeping member order and duplicates.
// Strings are copied byte by byte so that invalid UTF-8 survives. (It avoids
// fmt and bytes.Buffer: the fuzzer instruments them too, and their
// size-dependent paths make it spend its time minimizing long inputs.)
func encode(b []byte, v *Value) []byte {
	switch v.Kind {
	case Null:
		return append(b, "null"...)
	case Bool:
		return strconv.AppendBool(b, v.Bool)
	case Number:
		return append(b, v.Num...)
	case String:
		return encodeString(b, v.Str)
	case Object:
		b = append(b, '{')
		for i, m := range v.Members {
			if i > 0 {
				b = append(b, ',')
			}
			b = encodeString(b, m.Key)
			b = append(b, ':')
			b = encode(b, m.Value)
		}
		return append(b, '}')
	case Array:
		b = append(b, '[')
		for i, e := range v.Elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = encode(b, e)
		}
		return append(b, ']')
	}
	panic("unknown kind " + v.Kind.String())
}

func encodeString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// sameTree compares two trees, ignoring positions.
func sameTree(a, b *Value) bool {
	if a.Kind != b.Kind || a.Bool != b.Bool || a.Str != b.Str || a.Num != b.Num ||
		len(a.Members) != len(b.Members) || len(a.Elems) != len(b.Elems) {
		return false
	}
	for i := range a.Members {
		if a.Members[i].Key != b.Members[i].Key || !sameTree(a.Members[i].Value, b.Members[i].Value) {
			return false
		}
	}
	for i := range a.Elems {
		if !sameTree(a.Elems[i], b.Elems[i]) {
			return false
		}
	}
	return true
}

// checkCollapse checks, for every object in the tree, that Collapse gives
// unique keys whose values are what Get returns.
func checkCollapse(t *testing.T, v *Value) {
	ms, dups := v.Collapse()
	seen := map[string]bool{}
	for _, m := range ms {
		if seen[m.Key] {
			t.Fatalf("Collapse at %v repeats key %q", v.Pos, m.Key)
		}
		seen[m.Key] = true
		if m.Value != v.Get(m.Key) {
			t.Fatalf("Collapse at %v: %q is not the value Get returns", v.Pos, m.Key)
		}
	}
	if len(ms)+len(dups) > len(v.Members) {
		t.Fatalf("Collapse at %v: %d members + %d dups from %d", v.Pos, len(ms), len(dups), len(v.Members))
	}
	for _, m := range v.Members {
		checkCollapse(t, m.Value)
	}
	for _, e := range v.Elems {
		checkCollapse(t, e)
	}
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		rtApp,
		`{"run": 1000, "sleep": 2000, "run": 3000}`,
		`[1, -2.5e+3, 0, "x", 'y\'z', true, False, NULL, {}, [],]`,
		`"\ud83d\ude00 \ud800 \u00e9 \"\\\/\b\f\n\r\t"`,
		"\uFEFF{\"a\" /* c */ : // c\n 1}",
		"\"raw\ttab and \xff byte\"",
		`{"a": {"b": {"c": [[[{"d": null}]]]}}}`,
		``,
		`{"a" 1}`,
		`{"a": "unterminated`,
		`/* unterminated`,
		`[1,,2]`,
		`{} trailing`,
		`[01, 1., .5, +1, -Infinity, NaN]`,
		strings.Repeat("[", MaxDepth+1),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Pos.Line < 1 || se.Pos.Col < 1 {
				t.Fatalf("bad error %#v", err)
			}
			// Every valid standard JSON document is one we accept.
			if json.Valid(data) && bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) <= MaxDepth {
				t.Fatalf("encoding/json accepts %q but Parse says %v", data, err)
			}
			return
		}
		checkCollapse(t, v)
		out := encode(nil, v)
		if !json.Valid(out) {
			t.Fatalf("re-encoding of %q is not valid JSON: %q", data, out)
		}
		w, err := Parse(out)
		if err != nil {
			t.Fatalf("re-parsing %q (from %q): %v", out, data, err)
		}
		if !sameTree(v, w) {
			t.Fatalf("round trip changed the tree: %q -> %q", data, out)
		}
	})
}

func TestBareKey(t *testing.T) {
	v := mustParse(t, "{\"a\": 1,\n \"suspend\",\n \"b\": 2, \"last\"}")
	want := []struct {
		key  string
		bare bool
		kind Kind
	}{{"a", false, Number}, {"suspend", true, Null}, {"b", false, Number}, {"last", true, Null}}
	if len(v.Members) != len(want) {
		t.Fatalf("%d members, want %d", len(v.Members), len(want))
	}
	for i, w := range want {
		m := v.Members[i]
		if m.Key != w.key || m.Bare != w.bare || m.Value.Kind != w.kind {
			t.Errorf("member %d = %q bare %v %v, want %q bare %v %v", i, m.Key, m.Bare, m.Value.Kind, w.key, w.bare, w.kind)
		}
	}
	if p := v.Members[1].Value.Pos; p != (Pos{2, 11}) {
		t.Errorf("bare value at %v, want 2:11 (the comma)", p)
	}
}

func TestWorkgenRenames(t *testing.T) {
	// workgen's counter is one per object and only grows: the second
	// resume takes 2 because run has taken 1 and 2 before it.
	v := mustParse(t, `{"run": 1, "run": 2, "run": 3, "resume": "a", "resume": "b", "run1x": 0, "sleep": 4, "sleep": 5}`)
	ms, renamed := v.Workgen()
	var keys []string
	for _, m := range ms {
		keys = append(keys, m.Key)
	}
	if got, want := strings.Join(keys, " "), "run run1 run2 resume resume2 run1x sleep sleep2"; got != want {
		t.Errorf("keys %q, want %q", got, want)
	}
	if len(renamed) != 4 || renamed[0] != [2]string{"run", "run1"} || renamed[2] != [2]string{"resume", "resume2"} {
		t.Errorf("renamed %v", renamed)
	}
	if ms[1].Value.Num != "2" || ms[7].Value.Num != "5" {
		t.Errorf("values moved: %+v", ms)
	}
}
