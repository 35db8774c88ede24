// The template oracle: Go's own text/template with the functions a values
// template may call in hmc-tui, run the way Sveltos runs a service's values
// (missingkey=error, a template named after nothing in particular), so
// tests/template_oracle.rs can hold the engine's interpreter against Go.
//
// stdin: a JSON array of cases {name, template, data, floats}; data is the
// JSON text of the root object. stdout: a JSON array, one result per case in
// the same order: {name, out} or {name, error: {class, line, column,
// message}, partial}.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"
)

// The name every case's template gets; it shows in Go's messages.
const name = "values"

// The hash of the source this binary was built from, stamped in by
// tests/harness/build.py (-X main.sourceKey=…), so the test can refuse a
// binary built from other sources.
var sourceKey = "unstamped"

// Go's own functions (text/template's builtins), which a template may call
// besides the function map's.
var builtins = []string{
	"and", "call", "eq", "ge", "gt", "html", "index", "js", "le", "len", "lt", "ne", "not", "or",
	"print", "printf", "println", "slice", "urlquery",
}

type Case struct {
	Name     string `json:"name"`
	Template string `json:"template"`
	Data     string `json:"data"`
	// Decode every number as float64, as plain encoding/json does (what a
	// value read back by fromJson holds), instead of as the API machinery.
	Floats bool `json:"floats"`
}

type Failure struct {
	// "parse" (Parse refused the text) or "exec" (Execute failed).
	Class string `json:"class"`
	// Go's line, 1-based; 0 when Go's message names none.
	Line int `json:"line"`
	// Exec errors only: Go's column, a 0-based byte offset in the line.
	Column  int    `json:"column"`
	Message string `json:"message"`
}

type Result struct {
	Name string `json:"name"`
	// The output. Go writes bytes; when they are not UTF-8 (trunc cuts
	// bytes) JSON cannot carry them, so OutUTF8 says so and Out is lossy.
	Out     *string  `json:"out,omitempty"`
	OutUTF8 bool     `json:"out_utf8"`
	Error   *Failure `json:"error,omitempty"`
	Partial string   `json:"partial,omitempty"`
}

// The Sprig functions hmc-tui offers (docs/src/concepts/values-templates.md):
// those people use in values, and none that reads the clock, the
// environment, the network or a random source. Every other Sprig name is
// not defined, here as in hmc-tui, and a template calling one is refused
// at parse time by both.
var offered = []string{
	"default", "empty", "coalesce", "ternary", "fail",
	"quote", "squote", "upper", "lower", "title", "untitle", "trim", "nospace", "trimAll",
	"trimPrefix", "trimSuffix", "contains", "hasPrefix", "hasSuffix", "trunc", "abbrev",
	"substr", "replace", "repeat", "cat", "indent", "nindent", "split", "splitList", "join",
	"toString", "toStrings",
	"list", "append", "prepend", "concat", "first", "last", "rest", "initial", "reverse",
	"uniq", "without", "has", "compact", "slice", "sortAlpha",
	"dict", "get", "set", "unset", "hasKey", "keys", "values", "pluck", "pick", "omit",
	"merge", "mergeOverwrite", "dig", "deepCopy",
	"add", "add1", "sub", "mul", "div", "mod", "max", "min", "floor", "ceil", "round",
	"int", "int64", "float64", "atoi", "addf", "subf", "mulf", "divf", "until", "untilStep", "seq",
	"regexMatch", "regexFind", "regexReplaceAll", "b64enc", "b64dec", "sha256sum", "sha1sum",
	"semver", "semverCompare", "typeOf", "kindOf", "kindIs",
	"toPrettyJson", "toRawJson",
}

// funcs is the offered part of Sprig's map, Sveltos' YAML and JSON
// functions (libsveltos lib/funcmap SveltosFuncMap, v1.14.0, without
// toToml/fromToml) and Helm's `required`.
func funcs() template.FuncMap {
	all := sprig.TxtFuncMap()
	fm := template.FuncMap{}
	for _, n := range offered {
		f, ok := all[n]
		if !ok {
			panic("sprig has no function " + n)
		}
		fm[n] = f
	}
	fm["toYaml"] = func(v interface{}) string {
		data, err := yaml.Marshal(v)
		if err != nil {
			return ""
		}
		return strings.TrimSuffix(string(data), "\n")
	}
	fm["fromYaml"] = func(str string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := yaml.Unmarshal([]byte(str), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	fm["fromYamlArray"] = func(str string) []interface{} {
		a := []interface{}{}
		if err := yaml.Unmarshal([]byte(str), &a); err != nil {
			a = []interface{}{err.Error()}
		}
		return a
	}
	fm["toJson"] = func(v interface{}) string {
		data, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		return string(data)
	}
	fm["fromJson"] = func(str string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := json.Unmarshal([]byte(str), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	fm["fromJsonArray"] = func(str string) []interface{} {
		a := []interface{}{}
		if err := json.Unmarshal([]byte(str), &a); err != nil {
			a = []interface{}{err.Error()}
		}
		return a
	}
	// Helm's (pkg/engine/funcs.go): an error on nil or "".
	fm["required"] = func(warn string, val interface{}) (interface{}, error) {
		if val == nil {
			return val, fmt.Errorf("%s", warn)
		} else if s, ok := val.(string); ok && s == "" {
			return val, fmt.Errorf("%s", warn)
		}
		return val, nil
	}
	return fm
}

// asMachinery turns json.Numbers into what the API machinery decodes them
// to: int64 for an integer written without '.' or exponent that fits,
// float64 for every other number.
func asMachinery(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		for k, x := range t {
			t[k] = asMachinery(x)
		}
	case []interface{}:
		for i, x := range t {
			t[i] = asMachinery(x)
		}
	case json.Number:
		s := string(t)
		if !strings.ContainsAny(s, ".eE") {
			if i, err := t.Int64(); err == nil {
				return i
			}
		}
		f, _ := t.Float64()
		return f
	}
	return v
}

func decode(c Case) (interface{}, error) {
	var data interface{}
	if c.Data == "" {
		return nil, nil
	}
	d := json.NewDecoder(strings.NewReader(c.Data))
	if c.Floats {
		err := d.Decode(&data)
		return data, err
	}
	d.UseNumber()
	if err := d.Decode(&data); err != nil {
		return nil, err
	}
	return asMachinery(data), nil
}

var (
	execAt  = regexp.MustCompile(`^template: ` + name + `:(\d+):(\d+): `)
	parseAt = regexp.MustCompile(`^template: ` + name + `:(\d+): `)
)

func failure(class string, err error) *Failure {
	f := &Failure{Class: class, Message: err.Error()}
	if m := execAt.FindStringSubmatch(f.Message); m != nil {
		f.Line, _ = strconv.Atoi(m[1])
		f.Column, _ = strconv.Atoi(m[2])
	} else if m := parseAt.FindStringSubmatch(f.Message); m != nil {
		f.Line, _ = strconv.Atoi(m[1])
	}
	return f
}

func run(c Case) (r Result) {
	r.Name = c.Name
	defer func() {
		// text/template recovers a function's panic itself; this is for
		// one in the oracle, reported against the case, not as a crash.
		if p := recover(); p != nil {
			r.Out = nil
			r.Error = &Failure{Class: "panic", Message: fmt.Sprint(p)}
		}
	}()
	data, err := decode(c)
	if err != nil {
		r.Error = &Failure{Class: "data", Message: err.Error()}
		return r
	}
	t, err := template.New(name).Option("missingkey=error").Funcs(funcs()).Parse(c.Template)
	if err != nil {
		r.Error = failure("parse", err)
		return r
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		r.Error = failure("exec", err)
		r.Partial = b.String()
		return r
	}
	out := b.String()
	r.Out = &out
	r.OutUTF8 = utf8.ValidString(out)
	return r
}

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "--source-key":
			fmt.Println(sourceKey)
		case "--functions":
			// Every name a template may call, one a line, sorted.
			names := append([]string{}, builtins...)
			for n := range funcs() {
				names = append(names, n)
			}
			sort.Strings(names)
			fmt.Println(strings.Join(slices.Compact(names), "\n"))
		default:
			fmt.Fprintln(os.Stderr, "usage: template-oracle [--source-key | --functions] < cases.json")
			os.Exit(2)
		}
		return
	}
	var cases []Case
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		fmt.Fprintln(os.Stderr, "template-oracle: reading the cases:", err)
		os.Exit(2)
	}
	results := make([]Result, 0, len(cases))
	for _, c := range cases {
		results = append(results, run(c))
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(results); err != nil {
		fmt.Fprintln(os.Stderr, "template-oracle: writing the results:", err)
		os.Exit(2)
	}
}
