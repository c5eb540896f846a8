package plots

import (
	"html"
	"regexp"
	"strings"
	"unicode/utf8"
)

// numeric matches cells that read as numbers ("1,048,576", "-3.5%",
// "26.2×", "0.041 ms"), which HTMLTable right-aligns so digits line up.
var numeric = regexp.MustCompile(`^[-+]?[0-9][0-9,]*(\.[0-9]+)?\s*(%|×|x|ms|µs|us|s|GB/s|GFLOP/s|MB)?$`)

// HTMLTable renders a table as HTML for a notebook output or a lesson page,
// because Jupyter shows HTML tables as tables while preformatted text loses
// its alignment in proportional fonts. Every header and cell is escaped;
// numeric cells are right-aligned and text cells left-aligned. A row shorter than the header is padded
// with empty cells; a longer one keeps its extra cells.
func HTMLTable(header []string, rows [][]string) string {
	return HTMLTableCaption("", header, rows)
}

// HTMLTableCaption is HTMLTable with a caption above the table (escaped),
// for saying where the numbers come from ("modeled", a GPU and a date).
func HTMLTableCaption(caption string, header []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString(`<table class="warplab">`)
	if caption != "" {
		b.WriteString("<caption>" + html.EscapeString(caption) + "</caption>")
	}
	b.WriteString("\n")
	if len(header) > 0 {
		b.WriteString("<thead><tr>")
		for _, h := range header {
			b.WriteString("<th>" + html.EscapeString(h) + "</th>")
		}
		b.WriteString("</tr></thead>\n")
	}
	b.WriteString("<tbody>\n")
	for _, r := range rows {
		b.WriteString("<tr>")
		for i := range max(len(r), len(header)) {
			cell := ""
			if i < len(r) {
				cell = r[i]
			}
			switch {
			case numeric.MatchString(strings.TrimSpace(cell)):
				b.WriteString(`<td style="text-align:right;white-space:nowrap">`)
			case utf8.RuneCountInString(cell) <= 24:
				// Jupyter's stylesheet right-aligns every cell; names read
				// better left-aligned and unbroken ("thread per row").
				b.WriteString(`<td style="text-align:left;white-space:nowrap">`)
			default:
				b.WriteString(`<td style="text-align:left">`)
			}
			b.WriteString(html.EscapeString(cell) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table>")
	return b.String()
}
