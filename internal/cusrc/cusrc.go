// Package cusrc cuts one function's definition out of a CUDA C source file,
// so that a notebook can show a student the kernel it is about to launch
// from the very text that was compiled (the lessons embed their .cu files)
// instead of a copy pasted into prose that can drift from it.
package cusrc

import (
	"fmt"
	"regexp"
	"strings"
)

// Func returns the definition of the function called name in src: its
// template line, if any, its signature and its body up to the closing
// brace. The comment block above it is left out, because the notebook's
// prose says what the kernel does; the comments inside the body stay.
//
// A definition is a line starting in column 0 (optionally after
// `extern "C"`, `__global__`, `template <...>` and the like) that names the
// function followed by "(" and, before any ";", opens a brace. Declarations
// and calls are skipped. It returns an error naming the function when src
// has no such definition or its braces do not balance.
func Func(src, name string) (string, error) {
	lines := strings.SplitAfter(src, "\n")
	def := regexp.MustCompile(`^[A-Za-z_].*\b` + regexp.QuoteMeta(name) + `\s*\(`)
	for i, l := range lines {
		if !def.MatchString(l) {
			continue
		}
		body, ok := balanced(lines[i:])
		if !ok {
			continue // a declaration or a prototype: no body before ';'
		}
		start := i
		if start > 0 && strings.HasPrefix(strings.TrimSpace(lines[start-1]), "template") {
			start--
		}
		return strings.Join(lines[start:i], "") + body, nil
	}
	return "", fmt.Errorf("cusrc: no definition of %s in the source", name)
}

// balanced returns the text of lines from the first up to the line holding
// the brace that closes the first "{", skipping braces in comments, strings
// and character literals. ok is false when a ";" comes before any "{" (a
// declaration) or the braces never close.
func balanced(lines []string) (string, bool) {
	var b strings.Builder
	depth, opened := 0, false
	inBlock := false
	for _, l := range lines {
		b.WriteString(l)
		for j := 0; j < len(l); j++ {
			c := l[j]
			switch {
			case inBlock:
				if c == '*' && j+1 < len(l) && l[j+1] == '/' {
					inBlock = false
					j++
				}
			case c == '/' && j+1 < len(l) && l[j+1] == '/':
				j = len(l) // rest of the line is a comment
			case c == '/' && j+1 < len(l) && l[j+1] == '*':
				inBlock = true
				j++
			case c == '"' || c == '\'':
				for j++; j < len(l) && l[j] != c; j++ {
					if l[j] == '\\' {
						j++
					}
				}
			case c == ';' && !opened:
				return "", false
			case c == '{':
				depth++
				opened = true
			case c == '}':
				depth--
				if opened && depth == 0 {
					return b.String(), true
				}
			}
		}
	}
	return "", false
}
